// compiler/native/launch.h: what a kernel body knows about its launch and its thread.
//
// The code generator turns each kernel into a body function `void NAME_body(const thread_ctx&,
// const NAME_args&)` plus one entry point per device. The CPU entry loops over the threads of
// a range of blocks (as fibers when the kernel synchronises a block); the CUDA entry builds the
// context from blockIdx/threadIdx. The body itself is the same text on every device.
#pragma once

#include "array.h"

namespace wp {

struct launch_bounds_t {
    int32 shape[4];  // launch dimensions; unused ones are 1
    int32 ndim;      // 1..4
    int32 pad_;
    int64 size;      // product of shape
};

struct thread_ctx {
    int64 tid;               // linear index of this thread in the launch
    int32 block_idx;         // index of this thread's block
    int32 thread_idx;        // index within the block
    int32 block_dim;         // threads per block
    int32 grid_dim;          // blocks in the launch
    unsigned char* smem;     // base of this block's shared memory
    oob_record* oob;         // debug mode: where the first out-of-range access is recorded
    void* block;             // CPU: the block's barrier scheduler; unused on CUDA
    const volatile int* cancel;  // CPU: the launch's cancel flag (loop_poll); unused on CUDA
};

#if !WP_CUDA
// Provided by the CPU runtime: suspends the calling fiber until every thread of its block arrives.
extern "C" void weft_cpu_sync_threads(void* block);
#endif

WP_FUNC void sync_threads(const thread_ctx& ctx) {
#if WP_DEVICE_CODE
    (void)ctx;
    __syncthreads();
#elif !WP_CUDA
    weft_cpu_sync_threads(ctx.block);
#else
    (void)ctx;
#endif
}

#if !WP_CUDA
// Provided by the CPU runtime: leaves the launch (the calling thread's range, or its block fiber)
// once the launch has been cancelled. Does not return.
extern "C" void weft_cpu_cancel(void* block);
#endif

// Every loop of a kernel or func calls this once per iteration. On the CPU it reads the
// launch's cancel flag, which Ctrl-C sets (runtime/cancel.h), and leaves the launch when it is
// set; the read is volatile, an observable side effect, so C++'s forward-progress rule cannot
// let the compiler assume that a loop terminates and delete it (`while True:` storing into an
// array once "finished" at once). Device code polls nothing: the sim device checks its flag
// between the turns of warps, and a CUDA kernel cannot be interrupted.
WP_FUNC void loop_poll(const thread_ctx& ctx) {
#if !WP_CUDA
    if (*ctx.cancel) weft_cpu_cancel(ctx.block);
#else
    (void)ctx;
#endif
}

WP_FUNC int32 lane_id(const thread_ctx& ctx) { return ctx.thread_idx & 31; }

// wp.tid() of a 1-4-D launch: the linear index split row-major over the launch shape. The loop
// runs over a constant 4 dimensions (those past ndim skipped) so that, unrolled, every index is a
// constant: `out` and the shape stay in registers. A loop to b.ndim indexed them at run time,
// which put both in local memory on the GPU (a store and reload of the shape per thread).
WP_FUNC void tid_split(const launch_bounds_t& b, int64 t, int32* out) {
#if WP_DEVICE_CODE
#pragma unroll
#endif
    for (int d = 3; d >= 0; --d) {
        if (d < b.ndim) {
            out[d] = static_cast<int32>(t % b.shape[d]);
            t /= b.shape[d];
        }
    }
}

}  // namespace wp
