// Occupancy arithmetic against the H200's limits, worked by hand (65536 registers, 2048 threads,
// 32 blocks, 228 KiB shared memory with 1 KiB reserved per block, 256-register warp granules).
#include <gtest/gtest.h>

#include "compiler/audit/occupancy.h"

namespace weft::compiler::audit {
namespace {

TEST(Occupancy, H200Limits) {
    ArchParams h = ArchParams::h200();
    // 256 threads, 32 regs: 8 warps x 1024 regs = 8192 per block -> 8 blocks; warps: 64/8 = 8.
    Occupancy o = occupancy(h, 256, 32, 0);
    EXPECT_EQ(o.blocks_per_sm, 8);
    EXPECT_DOUBLE_EQ(o.occupancy, 1.0);
    // 128 regs: 4096 per warp, 8 warps -> 32768 per block -> 2 blocks -> 16 warps = 25%.
    o = occupancy(h, 256, 128, 0);
    EXPECT_EQ(o.blocks_per_sm, 2);
    EXPECT_EQ(o.limiter, "registers");
    EXPECT_DOUBLE_EQ(o.occupancy, 0.25);
    // 33 regs round up to 1280 per warp: 65536 / (1280 * 8) = 6 blocks -> 48 warps = 75%.
    o = occupancy(h, 256, 33, 0);
    EXPECT_EQ(o.blocks_per_sm, 6);
    // 48 KiB shared + 1 KiB reserved: 233472 / 50176 = 4 blocks.
    o = occupancy(h, 128, 16, 48 * 1024);
    EXPECT_EQ(o.blocks_per_sm, 4);
    EXPECT_EQ(o.limiter, "shared memory");
    // 32 threads: 32 blocks of one warp = 50%, limited by the block count.
    o = occupancy(h, 32, 16, 0);
    EXPECT_EQ(o.blocks_per_sm, 32);
    EXPECT_EQ(o.limiter, "blocks");
    EXPECT_DOUBLE_EQ(o.occupancy, 0.5);
    EXPECT_EQ(recommended_block_size(h, 32, 0), 256);
    EXPECT_EQ(occupancy(h, 256, 300, 0).blocks_per_sm, 0);
}

}  // namespace
}  // namespace weft::compiler::audit
