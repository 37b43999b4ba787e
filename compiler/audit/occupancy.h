// Theoretical occupancy of a kernel on an SM, from its registers per thread, shared memory per
// block and block size, as the CUDA occupancy calculator computes it:
//
//   warps/block      = ceil(threads / 32)
//   by warps         = min(max blocks per SM, max warps per SM / warps per block)
//   by registers     = floor(regs per SM / (warps/block * roundup(regs/thread * 32, 256)))
//   by shared memory = floor(smem per SM / (roundup(smem/block + 1 KiB reserved, 128)))
//   occupancy        = min(...) * warps/block / max warps per SM
//
// ArchParams::h200() holds the figures of the lent H200 (docs: shared/reference/gpu-facts.md).
#pragma once

#include <string>

namespace weft::compiler::audit {

struct ArchParams {
    std::string name;              // "h200"
    std::string sm;                // "sm_90"
    int regs_per_sm = 65536;       // 32-bit registers
    int max_threads_per_sm = 2048;
    int max_blocks_per_sm = 32;
    int max_regs_per_thread = 255;
    int reg_alloc_unit = 256;      // registers, allocated per warp
    int smem_per_sm = 233472;      // bytes (228 KiB)
    int smem_reserved_per_block = 1024;
    int smem_alloc_unit = 128;
    int warp_size = 32;
    static ArchParams h200();
};
// "h200", "h100", "sm_90": the parameters; false for an unknown name.
bool arch_from_name(const std::string& name, ArchParams* out);

struct Occupancy {
    int blocks_per_sm = 0;
    int active_warps = 0;
    double occupancy = 0.0;        // active warps / max warps
    std::string limiter;           // "warps", "blocks", "registers", "shared memory"
    int by_warps = 0, by_blocks = 0, by_registers = 0, by_shared = 0;
};

Occupancy occupancy(const ArchParams& arch, int block_threads, int regs_per_thread, int smem_per_block);

// The block size (a multiple of 32 up to 1024) with the highest occupancy; among sizes that tie,
// the largest one up to 256 threads.
int recommended_block_size(const ArchParams& arch, int regs_per_thread, int smem_per_block);

}  // namespace weft::compiler::audit
