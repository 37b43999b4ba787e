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
    EXPECT_EQ(a.stall_site, c.stall_site);
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

// Where the machine code waits for a load (sass_stall_sites): ptxas gives each LDG a scoreboard
// barrier, and the first SASS instruction that waits on it is where Nsight Compute finds the warp
// stalled. Here the PTX's first reader of `w` is the multiply, but the machine code computes the
// compare that needs only `w` first (the shape of integrate_particles' step(-inv_mass)). A timed
// launch with the sites counts the load's wait there; without them, at the multiply.
TEST(SassStallSites, LoadWaitsCountWhereTheMachineCodeWaits) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 w, .param .u64 f, .param .u64 out)
{
  .reg .pred %p<2>;
  .reg .f32 %f<8>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [w];
  ld.param.u64 %rd2, [f];
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  cvta.to.global.u64 %rd3, %rd3;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f1, [%rd5];
  mul.rn.f32 %f3, %f1, %f2;
  setp.gt.f32 %p1, %f1, 0f00000000;
  selp.f32 %f4, 0f3F800000, 0f00000000, %p1;
  add.rn.f32 %f5, %f3, %f4;
  st.global.f32 [%rd7], %f5;
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "k.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    const std::vector<int32_t> site = sass_stall_sites(map, m, "k");
    ASSERT_EQ(site.size(), m.instructions().size());
    auto index_of = [&](const std::string& text) {
        for (size_t i = 0; i < m.instructions().size(); ++i)
            if (m.instruction_text(static_cast<int32_t>(i)).find(text) != std::string::npos) return static_cast<int32_t>(i);
        return -1;
    };
    const int32_t load_f = index_of("[%rd6]"), load_w = index_of("[%rd5]"), mul = index_of("mul.rn.f32"),
                  select = index_of("selp.f32");
    ASSERT_GE(load_w, 0);
    // ptxas makes one FSET.BF of the compare and the select (the select's line) and issues it
    // before the multiply: the machine code waits for `w` there, for `f` at the multiply.
    EXPECT_EQ(site[static_cast<size_t>(load_w)], select);
    EXPECT_EQ(site[static_cast<size_t>(load_f)], mul);
    // In the PTX order the multiply is the first reader of both; `w`, issued last, is the later.
    std::vector<float> w(64, 2.0f), f(64, 3.0f), out(64);
    ParamPacker p;
    p.add(w.data()).add(f.data()).add(out.data());
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.registers_per_thread = 16;
    auto long_wait = [](const TimingResult& r, int32_t pc) {
        for (size_t i = 0; i < r.counts.per_instruction.size(); ++i)
            if (r.counts.per_instruction[i].index == pc)
                return r.per_instruction[i].stall_cycles[static_cast<int>(Stall::LongScoreboard)];
        return uint64_t{0};
    };
    const TimingResult plain = launch_timed(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), o);
    o.stall_site = site;
    const TimingResult sited = launch_timed(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), o);
    EXPECT_EQ(out[5], 2.0f * 3.0f + 1.0f);
    EXPECT_GT(long_wait(plain, mul), 0u);
    EXPECT_EQ(long_wait(plain, select), 0u);
    EXPECT_EQ(long_wait(sited, mul), 0u);
    EXPECT_EQ(long_wait(sited, select), long_wait(plain, mul));
    EXPECT_EQ(sited.cycles, plain.cycles);  // only where the wait is counted moves
    o.stall_site.assign(3, -1);
    try {
        launch_timed(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), o);
        ADD_FAILURE() << "a stall_site of the wrong size was accepted";
    } catch (const SimError& e) {
        EXPECT_NE(std::string(e.what()).find("TimingOptions::stall_site must have one entry per instruction"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace weft::gpusim
