// tests/gpusim/sass/sass_count_test.cpp — the SASS estimate per SASS basic block (sass_count.cpp):
// slow paths reached by CALL, and the H200's own kernels per warp against its measured counts.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusim/arch/arch.h"
#include "gpusim/exec/launch.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_map.h"

namespace weft::gpusim {
namespace {

// A 64-bit remainder as nvcc writes it: the PTX itself tests whether both operands fit 32 bits
// and uses a 32-bit rem if so; ptxas makes the 64-bit one a CALL of a subroutine. With small
// operands the GPU runs neither the call, nor the block it returns to, nor the subroutine: every
// warp runs every other SASS instruction once (the blocks read off this ptxas's own code).
TEST(SassCount, SlowPathOfA64BitRemainderRunsOnlyWhenItsPtxRuns) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry r(.param .u64 out, .param .u32 d, .param .u32 s)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.s32 %rd3, [d];
  ld.param.u32 %r1, [s];
  mov.u32 %r2, %tid.x;
  mul.wide.s32 %rd2, %r1, %r2;
  or.b64 %rd4, %rd2, %rd3;
  and.b64 %rd5, %rd4, -4294967296;
  setp.eq.s64 %p1, %rd5, 0;
  @%p1 bra SMALL;
  rem.s64 %rd6, %rd2, %rd3;
  bra.uni DONE;
SMALL:
  cvt.u32.u64 %r3, %rd3;
  cvt.u32.u64 %r4, %rd2;
  rem.u32 %r5, %r4, %r3;
  cvt.u64.u32 %rd6, %r5;
DONE:
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd7, %r2, 8;
  add.s64 %rd8, %rd1, %rd7;
  st.global.u64 [%rd8], %rd6;
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "r.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("r");
    const SassCfg g = build_sass_cfg(k.code);
    // The slow path: the block that calls, the block it returns to (which goes on to the join),
    // and the subroutine.
    uint64_t slow = 0;
    bool has_call = false, after_call = false;
    for (const SassBlock& b : g.blocks) {
        const bool call = g.control[static_cast<size_t>(b.end - 1)].flow == SassFlow::Call;
        has_call = has_call || call;
        if (b.subroutine || call || after_call) slow += static_cast<uint64_t>(b.end - b.begin);
        after_call = call;
    }
    ASSERT_TRUE(has_call);
    auto run = [&](int32_t stride, int64_t* out) {
        ParamPacker p;
        p.add(out).add(int32_t{7}).add(stride);
        return launch(m, "r", {1, 1, 1}, {64, 1, 1}, p.bytes());
    };
    std::vector<int64_t> out(64);
    const LaunchResult small = run(3, out.data());
    EXPECT_EQ(out[13], 13 * 3 % 7);
    EXPECT_EQ(estimate_sass_instructions(map, m, "r", small), uint64_t{2} * (k.static_instructions - slow));
    // With a stride of 2^30 lanes 4 on have a product beyond 32 bits: both warps take the slow
    // path (the subroutine runs twice) and only warp 0 (lanes 0-3) the 32-bit one.
    const LaunchResult big = run(int32_t{1} << 30, out.data());
    const std::vector<double> per = estimate_sass_counts(map, m, "r", big);
    int32_t rem32_line = 0;
    for (const Instr& in : m.instructions())
        if (m.instruction_text(static_cast<int32_t>(&in - m.instructions().data())).rfind("rem.u32", 0) == 0)
            rem32_line = in.ptx_line;
    bool saw_rem32 = false;
    for (size_t i = 0; i < per.size(); ++i) {
        if (g.blocks[static_cast<size_t>(g.block_of[i])].subroutine) EXPECT_EQ(per[i], 2.0) << "instruction " << i;
        if (k.code[i].ptx_line == rem32_line) {
            saw_rem32 = true;
            EXPECT_EQ(per[i], 1.0) << "instruction " << i;
        }
    }
    EXPECT_TRUE(saw_rem32);
}

// When ptxas calls the 64-bit routine unconditionally (the PTX has no 32-bit test), the
// subroutine runs every time: every SASS instruction once per warp.
TEST(SassCount, UnconditionalCallRunsItsSubroutine) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry r(.param .u64 out, .param .u64 d)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [d];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd3, %r1;
  rem.s64 %rd4, %rd3, %rd2;
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u64 [%rd6], %rd4;
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "u.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("r");
    std::vector<int64_t> out(64);
    ParamPacker p;
    p.add(out.data()).add(int64_t{7});
    const LaunchResult res = launch(m, "r", {1, 1, 1}, {64, 1, 1}, p.bytes());
    EXPECT_EQ(out[13], 13 % 7);
    EXPECT_EQ(estimate_sass_instructions(map, m, "r", res), uint64_t{2} * k.static_instructions);
}

