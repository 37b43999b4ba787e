// compiler/native/atomic.h: pointer-level atomics, what array atomics (wp.atomic_add(arr, i, v)
// and the adjoint pass's gradient accumulation) compile to:
//
//   wp::atomic_add(T* addr, T v)  -> old value    (also atomic_sub, atomic_min, atomic_max,
//   wp::atomic_cas(T* addr, T compare, T v)        atomic_exch; cas returns the old value and
//                                                  stores v only where *addr == compare)
//
// for int32, uint32, int64, uint64, float32 and float64, and component by component (each
// component atomic, the whole not) for vectors and matrices.
//
// Host: the __atomic_* builtins; float add/sub/min/max are compare-exchange loops. CUDA: atomicAdd,
// atomicMin, atomicCAS … where the hardware has them (float64 atomicAdd needs sm_60), and
// compare-exchange loops on the bit pattern otherwise.
#pragma once

#include "mat.h"

namespace wp {

namespace detail {

#if WP_DEVICE_CODE
// CUDA's atomics are spelled on int, unsigned, unsigned long long (and float/double for add).
WP_DEVICE unsigned long long* as_ull(int64* p) { return reinterpret_cast<unsigned long long*>(p); }
WP_DEVICE unsigned long long* as_ull(uint64* p) { return reinterpret_cast<unsigned long long*>(p); }
WP_DEVICE unsigned long long* as_ull(float64* p) { return reinterpret_cast<unsigned long long*>(p); }

// Compare-exchange loop on the bit pattern: *addr = op(*addr, v), returns the old value.
template <typename Op>
WP_DEVICE float32 cas_loop(float32* addr, float32 v, Op op) {
    int* ia = reinterpret_cast<int*>(addr);
    int old = *ia, assumed;
    do {
        assumed = old;
        old = atomicCAS(ia, assumed, __float_as_int(op(__int_as_float(assumed), v)));
    } while (old != assumed);
    return __int_as_float(old);
}
template <typename Op>
WP_DEVICE float64 cas_loop(float64* addr, float64 v, Op op) {
    unsigned long long* ia = as_ull(addr);
    unsigned long long old = *ia, assumed;
    do {
        assumed = old;
        old = atomicCAS(ia, assumed,
                        static_cast<unsigned long long>(__double_as_longlong(op(__longlong_as_double(assumed), v))));
    } while (old != assumed);
    return __longlong_as_double(old);
}
#else
template <typename T, typename Op>
inline T cas_loop(T* addr, T v, Op op) {
    T old;
    __atomic_load(addr, &old, __ATOMIC_RELAXED);
    T desired = op(old, v);
    while (!__atomic_compare_exchange(addr, &old, &desired, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        desired = op(old, v);
    return old;
}
#endif

struct op_add {
    template <typename T>
    WP_FUNC T operator()(T a, T b) const { return a + b; }
};
struct op_sub {
    template <typename T>
    WP_FUNC T operator()(T a, T b) const { return a - b; }
};
struct op_min {
    template <typename T>
    WP_FUNC T operator()(T a, T b) const { return b < a ? b : a; }
};
struct op_max {
    template <typename T>
    WP_FUNC T operator()(T a, T b) const { return b > a ? b : a; }
};

}  // namespace detail

#if WP_DEVICE_CODE
// [SECTION] CUDA device
WP_DEVICE int32 atomic_add(int32* a, int32 v) { return atomicAdd(a, v); }
WP_DEVICE uint32 atomic_add(uint32* a, uint32 v) { return atomicAdd(a, v); }
WP_DEVICE int64 atomic_add(int64* a, int64 v) {
    return static_cast<int64>(atomicAdd(detail::as_ull(a), static_cast<unsigned long long>(v)));
}
WP_DEVICE uint64 atomic_add(uint64* a, uint64 v) { return atomicAdd(detail::as_ull(a), v); }
WP_DEVICE float32 atomic_add(float32* a, float32 v) { return atomicAdd(a, v); }
WP_DEVICE float64 atomic_add(float64* a, float64 v) {
#if __CUDA_ARCH__ >= 600
    return atomicAdd(a, v);
#else
    return detail::cas_loop(a, v, detail::op_add());
#endif
}

WP_DEVICE int32 atomic_sub(int32* a, int32 v) { return atomicSub(a, v); }
WP_DEVICE uint32 atomic_sub(uint32* a, uint32 v) { return atomicSub(a, v); }
WP_DEVICE int64 atomic_sub(int64* a, int64 v) { return atomic_add(a, static_cast<int64>(0ull - static_cast<uint64>(v))); }
WP_DEVICE uint64 atomic_sub(uint64* a, uint64 v) { return atomic_add(a, 0ull - v); }
WP_DEVICE float32 atomic_sub(float32* a, float32 v) { return atomicAdd(a, -v); }
WP_DEVICE float64 atomic_sub(float64* a, float64 v) { return atomic_add(a, -v); }

WP_DEVICE int32 atomic_min(int32* a, int32 v) { return atomicMin(a, v); }
WP_DEVICE uint32 atomic_min(uint32* a, uint32 v) { return atomicMin(a, v); }
WP_DEVICE int64 atomic_min(int64* a, int64 v) { return atomicMin(reinterpret_cast<long long*>(a), v); }
WP_DEVICE uint64 atomic_min(uint64* a, uint64 v) { return atomicMin(detail::as_ull(a), v); }
WP_DEVICE float32 atomic_min(float32* a, float32 v) { return detail::cas_loop(a, v, detail::op_min()); }
WP_DEVICE float64 atomic_min(float64* a, float64 v) { return detail::cas_loop(a, v, detail::op_min()); }

WP_DEVICE int32 atomic_max(int32* a, int32 v) { return atomicMax(a, v); }
WP_DEVICE uint32 atomic_max(uint32* a, uint32 v) { return atomicMax(a, v); }
WP_DEVICE int64 atomic_max(int64* a, int64 v) { return atomicMax(reinterpret_cast<long long*>(a), v); }
WP_DEVICE uint64 atomic_max(uint64* a, uint64 v) { return atomicMax(detail::as_ull(a), v); }
WP_DEVICE float32 atomic_max(float32* a, float32 v) { return detail::cas_loop(a, v, detail::op_max()); }
WP_DEVICE float64 atomic_max(float64* a, float64 v) { return detail::cas_loop(a, v, detail::op_max()); }

WP_DEVICE int32 atomic_cas(int32* a, int32 cmp, int32 v) { return atomicCAS(a, cmp, v); }
WP_DEVICE uint32 atomic_cas(uint32* a, uint32 cmp, uint32 v) { return atomicCAS(a, cmp, v); }
WP_DEVICE int64 atomic_cas(int64* a, int64 cmp, int64 v) {
    return static_cast<int64>(atomicCAS(detail::as_ull(a), static_cast<unsigned long long>(cmp),
                                        static_cast<unsigned long long>(v)));
}
WP_DEVICE uint64 atomic_cas(uint64* a, uint64 cmp, uint64 v) { return atomicCAS(detail::as_ull(a), cmp, v); }
WP_DEVICE float32 atomic_cas(float32* a, float32 cmp, float32 v) {
    return __int_as_float(atomicCAS(reinterpret_cast<int*>(a), __float_as_int(cmp), __float_as_int(v)));
}
WP_DEVICE float64 atomic_cas(float64* a, float64 cmp, float64 v) {
    return __longlong_as_double(static_cast<long long>(
        atomicCAS(detail::as_ull(a), static_cast<unsigned long long>(__double_as_longlong(cmp)),
                  static_cast<unsigned long long>(__double_as_longlong(v)))));
}

WP_DEVICE int32 atomic_exch(int32* a, int32 v) { return atomicExch(a, v); }
WP_DEVICE uint32 atomic_exch(uint32* a, uint32 v) { return atomicExch(a, v); }
WP_DEVICE int64 atomic_exch(int64* a, int64 v) {
    return static_cast<int64>(atomicExch(detail::as_ull(a), static_cast<unsigned long long>(v)));
}
WP_DEVICE uint64 atomic_exch(uint64* a, uint64 v) { return atomicExch(detail::as_ull(a), v); }
WP_DEVICE float32 atomic_exch(float32* a, float32 v) { return atomicExch(a, v); }
WP_DEVICE float64 atomic_exch(float64* a, float64 v) {
    return __longlong_as_double(static_cast<long long>(
        atomicExch(detail::as_ull(a), static_cast<unsigned long long>(__double_as_longlong(v)))));
}
#else
// [SECTION] host (also the host side of a CUDA translation unit)
#define WP_HOST_INT_ATOMICS(T)                                                                            \
    inline T atomic_add(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                 \
    inline T atomic_sub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                 \
    inline T atomic_min(T* a, T v) { return detail::cas_loop(a, v, detail::op_min()); }                   \
    inline T atomic_max(T* a, T v) { return detail::cas_loop(a, v, detail::op_max()); }                   \
    inline T atomic_exch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }               \
    inline T atomic_cas(T* a, T cmp, T v) {                                                               \
        __atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);               \
        return cmp;                                                                                       \
    }
WP_HOST_INT_ATOMICS(int32)
WP_HOST_INT_ATOMICS(uint32)
WP_HOST_INT_ATOMICS(int64)
WP_HOST_INT_ATOMICS(uint64)
#undef WP_HOST_INT_ATOMICS

#define WP_HOST_FLOAT_ATOMICS(T)                                                                          \
    inline T atomic_add(T* a, T v) { return detail::cas_loop(a, v, detail::op_add()); }                   \
    inline T atomic_sub(T* a, T v) { return detail::cas_loop(a, v, detail::op_sub()); }                   \
    inline T atomic_min(T* a, T v) { return detail::cas_loop(a, v, detail::op_min()); }                   \
    inline T atomic_max(T* a, T v) { return detail::cas_loop(a, v, detail::op_max()); }                   \
    inline T atomic_exch(T* a, T v) {                                                                     \
        T old;                                                                                            \
        __atomic_exchange(a, &v, &old, __ATOMIC_SEQ_CST);                                                 \
        return old;                                                                                       \
    }                                                                                                     \
    inline T atomic_cas(T* a, T cmp, T v) {                                                               \
        __atomic_compare_exchange(a, &cmp, &v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                \
        return cmp;                                                                                       \
    }
WP_HOST_FLOAT_ATOMICS(float32)
WP_HOST_FLOAT_ATOMICS(float64)
#undef WP_HOST_FLOAT_ATOMICS
#endif

// [SECTION] component-wise on vectors and matrices (each component atomic, not the whole)
#define WP_COMPONENT_ATOMIC(name)                                                                         \
    template <int N, typename T>                                                                          \
    WP_FUNC vec_t<N, T> name(vec_t<N, T>* a, const vec_t<N, T>& v) {                                      \
        vec_t<N, T> old;                                                                                  \
        for (int i = 0; i < N; ++i) old[i] = name(&(*a)[i], v[i]);                                        \
        return old;                                                                                       \
    }                                                                                                     \
    template <int R, int C, typename T>                                                                   \
    WP_FUNC mat_t<R, C, T> name(mat_t<R, C, T>* a, const mat_t<R, C, T>& v) {                             \
        mat_t<R, C, T> old;                                                                               \
        for (int i = 0; i < R; ++i) old[i] = name(&(*a)[i], v[i]);                                        \
        return old;                                                                                       \
    }
WP_COMPONENT_ATOMIC(atomic_add)
WP_COMPONENT_ATOMIC(atomic_sub)
WP_COMPONENT_ATOMIC(atomic_min)
WP_COMPONENT_ATOMIC(atomic_max)
#undef WP_COMPONENT_ATOMIC

}  // namespace wp
