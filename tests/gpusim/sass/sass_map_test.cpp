// tests/gpusim/sass/sass_map_test.cpp — the LDS/STS decoder (sass_decode.h), the per-PTX-instruction
// shared issue it gives the timing model (sass_map.h, sass_shared_issue), its effect on
// wavefronts, and loads issued where ptxas scheduled them (sass_load_hoist); PTX from
// tests/gpusim/cuda/sass_shared.cu (nvcc), SASS from ptxas.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_decode.h"
#include "gpusim/sass/sass_map.h"
#include "gpusim/timing/timing.h"

namespace weft::gpusim {
namespace {

std::string ptx_text() {
    std::ifstream f(std::string(GPUSIM_PTX_DIR) + "/sass_shared.ptx");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

#define REQUIRE_TOOLS()                                                            \
    if (!GPUSIM_HAVE_NVCC) GTEST_SKIP() << "nvcc not available: no generated PTX"; \
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed"

TEST(SassDecode, NonSharedWordsAreNotDecoded) {
    bool store = false;
    int width = 0;
    EXPECT_FALSE(decode_shared_sass(0x947, 0, &store, &width));  // BRA
    EXPECT_TRUE(decode_shared_sass(kSassOpcodeLds | 0x1000, uint64_t{6} << 9, &store, &width));
    EXPECT_FALSE(store);
    EXPECT_EQ(width, 16);
}

// Every PTX ld/st.shared of shared_widths is one LDS/STS of the PTX's own width and kind, on its
// own PTX line: the decoder agrees with ptxas for 1, 2, 4, 8 and 16 bytes.
TEST(SassDecode, WidthsAgreeWithThePtx) {
    REQUIRE_TOOLS();
    const std::string ptx = ptx_text();
    const Module m = parse_ptx(ptx, "sass_shared.ptx");
    const SassMap map = map_sass(ptx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("shared_widths");
    int checked = 0;
    const Function& f = *m.find_function("shared_widths");
    for (int32_t i = f.begin; i < f.end; ++i) {
        const Instr& in = m.instructions()[static_cast<size_t>(i)];
        if ((in.op != Op::Ld && in.op != Op::St) || in.space != Space::Shared) continue;
        int found = 0;
        for (const SassInstruction& w : k.code) {
            bool store;
            int width;
            if (w.ptx_line != in.ptx_line || !decode_shared_sass(w.lo, w.hi, &store, &width)) continue;
            ++found;
            EXPECT_EQ(store, in.op == Op::St) << "PTX line " << in.ptx_line;
            EXPECT_EQ(width, type_bytes(in.type) * in.vec) << "PTX line " << in.ptx_line;
        }
        EXPECT_EQ(found, 1) << "PTX line " << in.ptx_line;
        ++checked;
    }
    EXPECT_EQ(checked, 8);  // 4 stores, 4 loads
    for (const SharedIssue& s : sass_shared_issue(map, m, "shared_widths"))
        if (s.requests >= 0) EXPECT_EQ(s.requests, 1.0);
}

// row_sum's 16 ld.shared.f32 of one row become four LDS.128: every fourth PTX load is a 16-byte
// request, the other three cost nothing. A warp covers two rows (ty = lane / 16), one per
// half-warp, so a 16-byte request costs 2 wavefronts under the H200 rule (16-byte requests per
// half-warp) and each 4-byte load 1 (two words in distinct banks): per warp 4 x 2 = 8 instead of
// 16 x 1, plus the tile store's 1.
TEST(SassSharedIssue, MergedRowLoadsCostTheirWideRequests) {
    REQUIRE_TOOLS();
    const std::string ptx = ptx_text();
    const Module m = parse_ptx(ptx, "sass_shared.ptx");
    const SassMap map = map_sass(ptx, builtin_arch("h200"));
    const std::vector<SharedIssue> issue = sass_shared_issue(map, m, "row_sum");
    ASSERT_EQ(issue.size(), m.instructions().size());
    int wide = 0, merged = 0, loads = 0;
    const Function& f = *m.find_function("row_sum");
    for (size_t i = static_cast<size_t>(f.begin); i < static_cast<size_t>(f.end); ++i) {
        const Instr& in = m.instructions()[i];
        if (in.op != Op::Ld || in.space != Space::Shared) continue;
        ++loads;
        if (issue[i].requests == 1 && issue[i].width == 16) ++wide;
        if (issue[i].requests == 0) ++merged;
    }
    EXPECT_EQ(loads, 16);
    EXPECT_EQ(wide, 4);
    EXPECT_EQ(merged, 12);

    std::vector<float> in(256), out(256);
    for (int i = 0; i < 256; ++i) in[i] = static_cast<float>(i % 7);
    auto timed = [&](bool machine_code) {
        ParamPacker p;
        p.add(in.data()).add(out.data());
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 32;
        o.static_shared_bytes = 1024;
        o.issue_weights = sass_weights(map, m, "row_sum");
        if (machine_code) o.shared_issue = issue;
        return launch_timed(m, "row_sum", {1, 1, 1}, {256, 1, 1}, p.bytes(), o);
    };
    const TimingResult as_written = timed(false), issued = timed(true);
    for (int i = 0; i < 256; ++i) {
        float ref = 0;
        for (int k = 0; k < 16; ++k) ref += in[(i / 16) * 16 + k] * static_cast<float>(k + 1);
        EXPECT_EQ(out[i], ref) << i;
    }
    EXPECT_EQ(as_written.total.shared_wavefronts, 8u * (16 + 1));
    EXPECT_EQ(issued.total.shared_wavefronts, 8u * (4 * 2 + 1));
    EXPECT_EQ(issued.total.shared_excess_wavefronts(), 0u);
    // The functional results and instruction counts do not depend on how the loads are issued.
    EXPECT_EQ(issued.counts.total, as_written.counts.total);

    // The machine code issues the four LDS.128 back to back, before the FMAs that use them
    // (sass_load_hoist); the PTX interleaves each load with its FMA. Issued where ptxas put them,
    // a warp waits one shared round trip instead of four in a row (the FMA chain needs each row
    // in turn): about three shared latencies fewer.
    const std::vector<LoadHoist> hoist = sass_load_hoist(map, m, "row_sum", sass_weights(map, m, "row_sum"));
    int hoisted = 0;
    for (size_t i = static_cast<size_t>(f.begin); i < static_cast<size_t>(f.end); ++i) {
        const Instr& in = m.instructions()[i];
        if (in.op != Op::Ld || in.space != Space::Shared) continue;
        if (hoist[i].offset >= 0) {
            ++hoisted;
            EXPECT_LT(hoist[i].offset, 8);  // only the loads and their address arithmetic come before them
        }
    }
    EXPECT_EQ(hoisted, 15);  // every load but the first
    auto with_hoist = [&](bool on) {
        ParamPacker p;
        p.add(in.data()).add(out.data());
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 32;
        o.static_shared_bytes = 1024;
        o.issue_weights = sass_weights(map, m, "row_sum");
        o.shared_issue = issue;
        if (on) o.load_hoist = hoist;
        return launch_timed(m, "row_sum", {1, 1, 1}, {256, 1, 1}, p.bytes(), o);
    };
    const TimingResult in_order = with_hoist(false), scheduled = with_hoist(true);
    const double lat = builtin_arch("h200").pipes[static_cast<int>(PipeClass::Shared)].latency;
    EXPECT_EQ(scheduled.counts.total, in_order.counts.total);
    EXPECT_EQ(scheduled.total.shared_wavefronts, in_order.total.shared_wavefronts);
    EXPECT_GE(static_cast<double>(in_order.cycles) - static_cast<double>(scheduled.cycles), 2 * lat)
        << in_order.cycles << " " << scheduled.cycles;
    EXPECT_LE(static_cast<double>(in_order.cycles) - static_cast<double>(scheduled.cycles), 4 * lat)
        << in_order.cycles << " " << scheduled.cycles;

    TimingOptions bad;
    bad.arch = builtin_arch("h200");
    bad.registers_per_thread = 32;
    bad.shared_issue.resize(3);
    ParamPacker p;
    p.add(in.data()).add(out.data());
    EXPECT_THROW(launch_timed(m, "row_sum", {1, 1, 1}, {256, 1, 1}, p.bytes(), bad), SimError);
    bad.shared_issue.clear();
    bad.load_hoist.resize(3);
    EXPECT_THROW(launch_timed(m, "row_sum", {1, 1, 1}, {256, 1, 1}, p.bytes(), bad), SimError);
}

// The sim device keeps the map as text in its disk cache (sass_map_to_text): read back, it is
// the map ptxas gave, words, lines and counts, so the timing settings made from it are the same.
TEST(SassMapText, RoundTripKeepsWordsAndTimingSettings) {
    REQUIRE_TOOLS();
    const std::string ptx = ptx_text();
    const Module m = parse_ptx(ptx, "sass_shared.ptx");
    const SassMap map = map_sass(ptx, builtin_arch("h200"));
    const SassMap back = sass_map_from_text(sass_map_to_text(map));
    ASSERT_EQ(back.kernels.size(), map.kernels.size());
    for (const auto& [name, k] : map.kernels) {
        const KernelSass& b = back.kernels.at(name);
        EXPECT_EQ(b.static_instructions, k.static_instructions) << name;
        EXPECT_EQ(b.unattributed, k.unattributed) << name;
        EXPECT_EQ(b.per_ptx_line, k.per_ptx_line) << name;
        ASSERT_EQ(b.code.size(), k.code.size()) << name;
        for (size_t i = 0; i < k.code.size(); ++i) {
            EXPECT_EQ(b.code[i].lo, k.code[i].lo) << name << " " << i;
            EXPECT_EQ(b.code[i].hi, k.code[i].hi) << name << " " << i;
            EXPECT_EQ(b.code[i].ptx_line, k.code[i].ptx_line) << name << " " << i;
        }
    }
    const SassTiming a = sass_timing(map, m, "row_sum"), c = sass_timing(back, m, "row_sum");
    EXPECT_EQ(a.issue_weights, c.issue_weights);
    ASSERT_EQ(a.shared_issue.size(), c.shared_issue.size());
    for (size_t i = 0; i < a.shared_issue.size(); ++i) {
        EXPECT_EQ(a.shared_issue[i].requests, c.shared_issue[i].requests) << i;
        EXPECT_EQ(a.shared_issue[i].width, c.shared_issue[i].width) << i;
        EXPECT_EQ(a.shared_issue[i].after_head, c.shared_issue[i].after_head) << i;
    }
    ASSERT_EQ(a.load_hoist.size(), c.load_hoist.size());
    for (size_t i = 0; i < a.load_hoist.size(); ++i) {
        EXPECT_EQ(a.load_hoist[i].offset, c.load_hoist[i].offset) << i;
        EXPECT_EQ(a.load_hoist[i].after, c.load_hoist[i].after) << i;
    }
    // sass_timing is the three functions the validation driver used to call one by one.
    EXPECT_EQ(a.issue_weights, sass_weights(map, m, "row_sum"));
    EXPECT_THROW(sass_map_from_text("kernel row_sum 2\n918 0 -1\n"), SassMapError);
    EXPECT_THROW(sass_map_from_text("row_sum 2\n"), SassMapError);
    EXPECT_TRUE(sass_map_from_text("").kernels.empty());
}

}  // namespace
}  // namespace weft::gpusim
