// tests/gpusim/sass/sass_count_test.cpp — the SASS estimate per SASS basic block (sass_count.cpp):
// slow paths reached by CALL, and the H200's own kernels per warp against its measured counts.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gpusim/arch/arch.h"
#include "gpusim/exec/launch.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_map.h"
#include "gpusim/timing/timing.h"
#include "ptx_harness.h"

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

// A column sum as NVRTC writes Weft's: a grid-stride loop around a loop whose body the PTX already
// holds 4 copies of, which ptxas unrolls again into 16-, 8- and 4-copy pieces. The outer loop's
// body contains the inner one's lines, and it must not count the inner loop's pieces by its own
// trips (it did: the 16- and 8-copy pieces got 0, held-out `col_sums` -99% instructions). Every
// PTX ld.global becomes one SASS LDG (opcode 0x981), so per launch the LDGs the estimate counts
// must equal the ld.global the PTX ran, whatever the pieces are.
TEST(SassCount, UnrolledLoopInsideAGridStrideLoopKeepsItsOwnCounts) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry cols(.param .u64 a, .param .u64 out, .param .u32 rows, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .f32 %f<16>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [rows];
  ld.param.u32 %r2, [n];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r6, %r4, %r5, %r3;
  mov.u32 %r7, %nctaid.x;
  mul.lo.s32 %r8, %r7, %r5;
  mul.wide.u32 %rd3, %r2, 4;
  and.b32 %r9, %r1, -4;
  setp.ge.u32 %p1, %r6, %r2;
  @%p1 bra DONE;
OUTER:
  mul.wide.u32 %rd4, %r6, 4;
  add.s64 %rd5, %rd1, %rd4;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r10, %r9;
INNER:
  ld.global.f32 %f2, [%rd5];
  add.rn.f32 %f3, %f1, %f2;
  add.s64 %rd6, %rd5, %rd3;
  ld.global.f32 %f4, [%rd6];
  add.rn.f32 %f5, %f3, %f4;
  add.s64 %rd7, %rd6, %rd3;
  ld.global.f32 %f6, [%rd7];
  add.rn.f32 %f7, %f5, %f6;
  add.s64 %rd8, %rd7, %rd3;
  add.s64 %rd5, %rd8, %rd3;
  ld.global.f32 %f8, [%rd8];
  add.rn.f32 %f1, %f7, %f8;
  add.s32 %r10, %r10, -4;
  setp.ne.s32 %p2, %r10, 0;
  @%p2 bra INNER;
  add.s64 %rd9, %rd2, %rd4;
  st.global.f32 [%rd9], %f1;
  add.s32 %r6, %r6, %r8;
  setp.lt.u32 %p3, %r6, %r2;
  @%p3 bra OUTER;
DONE:
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "cols.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("cols");
    const SassCfg g = build_sass_cfg(k.code);
    std::set<int32_t> load_blocks;
    for (size_t s = 0; s < k.code.size(); ++s)
        if ((k.code[s].lo & 0xfff) == 0x981) load_blocks.insert(g.block_of[s]);
    ASSERT_GE(load_blocks.size(), 2u) << "ptxas did not unroll the inner loop into pieces";
    const uint32_t rows = 64, n = 128;  // 2 warps per pass of the outer loop, 2 passes each (grid of 1 block of 64)
    std::vector<float> a(size_t{rows} * n), out(n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 7);
    ParamPacker p;
    p.add(a.data()).add(out.data()).add(rows).add(n);
    const LaunchResult r = launch(m, "cols", {1, 1, 1}, {64, 1, 1}, p.bytes());
    float want = 0;
    for (uint32_t row = 0; row < rows; ++row) want += a[size_t{row} * n + 5];
    EXPECT_EQ(out[5], want);
    uint64_t ptx_loads = 0;
    for (const InstructionCounters& ic : r.per_instruction)
        if (m.instructions()[static_cast<size_t>(ic.index)].op == Op::Ld &&
            m.instructions()[static_cast<size_t>(ic.index)].space == Space::Global)
            ptx_loads += ic.counts.warp_instructions;
    ASSERT_EQ(ptx_loads, uint64_t{2} * 2 * rows);  // 2 warps x 2 outer passes x 64 loads
    const std::vector<double> per = estimate_sass_counts(map, m, "cols", r);
    double sass_loads = 0;
    std::map<int32_t, double> per_block;
    for (size_t s = 0; s < k.code.size(); ++s)
        if ((k.code[s].lo & 0xfff) == 0x981) {
            sass_loads += per[s];
            per_block[g.block_of[s]] = per[s];
        }
    EXPECT_EQ(sass_loads, static_cast<double>(ptx_loads));
    // The largest piece does the work: 64 rows are 16 passes of 4 copies, 4 rounds of the 16-copy piece.
    double most = 0;
    for (const auto& [b, c] : per_block) most = std::max(most, c);
    EXPECT_GT(most, 0);

    // Timing: ptxas issues the 4 loads of a pass together, with their address arithmetic, which the
    // PTX puts behind the add waiting on the first load. With the machine code's schedule
    // (load_hoist) the 4 loads overlap: a pass costs about one memory latency, not four.
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.registers_per_thread = 32;
    const SassTiming st = sass_timing(map, m, "cols");
    o.issue_weights = st.issue_weights;
    const uint64_t in_order = launch_timed(m, "cols", {1, 1, 1}, {64, 1, 1}, p.bytes(), o).cycles;
    o.load_hoist = st.load_hoist;
    const uint64_t hoisted = launch_timed(m, "cols", {1, 1, 1}, {64, 1, 1}, p.bytes(), o).cycles;
    EXPECT_LT(hoisted * 2, in_order) << hoisted << " vs " << in_order;
}

