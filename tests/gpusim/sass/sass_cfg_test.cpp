// tests/gpusim/sass/sass_cfg_test.cpp — the SASS branch decoder and basic blocks (sass_cfg.h). The
// instruction words are cuobjdump's, from the H200's build of gpusim/validation/kernels.cu
// (bench/results/gpusim-h200/2026-12-03-run3/sass.txt.gz); the expected targets are the ones the
// disassembler printed beside them.
#include <gtest/gtest.h>

#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_map.h"

namespace weft::gpusim {
namespace {

SassControl at(uint64_t address, uint64_t lo, uint64_t hi) {
    return decode_sass_control(lo, hi, static_cast<int64_t>(address / 16));
}

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

// Constant-bank loads (sass_constant_load): the words cuobjdump printed as LDC and ULDC in the
// H200's build of kernels.cu (sass.txt.gz), and, as not, instructions beside them that read
// constants as operands (IMAD ... UR5), special registers (S2UR) or memory (LDG).
TEST(SassCfg, ConstantLoadsAsTheDisassemblerPrintsThem) {
    EXPECT_TRUE(sass_constant_load(0x00000a00ff017b82ull));   // LDC R1, c[0x0][0x28]
    EXPECT_TRUE(sass_constant_load(0x00008b00ff007b82ull));   // LDC R0, c[0x0][0x22c]
    EXPECT_TRUE(sass_constant_load(0x00000000ff0e7b82ull));   // LDC R14, c[0x0][RZ]
    EXPECT_TRUE(sass_constant_load(0x0000030000057ab9ull));   // ULDC UR5, c[0x0][0xc]
    EXPECT_TRUE(sass_constant_load(0x0000820000067ab9ull));   // ULDC.64 UR6, c[0x0][0x208]
    EXPECT_FALSE(sass_constant_load(0x000000ffff0b7224ull));  // IMAD.MOV.U32 R11, RZ, RZ, RZ
    EXPECT_FALSE(sass_constant_load(0x000000050e0e7c25ull));  // IMAD.WIDE.U32 R14, R14, UR5, RZ
    EXPECT_FALSE(sass_constant_load(0x00000000000879c3ull));  // S2UR UR8, SR_CTAID.X
    EXPECT_FALSE(sass_constant_load(0x000000060c0c7981ull));  // LDG.E R12, desc[UR6][R12.64]
    EXPECT_FALSE(sass_constant_load(0x0000000000007941ull));  // BSYNC B0
}

}  // namespace
}  // namespace weft::gpusim

namespace weft::gpusim {
namespace {

// ptxas's schedule bits against cuobjdump's disassembly of the H200 run 3 (sfu_mix and
// micro_dram_inflight in bench/results/gpusim-h200/2026-12-03-run3/sass.txt.gz): a MUFU.EX2 sets
// scoreboard barrier 0 and lets the next instruction issue 2 cycles later; the FMUL that reads
// its result waits on barrier 0 (mask 0b1) and holds the warp 4 cycles for the dependent FFMA
// behind it; an LDG sets barrier 0 when its address registers are read and 5 when its data arrive.
TEST(SassCfg, ScheduleBitsAreReadAsCuobjdumpShowsThem) {
    const SassSchedule ex2 = decode_sass_schedule(0x000e240000000800ull);  // MUFU.EX2 R7, R6
    EXPECT_EQ(ex2.stall, 2);
    EXPECT_EQ(ex2.write_barrier, 0);
    EXPECT_EQ(ex2.read_barrier, -1);
    EXPECT_EQ(ex2.wait_mask, 0u);
    const SassSchedule fmul = decode_sass_schedule(0x001fc80000400000ull);  // @!P1 FMUL R7, R7, R7
    EXPECT_EQ(fmul.stall, 4);
    EXPECT_EQ(fmul.write_barrier, -1);
    EXPECT_EQ(fmul.wait_mask, 1u);
    const SassSchedule ldg = decode_sass_schedule(0x00016c000c1e1900ull);  // LDG.E R5, desc[UR4][R4.64]
    EXPECT_EQ(ldg.stall, 6);
    EXPECT_EQ(ldg.write_barrier, 5);
    EXPECT_EQ(ldg.read_barrier, 0);
    EXPECT_EQ(ldg.wait_mask, 0u);
}

}  // namespace
}  // namespace weft::gpusim
