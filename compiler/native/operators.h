// compiler/native/operators.h: the kernel language's scalar operators where C++'s differ.
//
// Integer `/` truncates as in C (Warp's meaning), `//` floors and `%` truncates (Warp's `mod`;
// on vectors, per component);
// all three return 0 when dividing by zero instead of trapping, so a bad divisor never kills the
// CPU process (the GPU returns an unspecified value; Weft's debug mode is the tool to find it).
// INT_MIN / -1 wraps. `**` on integers is repeated multiplication with wrap-around. Float
// literals that are not finite are spelled through their bits.
#pragma once

#include "float16.h"
#include "math.h"
#include "vec.h"

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

namespace detail {
// `%` on scalars; vectors apply it per component.
template <typename T>
struct op_mod_rule {
    static WP_FUNC T apply(T a, T b) {
        if constexpr (T(0.5) != T(0)) {
            return mod(a, b);
        } else {
            if (b == T(0)) return T(0);
            if (T(-1) < T(0) && b == T(-1)) return T(0);
            return static_cast<T>(a % b);
        }
    }
};
template <int N, typename T>
struct op_mod_rule<vec_t<N, T>> {
    static WP_FUNC vec_t<N, T> apply(const vec_t<N, T>& a, const vec_t<N, T>& b) {
        vec_t<N, T> r;
        for (int i = 0; i < N; ++i) r[i] = op_mod_rule<T>::apply(a[i], b[i]);
        return r;
    }
};
}  // namespace detail

template <typename T>
WP_FUNC T op_mod(const T& a, const T& b) {
    return detail::op_mod_rule<T>::apply(a, b);
}

// wp.mod(a, b) of vectors: `%` per component (fmod for floats, the sign of a).
template <int N, typename T>
WP_FUNC vec_t<N, T> mod(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    return op_mod(a, b);
}
// d fmod(a_i, b_i) = da_i - trunc(a_i / b_i) db_i, per component (float vectors only)
template <int N, typename T>
WP_FUNC void adj_mod(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                     const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_mod(a[i], b[i], adj_a[i], adj_b[i], adj_ret[i]);
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
