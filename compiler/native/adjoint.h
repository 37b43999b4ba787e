// compiler/native/adjoint.h: what generated backward (adjoint) kernels need beyond the builtins'
// own adj_* functions: the per-thread tape, adjoint accumulation for every value type, and the
// status record through which a backward launch reports that the tape overflowed.
//
// The per-thread tape (`adj_tape<N>`) is a fixed-size byte stack in thread-local storage (a
// C++ local array: registers/local memory on the GPU, the stack on the CPU). The forward sweep
// of a backward kernel pushes every value the reverse sweep needs and cannot recompute: the
// previous value of each overwritten variable, the branch each `if` took and the trip count of
// each loop. The reverse sweep pops them in the opposite order. A push past the capacity sets
// `overflow` and is dropped; the kernel checks the flag after its sweeps and reports through
// `adj_report_overflow`, and the runtime turns that into an error (never a silent wrong gradient).
#pragma once

#include "array.h"
#include "atomic.h"
#include "core.h"
#include "quat.h"
#include "transform.h"
#include "tuple.h"

namespace wp {

// [SECTION] the per-thread tape
template <int N>
struct adj_tape {
    unsigned char buf[N > 0 ? N : 1];
    int32 top = 0;
    bool overflow = false;

    template <typename T>
    WP_FUNC void push(const T& v) {
        if (overflow || top + static_cast<int32>(sizeof(T)) > N) {
            overflow = true;
            return;
        }
        const unsigned char* s = reinterpret_cast<const unsigned char*>(&v);
        for (int32 i = 0; i < static_cast<int32>(sizeof(T)); ++i) buf[top + i] = s[i];
        top += static_cast<int32>(sizeof(T));
    }
    template <typename T>
    WP_FUNC void pop(T& v) {
        if (overflow) return;  // the values are incomplete; the launch reports the overflow
        top -= static_cast<int32>(sizeof(T));
        unsigned char* d = reinterpret_cast<unsigned char*>(&v);
        for (int32 i = 0; i < static_cast<int32>(sizeof(T)); ++i) d[i] = buf[top + i];
    }
};

// [SECTION] adjoint accumulation: a += b for every value type (structs get generated overloads)
template <typename T>
WP_FUNC void adj_accum(T& a, const T& b) {
    a = a + b;
}
WP_FUNC void adj_accum(bool&, const bool&) {}
template <typename T>
WP_FUNC void adj_accum(transform_t<T>& a, const transform_t<T>& b) {
    a.p = a.p + b.p;
    a.q = a.q + b.q;
}
template <typename T>
WP_FUNC void adj_accum(array_t<T>&, const array_t<T>&) {}
template <typename T>
WP_FUNC void adj_accum(tuple_t<T>& a, const tuple_t<T>& b) {
    adj_accum(a.head, b.head);
}
template <typename T, typename U, typename... Rest>
WP_FUNC void adj_accum(tuple_t<T, U, Rest...>& a, const tuple_t<T, U, Rest...>& b) {
    adj_accum(a.head, b.head);
    adj_accum(a.tail, b.tail);
}

// [SECTION] atomic accumulation into a gradient array element (scalars, vectors, matrices)
template <typename T>
WP_FUNC void adj_atomic_accum(T* addr, const T& v) {
    atomic_add(addr, v);
}
template <typename T>
WP_FUNC void adj_atomic_accum(quat_t<T>* addr, const quat_t<T>& v) {
    for (int i = 0; i < 4; ++i) atomic_add(&(*addr)[i], v[i]);
}
template <typename T>
WP_FUNC void adj_atomic_accum(transform_t<T>* addr, const transform_t<T>& v) {
    adj_atomic_accum(&addr->p, v.p);
    adj_atomic_accum(&addr->q, v.q);
}

// [SECTION] status of a backward launch
// status.data[0]: set to 1 when a thread's tape overflowed; [1]: the source line of the kernel;
// [2]: the tape capacity in bytes. The runtime allocates it and reads it after the launch.
WP_FUNC void adj_report_overflow(const array_t<int32>& status, int32 line, int32 capacity) {
    if (!status.data) return;
    if (atomic_cas(status.data, 0, 1) == 0) {
        status.data[1] = line;
        status.data[2] = capacity;
    }
}

}  // namespace wp
