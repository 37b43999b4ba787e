// Cooperative fibers for synchronising thread blocks and warps on the CPU. See block_fibers.h.
#include "runtime/cpu/block_fibers.h"

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace weft::runtime {

namespace {

constexpr int kWarpSize = 32;

const char* warp_op_name(WarpOp op) {
    switch (op) {
        case WarpOp::Shfl: return "wp.shfl_sync";
        case WarpOp::ShflUp: return "wp.shfl_up_sync";
        case WarpOp::ShflDown: return "wp.shfl_down_sync";
        case WarpOp::ShflXor: return "wp.shfl_xor_sync";
        case WarpOp::Ballot: return "wp.ballot_sync";
        case WarpOp::Any: return "wp.any_sync";
        case WarpOp::All: return "wp.all_sync";
    }
    return "a warp collective";
}

std::string hex_mask(uint32_t m) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%08x", m);
    return b;
}

}  // namespace

struct BlockFibers::Impl {
    enum class State { Runnable, AtBarrier, AtWarp, Done };
    struct Fiber {
        ucontext_t ctx;
        std::unique_ptr<char[]> stack;
        State state = State::Runnable;
        // At a warp collective: what it deposited, and its answer once released.
        WarpOp op = WarpOp::Shfl;
        uint32_t mask = 0;
        uint64_t value = 0;
        int src_lane = -1;
        uint64_t result = 0;
    };
    size_t stack_bytes;
    std::vector<Fiber> fibers;
    int nthreads = 0;
    ucontext_t scheduler;
    const std::function<void(int)>* body = nullptr;
    int current = -1;
    std::exception_ptr error;

    static void entry(unsigned lo, unsigned hi, int index) {
        auto* self = reinterpret_cast<Impl*>((static_cast<uintptr_t>(hi) << 32) | lo);
        try {
            (*self->body)(index);
        } catch (...) {
            if (!self->error) self->error = std::current_exception();
        }
        self->fibers[static_cast<size_t>(index)].state = State::Done;
        // returning resumes uc_link: the scheduler
    }

    // "lane 3 of warp 1"
    static std::string lane_text(int thread) {
        return "lane " + std::to_string(thread % kWarpSize) + " of warp " + std::to_string(thread / kWarpSize);
    }

    // What thread t is doing instead of joining a group.
    std::string doing(int t) const {
        const Fiber& f = fibers[static_cast<size_t>(t)];
        if (f.state == State::AtBarrier) return "it waits in wp.sync_threads()";
        if (f.state == State::AtWarp) return "it waits in " + std::string(warp_op_name(f.op)) + " with mask " + hex_mask(f.mask);
        return "it has not arrived";
    }

    // Ends the calling fiber with a WarpSyncError; run() stops the block and throws it.
    [[noreturn]] void fail(const std::string& message) {
        if (!error) error = std::make_exception_ptr(WarpSyncError(message));
        fibers[static_cast<size_t>(current)].state = State::Done;
        setcontext(&scheduler);
        std::abort();  // setcontext returns only on failure
    }

