// tests/gpusim/exec/launch_test.cpp — counts per launch, per source line and per instruction on a
// small kernel, against expectations computed by hand (see the comments), and the JSON report.
#include <gtest/gtest.h>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {

// 64 threads = 2 warps. Lines (from .loc):
//   10: ld.param, mov                         2 instr x 2 warps, all lanes
//   11: setp, @p bra                          warp 0 diverges (lanes 0-7 jump), warp 1 does not
//   12: shl, st.shared                        warp 0: 24 lanes, warp 1: 32 lanes
//   13: mul.wide, add, st.global, atom, ret   2 warps, all lanes
const char* kKernel = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  .shared .align 4 .b8 s[256];
  .loc 1 10 1
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  .loc 1 11 1
  setp.lt.u32 %p, %r1, 8;
  @%p bra L_small;
  .loc 1 12 1
  shl.b32 %r2, %r1, 2;
  st.shared.u32 [%r2], %r1;
L_small:
  .loc 1 13 1
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  atom.global.add.u32 %r3, [%rd1], 1;
  ret;
}
.file 1 "count.cu"
)";

TEST(Counters, PerLaunchLineAndInstruction) {
    const Module m = parse_ptx(kKernel, "count.ptx");
    std::vector<uint32_t> out(64, 0);
    ParamPacker p;
    p.add(out.data());
    const LaunchResult r = launch(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes());
    EXPECT_EQ(out[0], 64u);  // thread 0 stored 0, then 64 atomic increments
    EXPECT_EQ(out[63], 63u);

    EXPECT_EQ(r.total.warp_instructions, 4u + 4u + 4u + 10u);
    EXPECT_EQ(r.total.thread_instructions, 128u + 128u + (2 * 24 + 2 * 32) + 320u);
    EXPECT_EQ(r.total.branches, 2u);
    EXPECT_EQ(r.total.divergent_branches, 1u);
    EXPECT_EQ(r.total.shared_stores, 56u);
    EXPECT_EQ(r.total.shared_requests, 2u);
    EXPECT_EQ(r.total.global_stores, 64u);
    EXPECT_EQ(r.total.global_loads, 0u);
    EXPECT_EQ(r.total.atomics, 64u);
    EXPECT_DOUBLE_EQ(r.total.active_lane_ratio(), 688.0 / (32.0 * 22));

    ASSERT_EQ(r.per_line.size(), 4u);
    EXPECT_EQ(r.per_line[0].file_name, "count.cu");
    EXPECT_EQ(r.per_line[0].line, 10);
    EXPECT_EQ(r.per_line[0].counts.warp_instructions, 4u);
    EXPECT_EQ(r.per_line[1].line, 11);
    EXPECT_EQ(r.per_line[1].counts.divergent_branches, 1u);
    EXPECT_EQ(r.per_line[2].line, 12);
    EXPECT_EQ(r.per_line[2].counts.thread_instructions, 112u);
    EXPECT_EQ(r.per_line[2].counts.shared_stores, 56u);
    EXPECT_EQ(r.per_line[3].line, 13);
    EXPECT_EQ(r.per_line[3].counts.warp_instructions, 10u);

    ASSERT_EQ(r.per_instruction.size(), 11u);  // every instruction ran; the implicit exit did not
    EXPECT_EQ(r.per_instruction[3].text, "@%p bra L_small;");
    EXPECT_EQ(r.per_instruction[3].ptx_line, 16);
    EXPECT_EQ(r.per_instruction[5].text, "st.shared.u32 [%r2], %r1;");
    EXPECT_EQ(r.per_instruction[5].counts.shared_stores, 56u);

    const std::string json = to_json(r);
    EXPECT_NE(json.find("\"kernel\": \"k\", \"grid\": [1, 1, 1], \"block\": [64, 1, 1]"), std::string::npos) << json;
    EXPECT_NE(json.find("{\"file\": \"count.cu\", \"file_index\": 1, \"line\": 12, \"counts\": {\"warp_instructions\": 4, "
                        "\"thread_instructions\": 112"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"text\": \"@%p bra L_small;\""), std::string::npos);
}

TEST(Counters, IndependentOfHostThreads) {
    const Module m = parse_ptx(kKernel, "count.ptx");
    std::vector<uint32_t> out1(64 * 8), out4(64 * 8);
    LaunchOptions opts;
    auto run = [&](std::vector<uint32_t>& out, int threads) {
        ParamPacker p;
        p.add(out.data());
        opts.threads = threads;
        return launch(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), opts);
    };
    EXPECT_EQ(to_json(run(out1, 1)), to_json(run(out4, 4)));
}

TEST(Counters, InlinedLinesAttributeToTheCallSite) {
    const std::string ptx = std::string(testing::kHeader) +
                            ".visible .entry k()\n{\n.reg .b32 %r<2>;\n"
                            ".loc 1 5 1\nmov.u32 %r0, 1;\n"
                            ".loc 2 80 3, function_name $L__info_string0, inlined_at 1 6 2\nadd.u32 %r1, %r0, %r0;\nret;\n}\n"
                            ".file 1 \"main.cu\"\n.file 2 \"header.h\"\n";
    const Module m = parse_ptx(ptx, "inl.ptx");
    const LaunchResult r = launch(m, "k", {1, 1, 1}, {32, 1, 1}, {});
    ASSERT_EQ(r.per_line.size(), 2u);
    EXPECT_EQ(r.per_line[0].line, 5);
    EXPECT_EQ(r.per_line[1].line, 6);
    EXPECT_EQ(r.per_line[1].file_name, "main.cu");
    EXPECT_EQ(r.per_line[1].counts.warp_instructions, 2u);
}

}  // namespace
}  // namespace weft::gpusim
