// Occupancy arithmetic (see occupancy.h). No device, no driver: only the architecture's limits.
#include "compiler/audit/occupancy.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace weft::compiler::audit {

namespace {
int round_up(int x, int unit) { return unit <= 0 ? x : (x + unit - 1) / unit * unit; }
}  // namespace

ArchParams ArchParams::h200() {
    ArchParams a;
    a.name = "h200";
    a.sm = "sm_90";
    return a;
}

bool arch_from_name(const std::string& name, ArchParams* out) {
    if (name == "h200" || name == "h100" || name == "sm_90" || name == "sm90") {
        *out = ArchParams::h200();
        out->name = name == "h100" ? "h100" : "h200";
        return true;
    }
    return false;
}

Occupancy occupancy(const ArchParams& arch, int block_threads, int regs_per_thread, int smem_per_block) {
    Occupancy o;
    int max_warps = arch.max_threads_per_sm / arch.warp_size;
    int warps = std::max(1, (block_threads + arch.warp_size - 1) / arch.warp_size);
    o.by_blocks = arch.max_blocks_per_sm;
    o.by_warps = max_warps / warps;
    int regs_per_warp = round_up(std::max(1, regs_per_thread) * arch.warp_size, arch.reg_alloc_unit);
    o.by_registers = regs_per_thread > arch.max_regs_per_thread ? 0 : arch.regs_per_sm / (regs_per_warp * warps);
    int smem = round_up(std::max(0, smem_per_block) + arch.smem_reserved_per_block, arch.smem_alloc_unit);
    o.by_shared = smem > 0 ? arch.smem_per_sm / smem : INT_MAX;
    o.blocks_per_sm = std::min({o.by_blocks, o.by_warps, o.by_registers, o.by_shared});
    // Name the tightest limit; on a tie, the first of warps, blocks, registers, shared memory.
    if (o.blocks_per_sm == o.by_warps) o.limiter = "warps";
    else if (o.blocks_per_sm == o.by_blocks) o.limiter = "blocks";
    else if (o.blocks_per_sm == o.by_registers) o.limiter = "registers";
    else o.limiter = "shared memory";
    o.active_warps = o.blocks_per_sm * warps;
    o.occupancy = double(o.active_warps) / double(max_warps);
    return o;
}

// Highest occupancy; among equals the largest block up to 256 threads (enough warps per block
// to hide latency in the block's barriers, few enough to leave the scheduler choice).
int recommended_block_size(const ArchParams& arch, int regs_per_thread, int smem_per_block) {
    int best = arch.warp_size;
    double best_occ = -1.0;
    for (int b = arch.warp_size; b <= 1024; b += arch.warp_size) {
        double occ = occupancy(arch, b, regs_per_thread, smem_per_block).occupancy;
        bool better = occ > best_occ + 1e-9 || (std::abs(occ - best_occ) <= 1e-9 && b <= 256);
        if (better) best = b, best_occ = occ;
    }
    return best;
}

}  // namespace weft::compiler::audit
