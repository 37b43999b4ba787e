// tests/gpusim/sass_cfg_test.cpp — the SASS branch decoder and basic blocks (sass_cfg.h), and the
// per-block SASS estimate (sass_count.cpp). The instruction words are cuobjdump's, from the
// H200's build of gpusim/validation/kernels.cu
// (bench/results/gpusim-h200/2026-12-03-run3/sass.txt.gz); the expected targets are the ones the
// disassembler printed beside them.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "gpusim/arch.h"
#include "gpusim/launch.h"
#include "gpusim/loop_trips.h"
#include "gpusim/parse_ptx.h"
#include "gpusim/sass_cfg.h"
#include "gpusim/sass_map.h"

namespace weft::gpusim {
namespace {

SassControl at(uint64_t address, uint64_t lo, uint64_t hi) { return decode_sass_control(lo, hi, static_cast<int64_t>(address / 16)); }

TEST(SassCfg, DecodesBranchesAsTheDisassemblerPrintsThem) {
  // micro_dram_inflight /*0070*/ @!P0 BRA 0xde0
  SassControl c = at(0x70, 0x0000000c00588947ull, 0x002fea0003800000ull);
  EXPECT_EQ(c.flow, SassFlow::Branch);
  EXPECT_TRUE(c.conditional);
  EXPECT_EQ(c.target, 0xde0 / 16);
  // /*0b20*/ @P0 BRA 0x1a0 (backwards: the offset's sign is in the high word)
  c = at(0xb20, 0xfffffff4009c0947ull, 0x000fea000383ffffull);
  EXPECT_EQ(c.flow, SassFlow::Branch);
  EXPECT_TRUE(c.conditional);
  EXPECT_EQ(c.target, 0x1a0 / 16);
  // /*0240*/ BRA 0x380
  c = at(0x240, 0x00000000004c7947ull, 0x000fec0003800000ull);
  EXPECT_EQ(c.flow, SassFlow::Branch);
  EXPECT_FALSE(c.conditional);
  EXPECT_EQ(c.target, 0x380 / 16);
  // /*0220*/ CALL.REL.NOINC 0xe30 and /*0470*/ CALL.REL.NOINC 0xe30
  c = at(0x220, 0x0000000c00007944ull, 0x000fea0003c00000ull);
  EXPECT_EQ(c.flow, SassFlow::Call);
  EXPECT_EQ(c.target, 0xe30 / 16);
  EXPECT_EQ(at(0x470, 0x00000008006c7944ull, 0x000fea0003c00000ull).target, 0xe30 / 16);
  // /*01b0*/ BSSY B0, 0x390; micro_atomic_add /*01c0*/ BSSY B1, 0x290
  c = at(0x1b0, 0x000001d000007945ull, 0x000fe60003800000ull);
  EXPECT_EQ(c.flow, SassFlow::Bssy);
  EXPECT_EQ(c.target, 0x390 / 16);
  EXPECT_EQ(at(0x1c0, 0x000000c000017945ull, 0x000fe20003800000ull).target, 0x290 / 16);
  // EXIT, @P0 EXIT, @!P0 EXIT, BSYNC B0, RET.REL.NODEC R12
  EXPECT_EQ(at(0xe20, 0x000000000000794dull, 0x000fea0003800000ull).flow, SassFlow::Exit);
  EXPECT_FALSE(at(0xe20, 0x000000000000794dull, 0x000fea0003800000ull).conditional);
  EXPECT_TRUE(at(0xdf0, 0x000000000000094dull, 0x000fea0003800000ull).conditional);
  EXPECT_TRUE(at(0x30, 0x000000000000894dull, 0x000fea0003800000ull).conditional);
  EXPECT_EQ(at(0x380, 0x0000000000007941ull, 0x000fea0003800000ull).flow, SassFlow::Bsync);
  EXPECT_EQ(at(0x1230, 0xffffffec0c707950ull, 0x000fec0003c3ffffull).flow, SassFlow::Return);
  // Not control flow: LDC R1, c[0x0][0x28]; ISETP.GE.AND P0 (a predicate written, not a guard)
  EXPECT_EQ(at(0, 0x00000a00ff017b82ull, 0x000fe20000000800ull).flow, SassFlow::None);
  EXPECT_EQ(at(0x60, 0x000000010000780cull, 0x001fda0003f06270ull).flow, SassFlow::None);
}

// histogram_smem as the H200 ran it (padding left out). cuobjdump shows: 0x0f0 @P0 BRA 0x1e0
// (around the grid-stride loop), the loop 0x140-0x1d0 closed by @!P0 BRA 0x140, BSYNC at 0x1e0,
// EXIT at 0x240.
TEST(SassCfg, HistogramBlocksAndEdges) {
  const uint64_t words[][2] = {
      {0x00000a00ff017b82ull, 0x000fe20000000800ull}, {0x00000000000b7919ull, 0x000e2e0000002100ull},
      {0x00000000000579c3ull, 0x000e620000008800ull}, {0x0000000000087ab9ull, 0x000fe20000000800ull},
      {0x0000040000047882ull, 0x000fe20000000000ull}, {0x0000000000027919ull, 0x000ea20000002500ull},
      {0x0000820000067ab9ull, 0x000fe20000000a00ull}, {0x0000017000007945ull, 0x000fe20003800000ull},
      {0x0000000405047291ull, 0x002fc6000f8ec03full}, {0x00008a0000057ab9ull, 0x000fc60000000800ull},
      {0x000000040b007c11ull, 0x001fe2000f8e10ffull}, {0x0000000802027c24ull, 0x004fc8000f8e020bull},
      {0x000000ff00007388ull, 0x0001e20000000800ull}, {0x0000000000007b1dull, 0x000fe20000010000ull},
      {0x0000000502007c0cull, 0x000fda000bf06270ull}, {0x0000000000380947ull, 0x001fea0003800000ull},
      {0x00000300ff067b82ull, 0x000e220000000800ull}, {0x0000000200077202ull, 0x000fce0000000f00ull},
      {0x00008400ff047b82ull, 0x000e620000000a00ull}, {0x0000000806067c24ull, 0x001fce000f8e02ffull},
      {0x0000000407027825ull, 0x002fcc00078e0204ull}, {0x0000000602027981ull, 0x000ea2000c1e1900ull},
      {0x0000000706077210ull, 0x000fc80007ffe0ffull}, {0x0000000507007c0cull, 0x000fe2000bf06270ull},
      {0x4380000002087820ull, 0x004fcc0000400000ull}, {0x0000000800087305ull, 0x001e24000020f000ull},
      {0x0000000208097819ull, 0x001fc800000006ffull}, {0x000003fc09097812ull, 0x000fca00078ec0ffull},
      {0x0000000009ff7f8cull, 0x0001e2000d800004ull}, {0xfffffffc00d88947ull, 0x000fea000383ffffull},
      {0x0000000000007941ull, 0x000fea0003800000ull}, {0x0000000000007b1dull, 0x000ff00000010000ull},
      {0x00008800ff027b82ull, 0x000e620000000a00ull}, {0x0000000000057984ull, 0x000ea20000000800ull},
      {0x000000040b027825ull, 0x002fca00078e0002ull}, {0x000000050200798eull, 0x004fe2000c10e186ull},
      {0x000000000000794dull, 0x000fea0003800000ull},
  };
  std::vector<SassInstruction> code;
  for (const auto& w : words) code.push_back({w[0], w[1], -1});
  const SassCfg g = build_sass_cfg(code);
  ASSERT_EQ(g.blocks.size(), 5u);
  const int32_t begins[] = {0x000 / 16, 0x100 / 16, 0x140 / 16, 0x1e0 / 16, 0x1f0 / 16};
  for (size_t b = 0; b < 5; ++b) EXPECT_EQ(g.blocks[b].begin, begins[b]) << "block " << b;
  EXPECT_EQ(g.blocks[4].end, 37);
  EXPECT_EQ(g.blocks[0].succ, (std::vector<int32_t>{3, 1}));  // taken first
  EXPECT_EQ(g.blocks[1].succ, (std::vector<int32_t>{2}));
  EXPECT_EQ(g.blocks[2].succ, (std::vector<int32_t>{2, 3}));
  EXPECT_EQ(g.blocks[3].succ, (std::vector<int32_t>{4}));
  EXPECT_TRUE(g.blocks[4].succ.empty());
  EXPECT_TRUE(g.blocks[3].bsync);
  for (const SassBlock& b : g.blocks) EXPECT_FALSE(b.subroutine);
}

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
    if (m.instruction_text(static_cast<int32_t>(&in - m.instructions().data())).rfind("rem.u32", 0) == 0) rem32_line = in.ptx_line;
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

}  // namespace
}  // namespace weft::gpusim

