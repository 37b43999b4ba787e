// compiler/native/array.h: the array descriptor that kernels receive, and element addressing.
//
// An array_t is 64 bytes and has the same layout on every device, so the runtime fills one
// struct for the CPU JIT, for a CUDA launch and for gpusim's parameter space alike:
//
//   offset 0   T*     data        base address (host pointer on cpu/sim, device pointer on cuda)
//   offset 8   int32  shape[4]    extent of each dimension; unused dimensions are 1
//   offset 24  int64  strides[4]  byte stride of each dimension
//   offset 56  int32  ndim        1..4
//
// Indexing computes data + sum(i_k * strides[k]). In debug mode (WP_DEBUG defined to 1 by the
// code generator) every index is checked and an out-of-range access calls wp::report_oob with the
// kernel's source location, which the runtime turns into an error naming kernel, file:line,
// the index and the shape.
#pragma once

#include "core.h"

namespace wp {

template <typename T>
struct array_t {
    T* data;
    int32 shape[4];
    int64 strides[4];
    int32 ndim;
    int32 pad_;
};

// Set by the runtime before a debug-mode launch; the first out-of-range access is recorded there.
struct oob_record {
    int32 hit;          // 0 until an access fails
    int32 line;         // kernel source line of the access
    int32 dim;          // which dimension failed
    int32 ndim;         // the array's ndim
    int64 index[4];     // the indices used
    int32 shape[4];     // the array's shape
};

WP_FUNC void report_oob(int32 line, int32 dim, int32 ndim, const int64* idx, const int32* shape, oob_record* rec) {
    if (!rec) return;
#if WP_DEVICE_CODE
    if (atomicCAS(&rec->hit, 0, 1) != 0) return;
#else
    int32 expected = 0;
    if (!__atomic_compare_exchange_n(&rec->hit, &expected, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return;
#endif
    rec->line = line;
    rec->dim = dim;
    rec->ndim = ndim;
    for (int k = 0; k < 4; ++k) {
        rec->index[k] = k < ndim ? idx[k] : 0;
        rec->shape[k] = k < ndim ? shape[k] : 0;
    }
}

// Debug mode: the divisor of an integer `/`, `//` or `%`, recorded (as dim -1) when it is zero.
// The division itself still gives 0 (operators.h); the launch then reports kernel and line.
template <typename T>
WP_FUNC T checked_divisor(T b, oob_record* rec, int32 line) {
    if (b == T(0)) report_oob(line, -1, 0, nullptr, nullptr, rec);
    return b;
}

template <typename T>
WP_FUNC T* address(const array_t<T>& a, int64 i) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0]);
}
template <typename T>
WP_FUNC T* address(const array_t<T>& a, int64 i, int64 j) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0] + j * a.strides[1]);
}
template <typename T>
WP_FUNC T* address(const array_t<T>& a, int64 i, int64 j, int64 k) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0] + j * a.strides[1] +
                                k * a.strides[2]);
}
template <typename T>
WP_FUNC T* address(const array_t<T>& a, int64 i, int64 j, int64 k, int64 l) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0] + j * a.strides[1] +
                                k * a.strides[2] + l * a.strides[3]);
}

// Addressing specialised at compile time: with Contig the array is known to be dense and
// row-major (the runtime checks every array argument before choosing that entry point), so the
// address is data + linear index and loops over it vectorise.
template <bool Contig, typename T>
WP_FUNC T* addr(const array_t<T>& a, int64 i) {
    if constexpr (Contig) return a.data + i;
    else return address(a, i);
}
template <bool Contig, typename T>
WP_FUNC T* addr(const array_t<T>& a, int64 i, int64 j) {
    if constexpr (Contig) return a.data + (i * a.shape[1] + j);
    else return address(a, i, j);
}
template <bool Contig, typename T>
WP_FUNC T* addr(const array_t<T>& a, int64 i, int64 j, int64 k) {
    if constexpr (Contig) return a.data + ((i * a.shape[1] + j) * a.shape[2] + k);
    else return address(a, i, j, k);
}
template <bool Contig, typename T>
WP_FUNC T* addr(const array_t<T>& a, int64 i, int64 j, int64 k, int64 l) {
    if constexpr (Contig) return a.data + (((i * a.shape[1] + j) * a.shape[2] + k) * a.shape[3] + l);
    else return address(a, i, j, k, l);
}

// Debug-mode addressing: checks every index against the shape first. On failure it records the
// access and returns the array's base address, so the kernel goes on without touching memory
// outside the array; the runtime raises the error when the launch returns.
template <typename T>
WP_FUNC T* checked_address(const array_t<T>& a, oob_record* rec, int32 line, int64 i, int64 j = 0, int64 k = 0,
                           int64 l = 0) {
    const int64 idx[4] = {i, j, k, l};
    for (int d = 0; d < a.ndim; ++d) {
        if (idx[d] < 0 || idx[d] >= a.shape[d]) {
            report_oob(line, d, a.ndim, idx, a.shape, rec);
            return a.data;
        }
    }
    return reinterpret_cast<T*>(reinterpret_cast<char*>(a.data) + i * a.strides[0] +
                                (a.ndim > 1 ? j * a.strides[1] : 0) + (a.ndim > 2 ? k * a.strides[2] : 0) +
                                (a.ndim > 3 ? l * a.strides[3] : 0));
}

}  // namespace wp
