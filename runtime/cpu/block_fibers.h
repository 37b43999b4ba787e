// runtime/cpu/block_fibers.h: one thread block of a kernel that calls wp.sync_threads(), run on
// one OS thread as cooperative fibers with a real barrier.
//
// Each kernel thread of the block is a fiber (ucontext) with its own stack. Fibers run in thread
// order until they reach the barrier or finish; when every fiber that has not finished waits at
// the barrier, all are released and run on to the next one. Finished threads count as arrived
// (as exited threads do on the GPU), so a block can never hang here. This gives exactly the
// semantics of __syncthreads() for kernels that use it correctly; for kernels that use it
// incorrectly (divergent barriers), the audit reports the bug statically.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace weft::runtime {

class BlockFibers {
public:
    explicit BlockFibers(size_t stack_bytes = 64 * 1024);
    ~BlockFibers();
    // Runs body(thread_index) for thread_index in [0, nthreads) as fibers, to completion.
    void run(int nthreads, const std::function<void(int)>& body);
    // Called from inside a fiber (weft_cpu_sync_threads).
    void barrier();
    // Called from inside a fiber: ends it now, as if its body had returned (a cancelled launch,
    // weft_cpu_cancel). Its stack is reset by the next run(). Does not return.
    [[noreturn]] void abandon();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace weft::runtime

// The hook generated code calls for wp.sync_threads() on the CPU: `block` is the BlockFibers*.
extern "C" void weft_cpu_sync_threads(void* block);
