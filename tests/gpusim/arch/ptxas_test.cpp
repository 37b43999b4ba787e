// tests/gpusim/arch/ptxas_test.cpp — ptxas's resource report: run on real PTX for an
// architecture's target, and parsed per entry.
#include <gtest/gtest.h>

#include "gpusim/arch/arch.h"
#include "gpusim/arch/ptxas.h"

namespace weft::gpusim {
namespace {

TEST(Ptxas, Resources) {
    const ArchSpec h = builtin_arch("h200");
    const std::string ptx =
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .shared .align 4 .b8 s[512];\n"
        " ld.param.u64 %rd1, [p];\n mov.u64 %rd2, s;\n st.global.u64 [%rd1], %rd2;\n ret;\n}\n";
    const auto r = ptxas_resources(ptx, h);
    ASSERT_EQ(r.count("k"), 1u);
    EXPECT_GT(r.at("k").registers, 0);
    EXPECT_EQ(r.at("k").shared_bytes, 512u);
    EXPECT_THROW(ptxas_resources("not ptx", h), PtxasError);
}

// The report is read per entry; a device function's "Function properties" lines are its own.
TEST(Ptxas, ReportLinesBelongToTheirFunction) {
    const std::string log =
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'k_cuda' for 'sm_90'\n"
        "ptxas info    : Function properties for k_cuda\n"
        "    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 40 registers, 1024 bytes smem, 360 bytes cmem[0]\n"
        "ptxas info    : Function properties for helper\n"
        "    64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
    const auto r = parse_ptxas_report(log);
    ASSERT_EQ(r.size(), 1u);
    const KernelResources& k = r.at("k_cuda");
    EXPECT_EQ(k.registers, 40);
    EXPECT_EQ(k.shared_bytes, 1024u);
    EXPECT_EQ(k.stack_bytes, 16u);
    EXPECT_EQ(k.spill_stores, 8u);
    EXPECT_EQ(k.spill_loads, 4u);
}

}  // namespace
}  // namespace weft::gpusim