namespace weft::gpusim {
namespace {

// Per-lane trip counts: two lanes going round 2 and 3 times make one pass {2, 3}; a pass in
// which both go round once, {1}.
TEST(LoopTrips, RecordsEachPassAsItsLanesDistinctTripCounts) {
  LoopTripLog log;
  std::vector<LoopPass> passes;
  log.backward_branch(passes, 9, 4, 0b11, 0b11);  // both go round
  log.backward_branch(passes, 9, 4, 0b11, 0b10);  // lane 0 leaves after 2
  log.backward_branch(passes, 9, 4, 0b10, 0b00);  // lane 1 leaves after 3
  log.backward_branch(passes, 9, 4, 0b11, 0b00);  // a new pass: both leave at once
  const std::vector<LoopTrips> loops = log.loops();
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].branch, 9);
  EXPECT_EQ(loops[0].header, 4);
  const std::map<std::vector<uint32_t>, uint64_t> expect = {{{1}, 1}, {{2, 3}, 1}};
  EXPECT_EQ(loops[0].passes, expect);
}

// A launch records them: lane l of a one-warp block goes round l % 4 + 1 times.
TEST(LoopTrips, LaunchRecordsLaneTripCounts) {
  const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mov.u32 %r3, 0;
LOOP:
  add.s32 %r3, %r3, 1;
  setp.le.u32 %p1, %r3, %r2;
  @%p1 bra LOOP;
  ret;
}
)";
  const Module m = parse_ptx(kPtx, "l.ptx");
  uint64_t unused = 0;
  ParamPacker p;
  p.add(&unused);
  const LaunchResult r = launch(m, "k", {2, 1, 1}, {32, 1, 1}, p.bytes());
  ASSERT_EQ(r.loops.size(), 1u);
  const std::map<std::vector<uint32_t>, uint64_t> expect = {{{1, 2, 3, 4}, 2}};
  EXPECT_EQ(r.loops[0].passes, expect);
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