    // Releases every warp group whose lanes have all arrived (or finished). Returns whether any
    // was released; sets `error` for a group whose answer CUDA leaves undefined.
    bool release_warps() {
        bool released = false;
        for (int t = 0; t < nthreads && !error; ++t) {
            Fiber& f = fibers[static_cast<size_t>(t)];
            if (f.state != State::AtWarp) continue;
            const int base = t / kWarpSize * kWarpSize;
            bool complete = true;
            for (int l = 0; l < kWarpSize && complete; ++l) {
                if (!((f.mask >> l) & 1u) || base + l >= nthreads) continue;
                const Fiber& g = fibers[static_cast<size_t>(base + l)];
                complete = g.state == State::Done || (g.state == State::AtWarp && g.op == f.op && g.mask == f.mask);
            }
            if (!complete) continue;
            const WarpOp op = f.op;
            const uint32_t mask = f.mask;
            uint64_t bits = 0;
            for (int l = 0; l < kWarpSize; ++l)
                if (((mask >> l) & 1u) && base + l < nthreads) {
                    const Fiber& g = fibers[static_cast<size_t>(base + l)];
                    if (g.state == State::AtWarp && g.value != 0) bits |= 1ull << l;
                }
            for (int l = 0; l < kWarpSize; ++l) {
                if (!((mask >> l) & 1u) || base + l >= nthreads) continue;
                Fiber& g = fibers[static_cast<size_t>(base + l)];
                if (g.state != State::AtWarp) continue;
                if (g.src_lane < 0) {
                    g.result = bits;
                } else {
                    const int s = g.src_lane;
                    const std::string reads = lane_text(base + l) + " reads lane " + std::to_string(s) + " in " +
                                              warp_op_name(op) + " (mask " + hex_mask(mask) + ")";
                    if (!((mask >> s) & 1u)) {
                        error = std::make_exception_ptr(
                            WarpSyncError(reads + ", which the mask does not name: CUDA leaves the value undefined"));
                        return released;
                    }
                    if (base + s >= nthreads || fibers[static_cast<size_t>(base + s)].state != State::AtWarp) {
                        const std::string gone = base + s >= nthreads ? ", which does not exist (the block has " +
                                                                            std::to_string(nthreads) + " threads)"
                                                                      : ", which has returned";
                        error = std::make_exception_ptr(WarpSyncError(
                            reads + gone + ": CUDA leaves the value undefined; guard the shuffle or keep that lane running"));
                        return released;
                    }
                    g.result = fibers[static_cast<size_t>(base + s)].value;
                }
            }
            for (int l = 0; l < kWarpSize; ++l)
                if (((mask >> l) & 1u) && base + l < nthreads) {
                    Fiber& g = fibers[static_cast<size_t>(base + l)];
                    if (g.state == State::AtWarp) g.state = State::Runnable;
                }
            released = true;
        }
        return released;
    }

    // Every live fiber is blocked, no group can complete and not all are at the barrier: the
    // first waiting lane and the lane it waits for.
    std::string deadlock() const {
        for (int t = 0; t < nthreads; ++t) {
            const Fiber& f = fibers[static_cast<size_t>(t)];
            if (f.state != State::AtWarp) continue;
            const int base = t / kWarpSize * kWarpSize;
            for (int l = 0; l < kWarpSize; ++l) {
                if (!((f.mask >> l) & 1u) || base + l >= nthreads) continue;
                const Fiber& g = fibers[static_cast<size_t>(base + l)];
                if (g.state == State::Done || (g.state == State::AtWarp && g.op == f.op && g.mask == f.mask)) continue;
                return lane_text(t) + " waits in " + warp_op_name(f.op) + " with mask " + hex_mask(f.mask) + " for lane " +
                       std::to_string(l) + ", which never calls it: " + doing(base + l) +
                       ". Every lane the mask names must call the same collective with the same mask, or have returned "
                       "(on a GPU this hangs or gives undefined values)";
            }
        }
        for (int t = 0; t < nthreads; ++t)
            if (fibers[static_cast<size_t>(t)].state == State::AtBarrier)
                for (int u = 0; u < nthreads; ++u)
                    if (fibers[static_cast<size_t>(u)].state == State::AtWarp)
                        return "thread " + std::to_string(t) + " waits in wp.sync_threads() while " + lane_text(u) +
                               " waits in " + warp_op_name(fibers[static_cast<size_t>(u)].op);
        return "the block's threads wait for each other";
    }
};

BlockFibers::BlockFibers(size_t stack_bytes) : impl_(std::make_unique<Impl>()) { impl_->stack_bytes = stack_bytes; }
BlockFibers::~BlockFibers() = default;

