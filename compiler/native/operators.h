// compiler/native/operators.h: the kernel language's scalar operators where C++'s differ.
//
// Integer `/` truncates as in C (Warp's meaning), `//` floors and `%` truncates (Warp's `mod`);
// all three return 0 when dividing by zero instead of trapping, so a bad divisor never kills the
// CPU process (the GPU returns an unspecified value; Weft's debug mode is the tool to find it).
// INT_MIN / -1 wraps. `**` on integers is repeated multiplication with wrap-around. Float
// literals that are not finite are spelled through their bits.
#pragma once

#include "float16.h"
#include "math.h"

namespace wp {

template <typename T>
WP_FUNC T op_div(T a, T b) {
    if constexpr (T(0.5) != T(0)) {
        return a / b;
    } else {
        if (b == T(0)) return T(0);
        if (T(-1) < T(0) && b == T(-1)) return static_cast<T>(T(0) - a);  // avoids INT_MIN / -1
        return static_cast<T>(a / b);
    }
}

template <typename T>
WP_FUNC T op_mod(T a, T b) {
    if constexpr (T(0.5) != T(0)) {
        return mod(a, b);
    } else {
        if (b == T(0)) return T(0);
        if (T(-1) < T(0) && b == T(-1)) return T(0);
        return static_cast<T>(a % b);
    }
}

template <typename T>
WP_FUNC T op_floordiv(T a, T b) {
    if constexpr (T(0.5) != T(0)) {
        return floor(a / b);
    } else {
        if (b == T(0)) return T(0);
        if (T(-1) < T(0) && b == T(-1)) return static_cast<T>(T(0) - a);
        T q = static_cast<T>(a / b);
        if (T(-1) < T(0) && (a % b != 0) && ((a < T(0)) != (b < T(0)))) q = static_cast<T>(q - 1);
        return q;
    }
}

template <typename T>
WP_FUNC T op_ipow(T base, T e) {
    if (T(-1) < T(0) && e < T(0)) {
        // Only 1 and -1 have integer reciprocals.
        if (base == T(1)) return T(1);
        if (base == T(-1)) return (e % 2) ? T(-1) : T(1);
        return T(0);
    }
    T r = T(1);
    while (e > T(0)) {
        if (e & T(1)) r = static_cast<T>(r * base);
        base = static_cast<T>(base * base);
        e = static_cast<T>(e >> 1);
    }
    return r;
}

WP_FUNC float32 float_from_bits(uint32 u) { return bits_float(u); }
WP_FUNC float64 double_from_bits(uint64 u) {
    union {
        uint64 u;
        float64 f;
    } x;
    x.u = u;
    return x.f;
}

}  // namespace wp

#if !WP_CUDA
extern "C" int printf(const char*, ...);
#endif