// A loop ptxas keeps whole around a float division: lanes go round (tid & 3) + 1 times, so every
// warp runs the loop 4 times (its busiest lane) and its lanes leave after 1, 2, 3 and 4 rounds,
// as 4 groups that each reach the BSYNC after the loop. The division's operands are normal
// (1.5 / a value >= 1), so ptxas's slow path for special operands (FCHK, then a CALL) never runs.
// Per warp: the backward branch 4 times, the BSYNC behind the loop 4 times, the CALL never, the
// first instruction and the EXIT once.
TEST(SassCount, KeptLoopLeavesInGroupsAndFloatSlowPathIsNotTaken) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .f32 a)
{
  .reg .pred %p<2>;
  .reg .f32 %f<4>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.f32 %f1, [a];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mov.u32 %r3, 0;
  mov.f32 %f2, 0f3F800000;
LOOP:
  div.rn.f32 %f3, %f1, %f2;
  add.rn.f32 %f2, %f2, %f3;
  add.s32 %r3, %r3, 1;
  setp.le.u32 %p1, %r3, %r2;
  @%p1 bra LOOP;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "k.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("k");
    const SassCfg g = build_sass_cfg(k.code);
    int64_t back = -1, call = -1, exit = -1;
    for (size_t s = 0; s < k.code.size(); ++s) {
        const SassControl& c = g.control[s];
        if (c.flow == SassFlow::Branch && c.conditional && c.target <= static_cast<int64_t>(s)) back = static_cast<int64_t>(s);
        if (c.flow == SassFlow::Call && call < 0) call = static_cast<int64_t>(s);
        if (c.flow == SassFlow::Exit && exit < 0) exit = static_cast<int64_t>(s);
    }
    ASSERT_GE(back, 0) << "ptxas unrolled or rotated the loop";
    ASSERT_GE(call, 0) << "no slow path";
    ASSERT_GE(exit, 0);
    ASSERT_LT(back + 1, static_cast<int64_t>(k.code.size()));
    ASSERT_EQ(g.control[static_cast<size_t>(back + 1)].flow, SassFlow::Bsync) << "no BSYNC behind the loop";
    std::vector<float> out(64);
    ParamPacker p;
    p.add(out.data()).add(1.5f);
    const LaunchResult r = launch(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes());
    const std::vector<double> per = estimate_sass_counts(map, m, "k", r);
    EXPECT_EQ(per[static_cast<size_t>(back)], 2 * 4);
    EXPECT_EQ(per[static_cast<size_t>(back + 1)], 2 * 4);
    EXPECT_EQ(per[static_cast<size_t>(call)], 0);
    EXPECT_EQ(per[0], 2);
    EXPECT_EQ(per[static_cast<size_t>(exit)], 2);
}

// The estimate on the H200's own kernels (gpusim/validation/kernels.cu, compiled by nvcc here as
// on the H200), one block of 256 threads (8 warps) with the parameters of cases.h; expected:
// the H200's smsp__inst_executed over the launch of cases.h (run 1,
// bench/results/gpusim-h200/ncu_kernels.csv) divided by that launch's warps, every warp of these
// kernels running the same SASS: divergent_loop 1,286,144 / 8,192 = 157 (lanes go round 2..9
// times: ptxas's 4-, 2- and 1-copy pieces and the BSYNCs of the lanes leaving them apart);
// fma_chain 1,343,488 / 4,096 = 328 (64 iterations: the 16-copy piece 4 times); strided_read
// 344,064 / 8,192 = 42 (the 64-bit rem's slow path never runs).
TEST(SassCount, ValidationKernelsMatchTheH200PerWarp) {
    if (!GPUSIM_HAVE_NVCC) GTEST_SKIP() << "nvcc not available: no generated PTX";
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    std::ifstream f(std::string(GPUSIM_PTX_DIR) + "/validation.ptx");
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string ptx = ss.str();
    const Module m = parse_ptx(ptx, "validation.ptx");
    const SassMap map = map_sass(ptx, builtin_arch("h200"));
    std::vector<float> in(1 << 16, 0.5f), out(1 << 16);
    auto per_warp = [&](const char* kernel, int32_t n, int32_t p) {
        ParamPacker pp;
        pp.add(in.data()).add(in.data()).add(out.data()).add(n).add(p).add(int32_t{0});
        const LaunchResult r = launch(m, kernel, {1, 1, 1}, {256, 1, 1}, pp.bytes());
        return estimate_sass_instructions(map, m, kernel, r) / 8;
    };
    EXPECT_EQ(per_warp("divergent_loop", 1 << 16, 0), 157u);
    EXPECT_EQ(per_warp("fma_chain", 1 << 16, 64), 328u);
    EXPECT_EQ(per_warp("strided_read", 1 << 16, 32), 42u);
}

}  // namespace
}  // namespace weft::gpusim
