// tests/gpusim/arch/bank_model_test.cpp — the shared-memory bank rule: strides, broadcasts, the
// two phase rules, inactive lanes.
#include <gtest/gtest.h>

#include "gpusim/arch/bank_model.h"

namespace weft::gpusim {
namespace {

uint32_t wavefronts(int bytes, int stride_elems, int group = 1, BankRule rule = BankRule::kH200Measured) {
    uint32_t addr[32];
    for (int l = 0; l < 32; ++l) addr[l] = static_cast<uint32_t>((l / group) * stride_elems * bytes);
    return shared_bank_cost(addr, 0xffffffffu, static_cast<uint32_t>(bytes), rule).wavefronts;
}

TEST(BankModel, StridesAndBroadcasts) {
    EXPECT_EQ(wavefronts(4, 1), 1u);
    EXPECT_EQ(wavefronts(4, 2), 2u);
    EXPECT_EQ(wavefronts(4, 32), 32u);
    EXPECT_EQ(wavefronts(4, 33), 1u);
    EXPECT_EQ(wavefronts(4, 1, 32), 1u);  // broadcast
    EXPECT_EQ(wavefronts(8, 1), 2u);
    EXPECT_EQ(wavefronts(8, 16), 32u);
    EXPECT_EQ(wavefronts(16, 1), 4u);
    EXPECT_EQ(wavefronts(16, 2), 8u);
    // Where the two phase rules differ (the H200 sweep: 1 and 2 wavefronts).
    EXPECT_EQ(wavefronts(8, 1, 2), 1u);
    EXPECT_EQ(wavefronts(8, 1, 2, BankRule::kNsightDoc), 2u);
    EXPECT_EQ(wavefronts(16, 1, 32), 2u);
    EXPECT_EQ(wavefronts(16, 1, 32, BankRule::kNsightDoc), 4u);
    // Inactive lanes cost nothing; excess = wavefronts - ideal.
    uint32_t addr[32] = {};
    for (int l = 0; l < 32; ++l) addr[l] = static_cast<uint32_t>(l * 128);
    const BankCost c = shared_bank_cost(addr, 0x0000000fu, 4);
    EXPECT_EQ(c.wavefronts, 4u);
    EXPECT_EQ(c.excess(), 3u);
    EXPECT_EQ(shared_bank_cost(addr, 0, 4).wavefronts, 0u);
}

}  // namespace
}  // namespace weft::gpusim
