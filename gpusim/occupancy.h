// gpusim/occupancy.h — how many blocks of a kernel fit on one SM, the way CUDA's occupancy
// calculator (cuda_occupancy.h, cudaOccupancyMaxActiveBlocksPerMultiprocessor) computes it.
//
// Four limits, the smallest wins:
//   warps      floor(max_warps / warps_per_block)
//   blocks     max_blocks
//   registers  registers are allocated per warp in units of register_alloc_unit and each SM
//              sub-partition (one per scheduler) holds registers_per_sm / schedulers; a block's
//              warps may straddle sub-partitions, so the limit is
//              floor(schedulers * floor(regs_per_subpartition / regs_per_warp) / warps_per_block)
//   shared     floor(shared_per_sm_max / round_up(block_shared + reserved_per_block, alloc_unit))
// Register counts come from ptxas's resource report (ptxas_resources below runs
// `ptxas -v` on the same PTX) or from the caller.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "gpusim/arch.h"

namespace weft::gpusim {

enum class OccupancyLimit : uint8_t { Warps, Blocks, Registers, SharedMemory };
const char* occupancy_limit_name(OccupancyLimit l);

struct Occupancy {
  int threads_per_block = 0;
  int warps_per_block = 0;
  int registers_per_thread = 0;
  uint32_t shared_per_block = 0;     // static + dynamic bytes, before the reservation
  int limit_warps = 0;               // blocks per SM allowed by each resource
  int limit_blocks = 0;
  int limit_registers = 0;
  int limit_shared = 0;
  int blocks_per_sm = 0;             // min of the four (0: the block cannot run at all)
  OccupancyLimit limiter = OccupancyLimit::Warps;
  int active_warps_per_sm = 0;       // blocks_per_sm * warps_per_block
  double theoretical = 0;            // active_warps / max_warps, in [0, 1]
  int shared_carveout_bytes = 0;     // smallest supported carveout holding the resident blocks
  int l1_bytes = 0;                  // what is left of the L1/shared SRAM for the L1 cache
};

class OccupancyError : public std::runtime_error {
 public:
  explicit OccupancyError(const std::string& what) : std::runtime_error(what) {}
};

// Throws OccupancyError when the block exceeds a per-block limit (threads, registers per
// thread, shared memory per block).
Occupancy compute_occupancy(const ArchSpec& arch, int threads_per_block, int registers_per_thread, uint32_t shared_per_block);

// ptxas's resource report of one kernel.
struct KernelResources {
  int registers = 0;
  uint32_t shared_bytes = 0;   // static shared memory
  uint32_t stack_bytes = 0;    // stack frame
  uint32_t spill_stores = 0, spill_loads = 0;
};

// Runs `ptxas -v -arch=sm_XY` (XY from arch) on `ptx` and parses the report per kernel.
// Throws OccupancyError with ptxas's output when it fails.
std::map<std::string, KernelResources> ptxas_resources(const std::string& ptx, const ArchSpec& arch,
                                                       const std::string& ptxas = "/usr/local/cuda/bin/ptxas");

}  // namespace weft::gpusim
