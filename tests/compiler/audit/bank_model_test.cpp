// compiler/audit/bank_model against wavefront counts worked out by hand from NVIDIA's rule
// (32 banks of 4 bytes; 8-byte accesses per half-warp, 16-byte per quarter-warp; same word
// broadcast). For a stride of s elements:
//   4-byte:  lane l uses word s*l; gcd(s, 32) lanes share each bank     -> gcd(s, 32) wavefronts
//   8-byte:  per half-warp, gcd(s, 16) lanes share each bank pair       -> 2 * gcd(s, 16)
//   16-byte: per quarter-warp, gcd(s, 8) lanes share each bank quad     -> 4 * gcd(s, 8)
// The tables below are those numbers written out, not computed with gcd.
#include <gtest/gtest.h>

#include "compiler/audit/bank_model.h"

namespace weft::compiler::audit {
namespace {

LaneAddresses strided(uint64_t stride_bytes, int active = 32) {
    LaneAddresses a{};
    for (int l = 0; l < active; ++l) a[static_cast<size_t>(l)] = stride_bytes * static_cast<uint64_t>(l);
    return a;
}

// index s-1 for stride s = 1..33
const int k4[33] = {1, 2, 1, 4, 1, 2, 1, 8, 1, 2, 1, 4, 1, 2, 1, 16, 1, 2, 1, 4, 1, 2, 1, 8, 1, 2, 1, 4, 1, 2, 1, 32, 1};
const int k8[33] = {2, 4, 2, 8, 2, 4, 2, 16, 2, 4, 2, 8, 2, 4, 2, 32, 2, 4, 2, 8, 2, 4, 2, 16, 2, 4, 2, 8, 2, 4, 2, 32, 2};
const int k16[33] = {4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4};

TEST(BankModel, FourByteStrides) {
    for (int s = 1; s <= 33; ++s) {
        BankCost c = bank_wavefronts(strided(4u * s), 4);
        EXPECT_EQ(c.wavefronts, k4[s - 1]) << "stride " << s;
        EXPECT_EQ(c.ideal, 1);
    }
}

TEST(BankModel, EightByteStrides) {
    for (int s = 1; s <= 33; ++s) {
        BankCost c = bank_wavefronts(strided(8u * s), 8);
        EXPECT_EQ(c.wavefronts, k8[s - 1]) << "stride " << s;
        EXPECT_EQ(c.ideal, 2);
    }
}

TEST(BankModel, SixteenByteStrides) {
    for (int s = 1; s <= 33; ++s) {
        BankCost c = bank_wavefronts(strided(16u * s), 16);
        EXPECT_EQ(c.wavefronts, k16[s - 1]) << "stride " << s;
        EXPECT_EQ(c.ideal, 4);
    }
}

TEST(BankModel, BroadcastAndMerging) {
    for (int w : {4, 8, 16}) {
        BankCost c = bank_wavefronts(strided(0), w);  // every lane the same address
        EXPECT_EQ(c.wavefronts, w / 4 < 1 ? 1 : w / 4) << w;
        EXPECT_EQ(c.excess(), 0) << w;
    }
    // Lanes 2l and 2l+1 read the same word: 16 distinct words in 16 banks.
    LaneAddresses pairs{};
    for (int l = 0; l < 32; ++l) pairs[static_cast<size_t>(l)] = 4u * static_cast<uint64_t>(l / 2);
    EXPECT_EQ(bank_wavefronts(pairs, 4).wavefronts, 1);
    // Bytes of one word (1- and 2-byte accesses) merge too.
    EXPECT_EQ(bank_wavefronts(strided(1), 1).wavefronts, 1);
    EXPECT_EQ(bank_wavefronts(strided(2), 2).wavefronts, 1);
}

TEST(BankModel, InactiveLanesAndPhases) {
    LaneAddresses a{};
    a[0] = 0;
    a[1] = 128;  // same bank, another word
    EXPECT_EQ(bank_wavefronts(a, 4).wavefronts, 2);
    EXPECT_EQ(bank_wavefronts(a, 4).ideal, 1);
    // 8-byte, only the first half-warp active: one phase.
    BankCost half = bank_wavefronts(strided(8, 16), 8);
    EXPECT_EQ(half.wavefronts, 1);
    EXPECT_EQ(half.ideal, 1);
    // 16-byte: lane 0 and lane 8 collide but are in different phases: no conflict.
    LaneAddresses q{};
    q[0] = 0;
    q[8] = 512;
    EXPECT_EQ(bank_wavefronts(q, 16).wavefronts, 2);
    EXPECT_EQ(bank_wavefronts(q, 16).excess(), 0);
    // ... and lanes 0 and 1 in the same phase do.
    LaneAddresses r{};
    r[0] = 0;
    r[1] = 512;
    EXPECT_EQ(bank_wavefronts(r, 16).wavefronts, 2);
    EXPECT_EQ(bank_wavefronts(r, 16).excess(), 1);
    EXPECT_EQ(bank_wavefronts(LaneAddresses{}, 4).wavefronts, 0);
}

}  // namespace
}  // namespace weft::compiler::audit

// gpusim keeps its own copy of the rule (gpusim/bank_model.h, header-only; compiler/ may not
// depend on gpusim, so the audit cannot include it). Keep the two honest: the documented rule
// must give identical costs, and the H200-measured default the same excess on strided patterns.
#if __has_include("gpusim/bank_model.h")
#include "gpusim/bank_model.h"

namespace weft::compiler::audit {
namespace {

TEST(BankModel, AgreesWithGpusim) {
    for (uint32_t width : {4u, 8u, 16u})
        for (uint32_t s = 0; s <= 33; ++s) {
            uint32_t addr[32];
            LaneAddresses ours{};
            for (uint32_t l = 0; l < 32; ++l) addr[l] = width * s * l, ours[l] = addr[l];
            BankCost a = bank_wavefronts(ours, static_cast<int>(width));
            auto doc = gpusim::shared_bank_cost(addr, 0xffffffffu, width, gpusim::BankRule::kNsightDoc);
            EXPECT_EQ(a.wavefronts, static_cast<int>(doc.wavefronts)) << "width " << width << " stride " << s;
            auto measured = gpusim::shared_bank_cost(addr, 0xffffffffu, width);
            if (s > 0) EXPECT_EQ(a.excess(), static_cast<int>(measured.excess())) << "width " << width << " stride " << s;
        }
}

}  // namespace
}  // namespace weft::compiler::audit
#endif
