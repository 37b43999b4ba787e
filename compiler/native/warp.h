// compiler/native/warp.h: warp collectives, CUDA's __shfl_*_sync, __ballot_sync, __any_sync and
// __all_sync, on every device (builtin table: compiler/builtins/builtin_defs_warp.cpp).
//
//   CUDA (device code)   the intrinsics themselves; NVRTC lowers them to shfl.sync / vote.sync,
//                        which gpusim executes (gpusim/exec/exec_warp.cpp)
//   CPU                  a rendezvous of the warp's lanes, which run as fibers of their block
//                        (runtime/cpu/block_fibers.h): each lane deposits its value and the lane
//                        it wants to read; once every lane the mask names has arrived or returned,
//                        each gets its answer. The runtime diagnoses what CUDA leaves undefined.
//
// Width is 32 and a lane argument counts modulo 32 (its low 5 bits), as PTX's shfl.sync reads it;
// shfl_up and shfl_down give a lane whose source falls outside the warp its own value.
//
// Adjoints (float values): a shuffle moves values from source lanes to readers, so its adjoint
// moves adjoints back from readers to sources. With a warp-uniform offset that is one shuffle
// (shfl_down's adjoint reads from lane - delta, as a shfl_up would); otherwise every live lane's
// adjoint and source are broadcast in turn, and each lane sums the adjoints of its readers.
#pragma once

#include "launch.h"
#include "vec.h"