void BlockFibers::run(int nthreads, const std::function<void(int)>& body) {
    using State = Impl::State;
    Impl& s = *impl_;
    if (static_cast<int>(s.fibers.size()) < nthreads) s.fibers.resize(static_cast<size_t>(nthreads));
    s.nthreads = nthreads;
    s.body = &body;
    s.error = nullptr;
    uintptr_t self = reinterpret_cast<uintptr_t>(&s);
    for (int i = 0; i < nthreads; ++i) {
        auto& f = s.fibers[static_cast<size_t>(i)];
        if (!f.stack) f.stack = std::make_unique<char[]>(s.stack_bytes);
        f.state = State::Runnable;
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.get();
        f.ctx.uc_stack.ss_size = s.stack_bytes;
        f.ctx.uc_link = &s.scheduler;
        makecontext(&f.ctx, reinterpret_cast<void (*)()>(&Impl::entry), 3, static_cast<unsigned>(self & 0xffffffffu),
                    static_cast<unsigned>(self >> 32), i);
    }
    for (;;) {
        // One round: run every runnable fiber until it blocks or ends.
        int live = 0;
        for (int i = 0; i < nthreads && !s.error; ++i) {
            auto& f = s.fibers[static_cast<size_t>(i)];
            if (f.state != State::Runnable) continue;
            s.current = i;
            swapcontext(&s.scheduler, &f.ctx);
            s.current = -1;
        }
        if (s.error) break;
        bool at_barrier_only = true;
        for (int i = 0; i < nthreads; ++i) {
            State st = s.fibers[static_cast<size_t>(i)].state;
            if (st != State::Done) ++live;
            if (st == State::AtWarp) at_barrier_only = false;
        }
        if (live == 0) break;
        // Warp groups first: a lane at the barrier may wait for its warp's collective to finish.
        if (s.release_warps() || s.error) continue;
        if (!at_barrier_only) {
            s.error = std::make_exception_ptr(WarpSyncError(s.deadlock()));
            break;
        }
        for (int i = 0; i < nthreads; ++i)
            if (s.fibers[static_cast<size_t>(i)].state == State::AtBarrier)
                s.fibers[static_cast<size_t>(i)].state = State::Runnable;
    }
    s.body = nullptr;
    if (s.error) std::rethrow_exception(s.error);
}

void BlockFibers::barrier() {
    Impl& s = *impl_;
    if (s.current < 0) throw std::logic_error("wp.sync_threads() called outside a block fiber");
    auto& f = s.fibers[static_cast<size_t>(s.current)];
    f.state = Impl::State::AtBarrier;
    swapcontext(&f.ctx, &s.scheduler);
}

uint64_t BlockFibers::warp_exchange(WarpOp op, uint32_t mask, uint64_t value, int src_lane) {
    Impl& s = *impl_;
    if (s.current < 0) throw std::logic_error("a warp collective called outside a block fiber");
    const int lane = s.current % kWarpSize;
    if (!((mask >> lane) & 1u))
        s.fail(Impl::lane_text(s.current) + " calls " + warp_op_name(op) + " with mask " + hex_mask(mask) +
               ", which does not name it: every calling lane must be in the mask");
    auto& f = s.fibers[static_cast<size_t>(s.current)];
    f.state = Impl::State::AtWarp;
    f.op = op;
    f.mask = mask;
    f.value = value;
    f.src_lane = src_lane;
    swapcontext(&f.ctx, &s.scheduler);
    return f.result;
}

void BlockFibers::abandon() {
    Impl& s = *impl_;
    if (s.current < 0) throw std::logic_error("BlockFibers::abandon() called outside a block fiber");
    s.fibers[static_cast<size_t>(s.current)].state = Impl::State::Done;
    setcontext(&s.scheduler);
    std::abort();  // setcontext returns only on failure
}

}  // namespace weft::runtime

extern "C" void weft_cpu_sync_threads(void* block) {
    if (block) static_cast<weft::runtime::BlockFibers*>(block)->barrier();
}

extern "C" uint64_t weft_cpu_warp_exchange(void* block, int op, uint32_t mask, uint64_t value, int src_lane) {
    if (!block) return value;  // not reached: kernels with collectives always run as fibers
    return static_cast<weft::runtime::BlockFibers*>(block)->warp_exchange(static_cast<weft::runtime::WarpOp>(op), mask, value,
                                                                          src_lane);
}
