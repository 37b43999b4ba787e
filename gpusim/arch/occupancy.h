// gpusim/arch/occupancy.h — how many blocks of a kernel fit on one SM, the way CUDA's occupancy
// calculator (cuda_occupancy.h, cudaOccupancyMaxActiveBlocksPerMultiprocessor) computes it. The
// one occupancy calculator of Weft: the timing model, the sim device's grid and `weft audit`'s
// resources check all ask it, with the figures of an architecture file.
//
// Four limits, the smallest wins (on a tie, the first of warps, blocks, registers, shared):
//   warps      floor(max_warps / warps_per_block)
//   blocks     max_blocks
//   registers  registers are allocated per warp in units of register_alloc_unit and each SM
//              sub-partition (one per scheduler) holds registers_per_sm / schedulers; a block's
//              warps may straddle sub-partitions, so the limit is
//              floor(schedulers * floor(regs_per_subpartition / regs_per_warp) / warps_per_block)
//   shared     floor(shared_per_sm_max / round_up(block_shared + reserved_per_block, alloc_unit))
// Register counts come from ptxas's resource report (ptxas.h runs `ptxas -v` on the same PTX)
// or from the caller.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "gpusim/arch/arch.h"

namespace weft::gpusim {

enum class OccupancyLimit : uint8_t { Warps, Blocks, Registers, SharedMemory };
const char* occupancy_limit_name(OccupancyLimit l);  // "warps", "blocks", "registers", "shared_memory"

struct Occupancy {
    int threads_per_block = 0;
    int warps_per_block = 0;
    int registers_per_thread = 0;
    uint32_t shared_per_block = 0;  // static + dynamic bytes, before the reservation
    int limit_warps = 0;            // blocks per SM allowed by each resource
    int limit_blocks = 0;
    int limit_registers = 0;
    int limit_shared = 0;
    int blocks_per_sm = 0;  // min of the four (0: the block cannot run at all)
    OccupancyLimit limiter = OccupancyLimit::Warps;
    int active_warps_per_sm = 0;    // blocks_per_sm * warps_per_block
    double theoretical = 0;         // active_warps / max_warps, in [0, 1]
    int shared_carveout_bytes = 0;  // smallest supported carveout holding the resident blocks
    int l1_bytes = 0;               // what is left of the L1/shared SRAM for the L1 cache
};

class OccupancyError : public std::runtime_error {
public:
    explicit OccupancyError(const std::string& what) : std::runtime_error(what) {}
};

// Never throws: a block over a per-block limit (threads, registers per thread, shared memory
// per block) gets 0 from that limit, so blocks_per_sm is 0. registers_per_thread <= 0: no
// register limit (the count is unknown).
Occupancy occupancy(const ArchSpec& arch, int threads_per_block, int registers_per_thread, uint32_t shared_per_block);

// The same, for a launch: throws OccupancyError naming the per-block limit the block exceeds.
Occupancy compute_occupancy(const ArchSpec& arch, int threads_per_block, int registers_per_thread, uint32_t shared_per_block);

// The block size (a multiple of 32 up to max_threads_per_block) with the highest occupancy;
// among sizes that tie, the largest one up to 256 threads (enough warps per block to hide the
// latency of the block's barriers, few enough to leave the scheduler a choice).
int recommended_block_size(const ArchSpec& arch, int registers_per_thread, uint32_t shared_per_block);

}  // namespace weft::gpusim