namespace wp {

// The collectives' codes, shared with the CPU runtime (runtime/cpu/block_fibers.h, WarpOp).
enum warp_op_t : int32 {
    warp_op_shfl = 0,
    warp_op_shfl_up = 1,
    warp_op_shfl_down = 2,
    warp_op_shfl_xor = 3,
    warp_op_ballot = 4,
    warp_op_any = 5,
    warp_op_all = 6,
};

#if !WP_CUDA
// Provided by the CPU runtime: the rendezvous of the calling lane's warp. src_lane >= 0: returns
// the value that lane deposited; src_lane < 0: returns the bits of the lanes of the group whose
// value is not zero. Does not return when the call is wrong (the launch then fails with why).
extern "C" uint64 weft_cpu_warp_exchange(void* block, int32 op, uint32 mask, uint64 value, int32 src_lane);
#endif

// The lane a shuffle reads, as shfl.sync computes it for width 32.
WP_FUNC int32 warp_source_lane(int32 op, int32 lane, int32 b) {
    b &= 31;
    switch (op) {
        case warp_op_shfl_up: return lane - b >= 0 ? lane - b : lane;
        case warp_op_shfl_down: return lane + b <= 31 ? lane + b : lane;
        case warp_op_shfl_xor: return lane ^ b;
        default: return b;
    }
}

template <typename T>
WP_FUNC uint64 warp_bits(T v) {
    uint64 u = 0;
    __builtin_memcpy(&u, &v, sizeof(T));
    return u;
}

template <typename T>
WP_FUNC T warp_from_bits(uint64 u) {
    T v;
    __builtin_memcpy(&v, &u, sizeof(T));
    return v;
}

template <typename T>
WP_FUNC T warp_shuffle(const thread_ctx& ctx, int32 op, uint32 mask, T value, int32 b) {
#if WP_DEVICE_CODE
    (void)ctx;
    switch (op) {
        case warp_op_shfl_up: return __shfl_up_sync(mask, value, static_cast<unsigned>(b));
        case warp_op_shfl_down: return __shfl_down_sync(mask, value, static_cast<unsigned>(b));
        case warp_op_shfl_xor: return __shfl_xor_sync(mask, value, b);
        default: return __shfl_sync(mask, value, b);
    }
#elif !WP_CUDA
    const int32 src = warp_source_lane(op, lane_id(ctx), b);
    return warp_from_bits<T>(weft_cpu_warp_exchange(ctx.block, op, mask, warp_bits(value), src));
#else
    (void)ctx, (void)op, (void)mask, (void)b;
    return value;
#endif
}

template <int N, typename T>
WP_FUNC vec_t<N, T> warp_shuffle(const thread_ctx& ctx, int32 op, uint32 mask, vec_t<N, T> value, int32 b) {
    vec_t<N, T> r;
    for (int k = 0; k < N; ++k) r[k] = warp_shuffle(ctx, op, mask, value[k], b);
    return r;
}

// Bits of the lanes of mask (not returned) whose pred is true; `op` tells ballot, any and all
// apart, as vote.sync's qualifiers do (lanes meet only at the same collective).
WP_FUNC uint32 warp_vote(const thread_ctx& ctx, int32 op, uint32 mask, bool pred) {
#if WP_DEVICE_CODE
    (void)ctx;
    switch (op) {
        case warp_op_any: return __any_sync(mask, pred) ? 1u : 0u;
        case warp_op_all: return __all_sync(mask, pred) ? 1u : 0u;
        default: return __ballot_sync(mask, pred);
    }
#elif !WP_CUDA
    return static_cast<uint32>(weft_cpu_warp_exchange(ctx.block, op, mask, pred ? 1u : 0u, -1));
#else
    (void)ctx, (void)op, (void)mask, (void)pred;
    return 0;
#endif
}

template <typename T>
WP_FUNC T shfl_sync(const thread_ctx& ctx, uint32 mask, T value, int32 src_lane) {
    return warp_shuffle(ctx, warp_op_shfl, mask, value, src_lane);
}
template <typename T>
WP_FUNC T shfl_up_sync(const thread_ctx& ctx, uint32 mask, T value, int32 delta) {
    return warp_shuffle(ctx, warp_op_shfl_up, mask, value, delta);
}
template <typename T>
WP_FUNC T shfl_down_sync(const thread_ctx& ctx, uint32 mask, T value, int32 delta) {
    return warp_shuffle(ctx, warp_op_shfl_down, mask, value, delta);
}
template <typename T>
WP_FUNC T shfl_xor_sync(const thread_ctx& ctx, uint32 mask, T value, int32 lane_mask) {
    return warp_shuffle(ctx, warp_op_shfl_xor, mask, value, lane_mask);
}

WP_FUNC uint32 ballot_sync(const thread_ctx& ctx, uint32 mask, bool pred) { return warp_vote(ctx, warp_op_ballot, mask, pred); }
WP_FUNC bool any_sync(const thread_ctx& ctx, uint32 mask, bool pred) { return warp_vote(ctx, warp_op_any, mask, pred) != 0; }
#if WP_DEVICE_CODE
WP_FUNC bool all_sync(const thread_ctx& ctx, uint32 mask, bool pred) { return warp_vote(ctx, warp_op_all, mask, pred) != 0; }
#else
// The CPU asks the group for the lanes whose pred is false: all is "none of them".
WP_FUNC bool all_sync(const thread_ctx& ctx, uint32 mask, bool pred) { return warp_vote(ctx, warp_op_all, mask, !pred) == 0; }
#endif

// ---- adjoints ----

template <typename T>
WP_FUNC void warp_shuffle_adjoint(const thread_ctx& ctx, int32 op, uint32 mask, int32 b, T& adj_value, T adj_ret) {
    const uint32 live = ballot_sync(ctx, mask, true);  // the lanes of mask that take part (none returned)
    const int32 lane = lane_id(ctx);
    int32 first = 0;
    while (first < 31 && !((live >> first) & 1u)) ++first;
    const int32 b0 = warp_shuffle(ctx, warp_op_shfl, mask, b, first);
    if (op != warp_op_shfl && all_sync(ctx, mask, (b & 31) == (b0 & 31))) {
        // One offset d for the warp: the lane that read this one is lane + d (up), lane - d (down)
        // or lane ^ d (xor); lanes whose source fell outside the warp read themselves.
        const int32 d = b & 31;
        const int32 reader = op == warp_op_shfl_up ? (lane + d <= 31 ? lane + d : -1)
                             : op == warp_op_shfl_down ? (lane - d >= 0 ? lane - d : -1)
                                                       : lane ^ d;
        const bool read = reader >= 0 && ((live >> reader) & 1u);
        const T t = warp_shuffle(ctx, warp_op_shfl, mask, adj_ret, read ? reader : lane);
        if (read) adj_value += t;
        const bool self = op == warp_op_shfl_up ? lane < d : op == warp_op_shfl_down ? lane + d > 31 : false;
        if (self) adj_value += adj_ret;
        return;
    }
    // Lane-dependent sources: every live lane in turn tells its adjoint and whom it read.
    const int32 src = warp_source_lane(op, lane, b);
    for (int32 k = 0; k < 32; ++k) {
        if (!((live >> k) & 1u)) continue;
        const T a = warp_shuffle(ctx, warp_op_shfl, mask, adj_ret, k);
        const int32 s = warp_shuffle(ctx, warp_op_shfl, mask, src, k);
        if (s == lane) adj_value += a;
    }
}

template <int N, typename T>
WP_FUNC void warp_shuffle_adjoint(const thread_ctx& ctx, int32 op, uint32 mask, int32 b, vec_t<N, T>& adj_value,
                                  vec_t<N, T> adj_ret) {
    for (int k = 0; k < N; ++k) warp_shuffle_adjoint(ctx, op, mask, b, adj_value[k], adj_ret[k]);
}

// d shfl(x)_reader = dx_source: each adjoint goes back to the lane its value came from.
template <typename T>
WP_FUNC void adj_shfl_sync(const thread_ctx& ctx, uint32 mask, T value, int32 src_lane, uint32& adj_mask, T& adj_value,
                           int32& adj_src_lane, T adj_ret) {
    (void)value, (void)adj_mask, (void)adj_src_lane;
    warp_shuffle_adjoint(ctx, warp_op_shfl, mask, src_lane, adj_value, adj_ret);
}
template <typename T>
WP_FUNC void adj_shfl_up_sync(const thread_ctx& ctx, uint32 mask, T value, int32 delta, uint32& adj_mask, T& adj_value,
                              int32& adj_delta, T adj_ret) {
    (void)value, (void)adj_mask, (void)adj_delta;
    warp_shuffle_adjoint(ctx, warp_op_shfl_up, mask, delta, adj_value, adj_ret);
}
template <typename T>
WP_FUNC void adj_shfl_down_sync(const thread_ctx& ctx, uint32 mask, T value, int32 delta, uint32& adj_mask, T& adj_value,
                                int32& adj_delta, T adj_ret) {
    (void)value, (void)adj_mask, (void)adj_delta;
    warp_shuffle_adjoint(ctx, warp_op_shfl_down, mask, delta, adj_value, adj_ret);
}
template <typename T>
WP_FUNC void adj_shfl_xor_sync(const thread_ctx& ctx, uint32 mask, T value, int32 lane_mask, uint32& adj_mask, T& adj_value,
                               int32& adj_lane_mask, T adj_ret) {
    (void)value, (void)adj_mask, (void)adj_lane_mask;
    warp_shuffle_adjoint(ctx, warp_op_shfl_xor, mask, lane_mask, adj_value, adj_ret);
}

}  // namespace wp
