// tests/gpusim/exec/exec_warp_test.cpp — shfl.sync with segments and the validity predicate,
// vote.sync.uni, redux.sync and activemask inside divergent code, on hand-written PTX.
#include <gtest/gtest.h>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {

std::vector<uint32_t> run(const std::string& body, uint32_t threads = 32) {
    const std::string ptx =
        std::string(testing::kHeader) +
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd1, %rd1, %rd2;\n" +
        body + "\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
    const Module m = parse_ptx(ptx, "w.ptx");
    std::vector<uint32_t> out(threads, 0xdead);
    ParamPacker p;
    p.add(out.data());
    launch(m, "k", {1, 1, 1}, {threads, 1, 1}, p.bytes());
    return out;
}

TEST(WarpOps, ShuffleUpWithValidityPredicate) {
    const auto out = run("shfl.sync.up.b32 %r1|%p1, %r0, 3, 0, -1;\nselp.u32 %r2, 1000, 0, %p1;\nadd.u32 %r1, %r1, %r2;");
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], l >= 3 ? (l - 3) + 1000 : l) << l;
}

TEST(WarpOps, ShuffleIndexWithinSegments) {
    // width 8: c = ((32 - 8) << 8) | 31; each segment reads its own lane 2.
    const auto out = run("shfl.sync.idx.b32 %r1, %r0, 2, 6175, -1;");
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], (l & ~7u) + 2) << l;
}

TEST(WarpOps, VoteUniAndBallotInDivergentCode) {
    const auto out = run(
        "setp.lt.u32 %p1, %r0, 8;\nmov.u32 %r1, 0;\n@!%p1 bra SKIP;\n"
        "and.b32 %r3, %r0, 1;\nsetp.eq.u32 %p2, %r3, 0;\nvote.sync.ballot.b32 %r1, %p2, 255;\n"
        "setp.lt.u32 %p3, %r0, 100;\nvote.sync.uni.pred %p3, %p3, 255;\nselp.u32 %r4, 0x10000, 0, %p3;\nadd.u32 %r1, %r1, %r4;\n"
        "activemask.b32 %r5;\nshl.b32 %r5, %r5, 20;\nadd.u32 %r1, %r1, %r5;\nSKIP:");
    for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(out[l], l < 8 ? 0x55u + 0x10000u + (0xffu << 20) : 0u) << l;
}

TEST(WarpOps, Redux) {
    const auto add = run("redux.sync.add.u32 %r1, %r0, -1;");
    const auto mx = run("redux.sync.max.s32 %r1, %r0, -1;");
    for (uint32_t l = 0; l < 32; ++l) {
        EXPECT_EQ(add[l], 31u * 32 / 2);
        EXPECT_EQ(mx[l], 31u);
    }
}

TEST(WarpOps, PartialWarp) {
    const auto out = run("vote.sync.ballot.b32 %r1, 1, -1;", 20);
    for (uint32_t l = 0; l < 20; ++l) EXPECT_EQ(out[l], 0xfffffu);
}

}  // namespace
}  // namespace weft::gpusim