// float64 log as NVRTC writes it (Weft's wp.log on a float64): its special cases (x <= 0, infinite,
// NaN, denormal) are PTX branches around a few instructions, and ptxas if-converts them into the
// block that holds the branch's always-run compare (`add.s32 %r56` / `setp.lt.u32 %p6` below), with
// guards (`@P1 MOV`) on the special cases' instructions. Those ran 0 times in the PTX; the
// block ran once per warp. A guarded instruction must not vote for its block's count (it did:
// the special cases outvoted the compare, and the held-out `transcendental_f64` lost 15% of
// its warp instructions; the H200 ran every instruction of these blocks once per warp).
TEST(SassCount, GuardedInstructionsOfIfConvertedSpecialCasesDoNotSetTheirBlocksCount) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const std::string ptx = std::string(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry lg(.param .u64 in, .param .u64 out)
{
  .reg .pred %p<10>;
  .reg .f32 %f<4>;
  .reg .b32 %r<80>;
  .reg .f64 %fd<110>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f64 %fd1, [%rd4];
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p9, %r2, 0;
  @%p9 bra LOGX;
LOOP:
  mul.rn.f64 %fd1, %fd1, 0d3FF8000000000000;
  add.s32 %r2, %r2, -1;
  setp.ne.u32 %p9, %r2, 0;
  @%p9 bra LOOP;
LOGX:
)") + R"(  add.rn.f64  %fd101, %fd1, 0d3FF0000000000000;
  {
  .reg .b32 %temp; 
  mov.b64  {%temp, %r67}, %fd101;
  }
  {
  .reg .b32 %temp; 
  mov.b64  {%r68, %temp}, %fd101;
  }
  setp.gt.s32  %p5, %r67, 1048575;
  mov.u32  %r69, -1023;
  @%p5 bra  L7;
  mul.rn.f64  %fd101, %fd101, 0d4350000000000000;
  {
  .reg .b32 %temp; 
  mov.b64  {%temp, %r67}, %fd101;
  }
  {
  .reg .b32 %temp; 
  mov.b64  {%r68, %temp}, %fd101;
  }
  mov.u32  %r69, -1077;
L7:
  add.s32  %r56, %r67, -1;
  setp.lt.u32  %p6, %r56, 2146435071;
  @%p6 bra  L9;
  bra.uni  L8;
L9:
  shr.u32  %r58, %r67, 20;
  add.s32  %r70, %r69, %r58;
  and.b32   %r59, %r67, -2146435073;
  or.b32   %r60, %r59, 1072693248;
  mov.b64  %fd102, {%r68, %r60};
  setp.lt.s32  %p8, %r60, 1073127583;
  @%p8 bra  L11;
  {
  .reg .b32 %temp; 
  mov.b64  {%r61, %temp}, %fd102;
  }
  {
  .reg .b32 %temp; 
  mov.b64  {%temp, %r62}, %fd102;
  }
  add.s32  %r63, %r62, -1048576;
  mov.b64  %fd102, {%r61, %r63};
  add.s32  %r70, %r70, 1;
L11:
  add.rn.f64  %fd53, %fd102, 0d3FF0000000000000;
  mov.f64  %fd54, 0d3FF0000000000000;
  rcp.approx.ftz.f64  %fd55, %fd53;
  neg.f64  %fd56, %fd53;
  fma.rn.f64  %fd57, %fd56, %fd55, %fd54;
  fma.rn.f64  %fd58, %fd57, %fd57, %fd57;
  fma.rn.f64  %fd59, %fd58, %fd55, %fd55;
  add.rn.f64  %fd60, %fd102, 0dBFF0000000000000;
  mul.rn.f64  %fd61, %fd60, %fd59;
  add.rn.f64  %fd62, %fd61, %fd61;
  mul.rn.f64  %fd63, %fd62, %fd62;
  mov.f64  %fd64, 0d3ED0EE258B7A8B04;
  mov.f64  %fd65, 0d3EB1380B3AE80F1E;
  fma.rn.f64  %fd66, %fd65, %fd63, %fd64;
  mov.f64  %fd67, 0d3EF3B2669F02676F;
  fma.rn.f64  %fd68, %fd66, %fd63, %fd67;
  mov.f64  %fd69, 0d3F1745CBA9AB0956;
  fma.rn.f64  %fd70, %fd68, %fd63, %fd69;
  mov.f64  %fd71, 0d3F3C71C72D1B5154;
  fma.rn.f64  %fd72, %fd70, %fd63, %fd71;
  mov.f64  %fd73, 0d3F624924923BE72D;
  fma.rn.f64  %fd74, %fd72, %fd63, %fd73;
  mov.f64  %fd75, 0d3F8999999999A3C4;
  fma.rn.f64  %fd76, %fd74, %fd63, %fd75;
  mov.f64  %fd77, 0d3FB5555555555554;
  fma.rn.f64  %fd78, %fd76, %fd63, %fd77;
  sub.rn.f64  %fd79, %fd60, %fd62;
  add.rn.f64  %fd80, %fd79, %fd79;
  neg.f64  %fd81, %fd62;
  fma.rn.f64  %fd82, %fd81, %fd60, %fd80;
  mul.rn.f64  %fd83, %fd59, %fd82;
  mul.rn.f64  %fd84, %fd63, %fd78;
  fma.rn.f64  %fd85, %fd84, %fd62, %fd83;
  xor.b32   %r64, %r70, -2147483648;
  mov.u32  %r65, -2147483648;
  mov.u32  %r66, 1127219200;
  mov.b64  %fd86, {%r64, %r66};
  mov.b64  %fd87, {%r65, %r66};
  sub.rn.f64  %fd88, %fd86, %fd87;
  mov.f64  %fd89, 0d3FE62E42FEFA39EF;
  fma.rn.f64  %fd90, %fd88, %fd89, %fd62;
  neg.f64  %fd91, %fd88;
  fma.rn.f64  %fd92, %fd91, %fd89, %fd90;
  sub.rn.f64  %fd93, %fd92, %fd62;
  sub.rn.f64  %fd94, %fd85, %fd93;
  mov.f64  %fd95, 0d3C7ABC9E3B39803F;
  fma.rn.f64  %fd96, %fd88, %fd95, %fd94;
  add.rn.f64  %fd103, %fd90, %fd96;
  bra.uni  L12;
L8:
  mov.f64  %fd51, 0d7FF0000000000000;
  fma.rn.f64  %fd52, %fd101, %fd51, %fd51;
  {
  .reg .b32 %temp; 
  mov.b64  {%temp, %r57}, %fd101;
  }
  mov.b32  %f3, %r57;
  setp.eq.f32  %p7, %f3, 0f00000000;
  selp.f64  %fd103, 0dFFF0000000000000, %fd52, %p7;
)" + std::string(R"(L12:
  add.s64 %rd5, %rd2, %rd3;
  st.global.f64 [%rd5], %fd103;
  ret;
}
)");
    const Module m = parse_ptx(ptx, "lg.ptx");
    const SassMap map = map_sass(ptx, builtin_arch("h200"));
    const KernelSass& k = map.kernels.at("lg");
    std::vector<double> in(64), out(64);
    for (size_t i = 0; i < in.size(); ++i) in[i] = 0.25 + 0.5 * static_cast<double>(i);  // positive, normal: no special case
    ParamPacker p;
    p.add(in.data()).add(out.data());
    const LaunchResult r = launch(m, "lg", {1, 1, 1}, {64, 1, 1}, p.bytes());
    for (size_t i = 0; i < in.size(); ++i) {
        const double x = in[i] * std::pow(1.5, static_cast<double>(i % 4));
        ASSERT_NEAR(out[i], std::log1p(x), 1e-15 * std::abs(std::log1p(x))) << i;
    }
    // The always-run compare's line: its SASS sits in a block with guarded instructions.
    int32_t line = -1;
    for (size_t i = 0; i < m.instructions().size(); ++i)
        if (m.instruction_text(static_cast<int32_t>(i)).find("setp.lt.u32") != std::string::npos)
            line = m.instructions()[i].ptx_line;
    ASSERT_GT(line, 0);
    const SassCfg g = build_sass_cfg(k.code);
    const std::vector<double> per = estimate_sass_counts(map, m, "lg", r);
    int compares = 0, guarded_beside = 0;
    for (size_t s = 0; s < k.code.size(); ++s) {
        if (k.code[s].ptx_line != line) continue;
        ++compares;
        EXPECT_EQ(per[s], 2) << "SASS " << s << " of the always-run compare";
        const SassBlock& b = g.blocks[static_cast<size_t>(g.block_of[s])];
        for (int32_t t = b.begin; t < b.end; ++t) guarded_beside += sass_guarded(k.code[static_cast<size_t>(t)].lo) ? 1 : 0;
    }
    EXPECT_GT(compares, 0);
    EXPECT_GT(guarded_beside, 0) << "ptxas no longer if-converts the special cases here: the test checks nothing";
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
    const std::string ptx = testing::read_file(std::string(GPUSIM_PTX_DIR) + "/validation.ptx");
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
