// gpusim/arch/occupancy.cpp — the occupancy calculator (occupancy.h).
#include "gpusim/arch/occupancy.h"

#include <algorithm>
#include <cmath>

namespace weft::gpusim {

const char* occupancy_limit_name(OccupancyLimit l) {
    switch (l) {
        case OccupancyLimit::Warps: return "warps";
        case OccupancyLimit::Blocks: return "blocks";
        case OccupancyLimit::Registers: return "registers";
        case OccupancyLimit::SharedMemory: return "shared_memory";
    }
    return "?";
}

namespace {
int round_up(int v, int unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

Occupancy occupancy(const ArchSpec& a, int threads, int regs, uint32_t shared) {
    Occupancy o;
    o.threads_per_block = threads;
    o.registers_per_thread = regs;
    o.shared_per_block = shared;
    const bool threads_fit = threads >= 1 && threads <= a.max_threads_per_block;
    o.warps_per_block = std::max(1, (threads + 31) / 32);
    o.limit_warps = threads_fit ? a.max_warps_per_sm / o.warps_per_block : 0;
    o.limit_blocks = a.max_blocks_per_sm;
    if (regs <= 0) {
        o.limit_registers = a.max_blocks_per_sm;
    } else if (regs > a.max_registers_per_thread) {
        o.limit_registers = 0;
    } else {
        const int per_warp = round_up(regs * 32, a.register_alloc_unit);
        const int per_sub = a.registers_per_sm / a.schedulers_per_sm;
        const int warps = (per_sub / per_warp) * a.schedulers_per_sm;
        o.limit_registers = per_warp * o.warps_per_block > a.max_registers_per_block ? 0 : warps / o.warps_per_block;
    }
    const int per_block_smem = round_up(static_cast<int>(shared) + a.shared_reserved_per_block, a.shared_alloc_unit);
    if (shared > static_cast<uint32_t>(a.shared_per_block_max))
        o.limit_shared = 0;
    else
        o.limit_shared =
            shared == 0 && a.shared_reserved_per_block == 0 ? a.max_blocks_per_sm : a.shared_per_sm_max / per_block_smem;
    o.blocks_per_sm = o.limit_warps;
    o.limiter = OccupancyLimit::Warps;
    auto consider = [&](int v, OccupancyLimit l) {
        if (v < o.blocks_per_sm) {
            o.blocks_per_sm = v;
            o.limiter = l;
        }
    };
    consider(o.limit_blocks, OccupancyLimit::Blocks);
    consider(o.limit_registers, OccupancyLimit::Registers);
    consider(o.limit_shared, OccupancyLimit::SharedMemory);
    o.active_warps_per_sm = o.blocks_per_sm * o.warps_per_block;
    o.theoretical = static_cast<double>(o.active_warps_per_sm) / a.max_warps_per_sm;
    // The driver picks the smallest carveout that holds the resident blocks' shared memory.
    const int need = shared == 0 ? 0 : o.blocks_per_sm * per_block_smem;
    o.shared_carveout_bytes = a.shared_per_sm_max;
    for (int kb : a.shared_carveouts_kb)
        if (kb * 1024 >= need) { o.shared_carveout_bytes = std::min(o.shared_carveout_bytes, kb * 1024); }
    o.l1_bytes = a.l1_shared_bytes - o.shared_carveout_bytes;
    return o;
}

Occupancy compute_occupancy(const ArchSpec& a, int threads, int regs, uint32_t shared) {
    if (threads < 1 || threads > a.max_threads_per_block)
        throw OccupancyError("block of " + std::to_string(threads) + " threads: " + a.name + " allows 1.." +
                             std::to_string(a.max_threads_per_block));
    if (regs > a.max_registers_per_thread)
        throw OccupancyError(std::to_string(regs) + " registers per thread: " + a.name + " allows at most " +
                             std::to_string(a.max_registers_per_thread));
    if (shared > static_cast<uint32_t>(a.shared_per_block_max))
        throw OccupancyError(std::to_string(shared) + " bytes of shared memory per block: " + a.name + " allows at most " +
                             std::to_string(a.shared_per_block_max));
    return occupancy(a, threads, regs, shared);
}

int recommended_block_size(const ArchSpec& a, int regs, uint32_t shared) {
    int best = 32;
    double best_occ = -1.0;
    for (int b = 32; b <= a.max_threads_per_block; b += 32) {
        const double occ = occupancy(a, b, regs, shared).theoretical;
        const bool better = occ > best_occ + 1e-9 || (std::abs(occ - best_occ) <= 1e-9 && b <= 256);
        if (better) best = b, best_occ = occ;
    }
    return best;
}

}  // namespace weft::gpusim
