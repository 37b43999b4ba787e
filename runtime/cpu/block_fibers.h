// runtime/cpu/block_fibers.h: one thread block of a kernel that calls wp.sync_threads() or a warp
// collective (wp.shfl_sync, wp.ballot_sync, ...), run on one OS thread as cooperative fibers with
// a real barrier and a real warp rendezvous.
//
// Each kernel thread of the block is a fiber (ucontext) with its own stack. Fibers run in thread
// order until they block or finish; a fiber blocks at the barrier or at a warp collective. When
// every fiber has blocked or finished, the scheduler releases what can go on:
//
//   warp collective   a lane deposits (builtin, mask, its value, the lane it reads) and waits.
//                     Its group is the lanes of its warp that the mask names; once each of them
//                     has deposited at the same builtin with the same mask, or has finished
//                     (an exited lane, as on the GPU), every lane of the group gets its answer
//                     and runs on. The rule is shfl.sync's and vote.sync's on sm_70 and later.
//   barrier           released when every fiber that has not finished waits at it. Finished
//                     threads count as arrived (as exited threads do on the GPU).
//
// What CUDA leaves undefined is a WarpSyncError here rather than a hang or a garbage value: a
// lane calling with a mask that does not name it, a shuffle reading a lane outside the mask or
// one that has returned, and a group that can never complete (a lane the mask names waits at
// another collective, another mask or the barrier). For kernels that use wp.sync_threads()
// incorrectly (divergent barriers), the audit reports the bug statically.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

namespace weft::runtime {

// The collectives' codes: compiler/native/warp.h's warp_op_t.
enum class WarpOp : int { Shfl = 0, ShflUp = 1, ShflDown = 2, ShflXor = 3, Ballot = 4, Any = 5, All = 6 };

// A warp collective that CUDA leaves undefined; what() says which lanes and why (no kernel name:
// the launch adds it).
class WarpSyncError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class BlockFibers {
public:
    explicit BlockFibers(size_t stack_bytes = 64 * 1024);
    ~BlockFibers();
    // Runs body(thread_index) for thread_index in [0, nthreads) as fibers, to completion. Throws
    // WarpSyncError for a wrong collective (the block's other fibers are abandoned), or what body threw.
    void run(int nthreads, const std::function<void(int)>& body);
    // Called from inside a fiber (weft_cpu_sync_threads).
    void barrier();
    // Called from inside a fiber (weft_cpu_warp_exchange): deposits `value` and waits for the
    // group. src_lane >= 0: returns the value lane src_lane deposited; < 0: the bits of the
    // group's lanes whose value is not zero.
    uint64_t warp_exchange(WarpOp op, uint32_t mask, uint64_t value, int src_lane);
    // Called from inside a fiber: ends it now, as if its body had returned (a cancelled launch,
    // weft_cpu_cancel). Its stack is reset by the next run(). Does not return.
    [[noreturn]] void abandon();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace weft::runtime

// The hooks generated code calls on the CPU: `block` is the BlockFibers*.
extern "C" void weft_cpu_sync_threads(void* block);
extern "C" uint64_t weft_cpu_warp_exchange(void* block, int op, uint32_t mask, uint64_t value, int src_lane);
