// gpusim/exec/run_block.cpp — warp scheduling, barrier release and deadlock detection for a block.
#include "gpusim/exec/run_block.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <mutex>
#include <vector>

namespace weft::gpusim {
namespace {

void init_warps(BlockContext& ctx, RegisterFile& regs) {
    const uint32_t nwarps = (ctx.nthreads + kWarpSize - 1) / kWarpSize;
    const size_t nregs = static_cast<size_t>(ctx.module->num_registers());
    const size_t total = block_register_elements(ctx);
    if (regs.size < total) {
        regs.data.reset(new uint64_t[total]);
        regs.size = total;
    }
    // Zero the rows this block can read: the kernel's and every .func's (see RegisterFile).
    auto zero_rows = [&](uint64_t* base, const Function& f) {
        if (f.reg_end > f.reg_begin)
            std::memset(base + static_cast<size_t>(f.reg_begin) * kWarpSize, 0,
                        static_cast<size_t>(f.reg_end - f.reg_begin) * kWarpSize * sizeof(uint64_t));
    };
    for (uint32_t wi = 0; wi < nwarps; ++wi) {
        uint64_t* base = regs.data.get() + nregs * kWarpSize * wi;
        if (ctx.functions) {
            for (const int32_t f : *ctx.functions) zero_rows(base, ctx.module->functions()[static_cast<size_t>(f)]);
        } else {
            for (const Function& f : ctx.module->functions())
                if (!f.is_entry || &f == ctx.kernel) zero_rows(base, f);
        }
    }
    ctx.warps.clear();
    ctx.warps.resize(nwarps);
    for (uint32_t wi = 0; wi < nwarps; ++wi) {
        Warp& w = ctx.warps[wi];
        w.index = static_cast<int32_t>(wi);
        w.regs = regs.data.get() + nregs * kWarpSize * wi;
        const uint32_t first = wi * kWarpSize;
        const uint32_t n = std::min<uint32_t>(kWarpSize, ctx.nthreads - first);
        w.exists = n == 32 ? 0xffffffffu : ((1u << n) - 1);
        for (uint32_t l = 0; l < kWarpSize; ++l) {
            const uint32_t t = first + l;
            auto set = [&](int32_t r, uint64_t v) { reg_at(w, r, static_cast<int>(l)) = v; };
            set(kSregTidX, t % ctx.block.x);
            set(kSregTidY, (t / ctx.block.x) % ctx.block.y);
            set(kSregTidZ, t / (ctx.block.x * ctx.block.y));
            set(kSregNtidX, ctx.block.x);
            set(kSregNtidY, ctx.block.y);
            set(kSregNtidZ, ctx.block.z);
            set(kSregCtaidX, ctx.ctaid.x);
            set(kSregCtaidY, ctx.ctaid.y);
            set(kSregCtaidZ, ctx.ctaid.z);
            set(kSregNctaidX, ctx.grid.x);
            set(kSregNctaidY, ctx.grid.y);
            set(kSregNctaidZ, ctx.grid.z);
            set(kSregLaneid, l);
            set(kSregWarpid, wi);
            set(kSregNwarpid, 64);
            set(kSregSmid, ctx.block_linear % ctx.options->sm_count);
            set(kSregNsmid, ctx.options->sm_count);
            set(kSregGridid, 0);
            set(kSregLanemaskEq, uint64_t{1} << l);
            set(kSregLanemaskLe, low_bits((uint64_t{2} << l) - 1, 32));
            set(kSregLanemaskLt, (uint64_t{1} << l) - 1);
            set(kSregLanemaskGe, low_bits(~((uint64_t{1} << l) - 1), 32));
            set(kSregLanemaskGt, low_bits(~((uint64_t{2} << l) - 1), 32));
            set(kSregDynamicSmemSize, ctx.options->dynamic_shared_bytes);
            set(kSregTotalSmemSize, ctx.shared_size);
        }
        w.stack.push_back({ctx.kernel->begin, -1, w.exists, 0, -1, 0, -1});
    }
}

uint32_t live_threads(const BlockContext& ctx) {
    uint32_t n = 0;
    for (const Warp& w : ctx.warps) n += static_cast<uint32_t>(std::popcount(w.exists & ~w.exited));
    return n;
}

std::string hex32(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

[[noreturn]] void deadlock(const BlockContext& ctx) {
    const uint32_t live = live_threads(ctx);
    std::string msg = describe_block(ctx) +
                      ": barrier deadlock: every unfinished warp waits at a barrier and none can complete (" +
                      std::to_string(live) + " threads of the block have not exited)";
    for (int id = 0; id < 16; ++id) {
        if (ctx.arrived[id] == 0) continue;
        const uint32_t need = ctx.expected[id] ? ctx.expected[id] : live;
        msg += "\n  barrier " + std::to_string(id) + ": " + std::to_string(ctx.arrived[id]) + " of " + std::to_string(need) +
               " threads arrived";
    }
    for (const Warp& w : ctx.warps) {
        if (w.state != WarpState::AtBarrier) continue;
        const uint32_t mine = w.exists & ~w.exited;
        msg += "\n  warp " + std::to_string(w.index) + " waits at barrier " + std::to_string(w.barrier) + " with " +
               std::to_string(std::popcount(w.barrier_lanes)) + " of its " + std::to_string(std::popcount(mine)) +
               " non-exited lanes (" + hex32(w.barrier_lanes) + ")";
        if ((mine & ~w.barrier_lanes) != 0)
            msg += "; lanes " + hex32(mine & ~w.barrier_lanes) + " are on another path of a divergent branch";
        msg += "\n    at " + describe_pc(ctx, w.barrier_pc);
    }
    throw SimError(msg);
}

}  // namespace

void throw_barrier_deadlock(const BlockContext& ctx) { deadlock(ctx); }

size_t block_register_elements(const BlockContext& ctx) {
    const size_t nwarps = (ctx.nthreads + kWarpSize - 1) / kWarpSize;
    return static_cast<size_t>(ctx.module->num_registers()) * kWarpSize * nwarps;
}

namespace {
std::mutex g_files_mu;
std::vector<RegisterFile> g_files;
constexpr size_t kMaxPooledFiles = 8192;  // 132 SMs x 32 block slots, twice
}  // namespace

RegisterFile take_register_file(size_t elements) {
    std::lock_guard<std::mutex> lock(g_files_mu);
    // The smallest that is large enough: files of a module with many registers stay for it.
    size_t best = g_files.size();
    for (size_t i = 0; i < g_files.size(); ++i)
        if (g_files[i].size >= elements && (best == g_files.size() || g_files[i].size < g_files[best].size)) best = i;
    if (best == g_files.size()) return {};
    RegisterFile f = std::move(g_files[best]);
    g_files[best] = std::move(g_files.back());
    g_files.pop_back();
    return f;
}

void give_register_file(RegisterFile&& file) {
    if (!file.data) return;
    std::lock_guard<std::mutex> lock(g_files_mu);
    if (g_files.size() < kMaxPooledFiles) g_files.push_back(std::move(file));
}

void init_block_warps(BlockContext& ctx, RegisterFile& regs) {
    init_warps(ctx, regs);
    std::fill(std::begin(ctx.arrived), std::end(ctx.arrived), 0u);
    std::fill(std::begin(ctx.expected), std::end(ctx.expected), 0u);
}

bool release_barriers(BlockContext& ctx) {
    bool released = false;
    const uint32_t live = live_threads(ctx);
    for (int id = 0; id < 16; ++id) {
        bool waiting = false;
        for (const Warp& w : ctx.warps) waiting |= w.state == WarpState::AtBarrier && w.barrier == id;
        if (!waiting) continue;
        const uint32_t need = ctx.expected[id] ? ctx.expected[id] : live;
        if (ctx.arrived[id] < need) continue;
        for (Warp& w : ctx.warps) {
            if (w.state == WarpState::AtBarrier && w.barrier == id) {
                w.state = w.stack.empty() ? WarpState::Done : WarpState::Ready;
                w.barrier = -1;
            }
        }
        ctx.arrived[id] = 0;
        ctx.expected[id] = 0;
        released = true;
    }
    return released;
}

void run_block(BlockContext& ctx, RegisterFile& regs) {
    init_block_warps(ctx, regs);
    const uint32_t quantum = std::max<uint32_t>(1, ctx.options->warp_quantum);
    for (;;) {
        bool ran = false;
        bool unfinished = false;
        for (Warp& w : ctx.warps) {
            if (w.state == WarpState::Ready) {
                run_warp(ctx, w, quantum);
                ran = true;
            }
            unfinished |= w.state != WarpState::Done;
        }
        if (!unfinished) return;
        // Release barriers that have all their threads (exited threads are not waited for).
        const bool released = release_barriers(ctx);
        if (!ran && !released) deadlock(ctx);
        if (!released) {
            bool any_ready = false;
            for (const Warp& w : ctx.warps) any_ready |= w.state == WarpState::Ready;
            if (!any_ready) deadlock(ctx);
        }
    }
}

}  // namespace weft::gpusim
