// tests/gpusim/arch/occupancy_test.cpp — the occupancy calculator: H200 figures checked against
// Nsight Compute and worked by hand, the per-block limits, and each architecture file's figures.
#include <gtest/gtest.h>

#include "gpusim/arch/arch.h"
#include "gpusim/arch/occupancy.h"

namespace weft::gpusim {
namespace {

// Figures checked against Nsight Compute's launch__occupancy_limit_* on the H200
// (bench/results/gpusim-h200/ncu_kernels.csv) and the CUDA occupancy calculator's rules.
TEST(Occupancy, H200Limits) {
    const ArchSpec h = builtin_arch("h200");
    Occupancy o = compute_occupancy(h, 256, 18, 0);
    EXPECT_EQ(o.limit_warps, 8);
    EXPECT_EQ(o.limit_registers, 10);
    EXPECT_EQ(o.limit_blocks, 32);
    EXPECT_EQ(o.blocks_per_sm, 8);
    EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
    o = compute_occupancy(h, 256, 28, 4096);
    EXPECT_EQ(o.limit_registers, 8);
    EXPECT_EQ(o.limit_shared, 45);  // 233472 / (4096 + 1024)
    o = compute_occupancy(h, 128, 64, 0);
    EXPECT_EQ(o.limit_registers, 8);  // 64*32 = 2048 regs/warp, 8 warps per sub-partition, 32 warps / 4
    EXPECT_EQ(o.limiter, OccupancyLimit::Registers);
    EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
    o = compute_occupancy(h, 1024, 16, 100 * 1024);
    EXPECT_EQ(o.limit_shared, 2);
    EXPECT_EQ(o.blocks_per_sm, 2);
    EXPECT_EQ(o.shared_carveout_bytes, 228 * 1024);
    o = compute_occupancy(h, 32, 16, 0);
    EXPECT_EQ(o.blocks_per_sm, 32);
    EXPECT_EQ(o.limiter, OccupancyLimit::Blocks);
    EXPECT_THROW(compute_occupancy(h, 2048, 16, 0), OccupancyError);
    EXPECT_THROW(compute_occupancy(h, 256, 300, 0), OccupancyError);
    EXPECT_THROW(compute_occupancy(h, 256, 16, 300000), OccupancyError);
}

// The audit's figures (from its former calculator, compiler/audit/occupancy): the same on h200.
TEST(Occupancy, AuditFiguresOnH200) {
    const ArchSpec h = builtin_arch("h200");
    // 256 threads, 32 regs: 8 warps x 1024 regs = 8192 per block -> 8 blocks; warps: 64/8 = 8.
    Occupancy o = occupancy(h, 256, 32, 0);
    EXPECT_EQ(o.blocks_per_sm, 8);
    EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
    // 128 regs: 4096 per warp, 8 warps -> 32768 per block -> 2 blocks -> 16 warps = 25%.
    o = occupancy(h, 256, 128, 0);
    EXPECT_EQ(o.blocks_per_sm, 2);
    EXPECT_EQ(o.limiter, OccupancyLimit::Registers);
    EXPECT_DOUBLE_EQ(o.theoretical, 0.25);
    // 33 regs round up to 1280 per warp: 12 warps per sub-partition, 48 / 8 = 6 blocks = 75%.
    o = occupancy(h, 256, 33, 0);
    EXPECT_EQ(o.blocks_per_sm, 6);
    // 48 KiB shared + 1 KiB reserved: 233472 / 50176 = 4 blocks.
    o = occupancy(h, 128, 16, 48 * 1024);
    EXPECT_EQ(o.blocks_per_sm, 4);
    EXPECT_EQ(o.limiter, OccupancyLimit::SharedMemory);
    // 32 threads: 32 blocks of one warp = 50%, limited by the block count.
    o = occupancy(h, 32, 16, 0);
    EXPECT_EQ(o.blocks_per_sm, 32);
    EXPECT_EQ(o.limiter, OccupancyLimit::Blocks);
    EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
    EXPECT_EQ(recommended_block_size(h, 32, 0), 256);
}

// occupancy() never throws: a block over a per-block limit gets 0 blocks from that limit.
TEST(Occupancy, OverPerBlockLimitsIsZeroBlocks) {
    const ArchSpec h = builtin_arch("h200");
    EXPECT_EQ(occupancy(h, 256, 300, 0).blocks_per_sm, 0);
    EXPECT_EQ(occupancy(h, 256, 300, 0).limiter, OccupancyLimit::Registers);
    EXPECT_EQ(occupancy(h, 256, 16, 300000).blocks_per_sm, 0);
    EXPECT_EQ(occupancy(h, 256, 16, 300000).limiter, OccupancyLimit::SharedMemory);
    EXPECT_EQ(occupancy(h, 2048, 16, 0).blocks_per_sm, 0);
    EXPECT_EQ(occupancy(h, 2048, 16, 0).limiter, OccupancyLimit::Warps);
}

// Each file's own figures: the A100 holds 164 KiB of shared memory per SM where the H200 holds
// 228 KiB, and 2048 threads; the RTX 4090 holds 1536 threads (48 warps).
TEST(Occupancy, EachArchitectureUsesItsOwnFigures) {
    const ArchSpec a100 = builtin_arch("a100"), h100 = builtin_arch("h100"), rtx = builtin_arch("rtx4090");
    const Occupancy a = occupancy(a100, 128, 16, 48 * 1024);
    EXPECT_EQ(a.limit_shared, a100.shared_per_sm_max / (48 * 1024 + a100.shared_reserved_per_block));
    EXPECT_EQ(occupancy(h100, 128, 16, 48 * 1024).limit_shared,
              h100.shared_per_sm_max / (48 * 1024 + h100.shared_reserved_per_block));
    EXPECT_EQ(occupancy(rtx, 256, 16, 0).limit_warps, rtx.max_warps_per_sm / 8);
    EXPECT_NE(a100.shared_per_sm_max, builtin_arch("h200").shared_per_sm_max);
}

}  // namespace
}  // namespace weft::gpusim
