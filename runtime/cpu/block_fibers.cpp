// Cooperative fibers for synchronising thread blocks on the CPU. See block_fibers.h.
#include "runtime/cpu/block_fibers.h"

#include <ucontext.h>

#include <cstdlib>
#include <exception>
#include <stdexcept>

namespace weft::runtime {

struct BlockFibers::Impl {
    struct Fiber {
        ucontext_t ctx;
        std::unique_ptr<char[]> stack;
        bool done = false;
        bool waiting = false;
    };
    size_t stack_bytes;
    std::vector<Fiber> fibers;
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
        self->fibers[static_cast<size_t>(index)].done = true;
        // returning resumes uc_link: the scheduler
    }
};

BlockFibers::BlockFibers(size_t stack_bytes) : impl_(std::make_unique<Impl>()) { impl_->stack_bytes = stack_bytes; }
BlockFibers::~BlockFibers() = default;

void BlockFibers::run(int nthreads, const std::function<void(int)>& body) {
    Impl& s = *impl_;
    if (static_cast<int>(s.fibers.size()) < nthreads) s.fibers.resize(static_cast<size_t>(nthreads));
    s.body = &body;
    s.error = nullptr;
    uintptr_t self = reinterpret_cast<uintptr_t>(&s);
    for (int i = 0; i < nthreads; ++i) {
        auto& f = s.fibers[static_cast<size_t>(i)];
        if (!f.stack) f.stack = std::make_unique<char[]>(s.stack_bytes);
        f.done = false;
        f.waiting = false;
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = f.stack.get();
        f.ctx.uc_stack.ss_size = s.stack_bytes;
        f.ctx.uc_link = &s.scheduler;
        makecontext(&f.ctx, reinterpret_cast<void (*)()>(&Impl::entry), 3, static_cast<unsigned>(self & 0xffffffffu),
                    static_cast<unsigned>(self >> 32), i);
    }
    int live = nthreads;
    while (live > 0) {
        // One round: run every fiber that is neither done nor waiting until it blocks or ends.
        for (int i = 0; i < nthreads; ++i) {
            auto& f = s.fibers[static_cast<size_t>(i)];
            if (f.done || f.waiting) continue;
            s.current = i;
            swapcontext(&s.scheduler, &f.ctx);
            s.current = -1;
            if (f.done) --live;
        }
        // Everyone still alive is at the barrier: release them.
        for (int i = 0; i < nthreads; ++i) s.fibers[static_cast<size_t>(i)].waiting = false;
    }
    s.body = nullptr;
    if (s.error) std::rethrow_exception(s.error);
}

void BlockFibers::barrier() {
    Impl& s = *impl_;
    if (s.current < 0) throw std::logic_error("wp.sync_threads() called outside a block fiber");
    auto& f = s.fibers[static_cast<size_t>(s.current)];
    f.waiting = true;
    swapcontext(&f.ctx, &s.scheduler);
}

void BlockFibers::abandon() {
    Impl& s = *impl_;
    if (s.current < 0) throw std::logic_error("BlockFibers::abandon() called outside a block fiber");
    s.fibers[static_cast<size_t>(s.current)].done = true;
    setcontext(&s.scheduler);
    std::abort();  // setcontext returns only on failure
}

}  // namespace weft::runtime

extern "C" void weft_cpu_sync_threads(void* block) {
    if (block) static_cast<weft::runtime::BlockFibers*>(block)->barrier();
}
