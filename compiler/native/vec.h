// compiler/native/vec.h: vec_t<N, T>, the kernel language's vectors (vec2…vec4 of any scalar,
// spatial_vector = vec_t<6, T>), their operators and builtins, and the adjoints of both.
//
// Layout: `T c[N]`, nothing else (a vec3f is 12 bytes, alignment 4), so the runtime and gpusim
// read and write them as plain scalars. The kernel language's v.x/v.y/v.z/v.w are v[0]…v[3].
//
// Constructors (what the code generator emits):
//   wp::vec_t<3,float>()              zero
//   wp::vec_t<3,float>(s)             every component s (explicit)
//   wp::vec_t<3,float>(x, y, z)       components (each converted to T)
//   wp::vec_t<3,float>(v_double)      component-wise conversion from another scalar (explicit)
//
// Operators: + - (binary and unary), vector * scalar, scalar * vector, vector / scalar,
// scalar / vector, == != (vector % vector is in operators.h, with the scalar `%` rule it applies).
// Each operator is also a named function (add, sub, neg, mul, div) with an adjoint, which is what
// the adjoint pass calls.
#pragma once

#include "math.h"

namespace wp {

template <int N, typename T>
struct vec_t {
    T c[N];

    WP_FUNC vec_t() : c{} {}
    WP_FUNC explicit vec_t(T s) {
        for (int i = 0; i < N; ++i) c[i] = s;
    }
    template <typename... A, enable_if_t<(sizeof...(A) == N && N > 1)> = 0>
    WP_FUNC vec_t(A... a) : c{static_cast<T>(a)...} {}
    template <typename U, enable_if_t<!is_same<U, T>::value> = 0>
    WP_FUNC explicit vec_t(const vec_t<N, U>& o) {
        for (int i = 0; i < N; ++i) c[i] = static_cast<T>(o.c[i]);
    }

    WP_FUNC T& operator[](int i) { return c[i]; }
    WP_FUNC const T& operator[](int i) const { return c[i]; }
};

// [SECTION] arithmetic (named form + operator + adjoint)
template <int N, typename T>
WP_FUNC vec_t<N, T> add(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] + b[i];
    return r;
}
// d(a + b) = da + db
template <int N, typename T>
WP_FUNC void adj_add(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                     const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += adj_ret[i];
        adj_b[i] += adj_ret[i];
    }
}

template <int N, typename T>
WP_FUNC vec_t<N, T> sub(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] - b[i];
    return r;
}
// d(a - b) = da - db
template <int N, typename T>
WP_FUNC void adj_sub(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                     const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += adj_ret[i];
        adj_b[i] -= adj_ret[i];
    }
}

template <int N, typename T>
WP_FUNC vec_t<N, T> neg(const vec_t<N, T>& a) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = -a[i];
    return r;
}
// d(-a) = -da
template <int N, typename T>
WP_FUNC void adj_neg(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_a[i] -= adj_ret[i];
}

template <int N, typename T>
WP_FUNC vec_t<N, T> mul(const vec_t<N, T>& a, nondeduced_t<T> s) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] * s;
    return r;
}
template <int N, typename T>
WP_FUNC vec_t<N, T> mul(nondeduced_t<T> s, const vec_t<N, T>& a) {
    return mul(a, s);
}
// d(a s) = s da + a ds
template <int N, typename T>
WP_FUNC void adj_mul(const vec_t<N, T>& a, T s, vec_t<N, T>& adj_a, T& adj_s, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += s * adj_ret[i];
        adj_s += a[i] * adj_ret[i];
    }
}
template <int N, typename T>
WP_FUNC void adj_mul(T s, const vec_t<N, T>& a, T& adj_s, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}

template <int N, typename T>
WP_FUNC vec_t<N, T> div(const vec_t<N, T>& a, nondeduced_t<T> s) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] / s;
    return r;
}
// d(a / s) = da / s - a ds / s^2
template <int N, typename T>
WP_FUNC void adj_div(const vec_t<N, T>& a, T s, vec_t<N, T>& adj_a, T& adj_s, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += adj_ret[i] / s;
        adj_s -= a[i] * adj_ret[i] / (s * s);
    }
}

// s / a: the scalar divided by each component (Warp's div(Scalar, Vector)).
template <int N, typename T>
WP_FUNC vec_t<N, T> div(nondeduced_t<T> s, const vec_t<N, T>& a) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = s / a[i];
    return r;
}
// d(s / a_i) = ds / a_i - s da_i / a_i^2
template <int N, typename T>
WP_FUNC void adj_div(T s, const vec_t<N, T>& a, T& adj_s, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_s += adj_ret[i] / a[i];
        adj_a[i] -= s * adj_ret[i] / (a[i] * a[i]);
    }
}

template <int N, typename T>
WP_FUNC vec_t<N, T> operator+(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    return add(a, b);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator-(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    return sub(a, b);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator-(const vec_t<N, T>& a) {
    return neg(a);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator*(const vec_t<N, T>& a, nondeduced_t<T> s) {
    return mul(a, s);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator*(nondeduced_t<T> s, const vec_t<N, T>& a) {
    return mul(a, s);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator/(const vec_t<N, T>& a, nondeduced_t<T> s) {
    return div(a, s);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> operator/(nondeduced_t<T> s, const vec_t<N, T>& a) {
    return div(s, a);
}
template <int N, typename T>
WP_FUNC vec_t<N, T>& operator+=(vec_t<N, T>& a, const vec_t<N, T>& b) {
    for (int i = 0; i < N; ++i) a[i] += b[i];
    return a;
}
template <int N, typename T>
WP_FUNC vec_t<N, T>& operator-=(vec_t<N, T>& a, const vec_t<N, T>& b) {
    for (int i = 0; i < N; ++i) a[i] -= b[i];
    return a;
}
template <int N, typename T>
WP_FUNC bool operator==(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    for (int i = 0; i < N; ++i)
        if (!(a[i] == b[i])) return false;
    return true;
}
template <int N, typename T>
WP_FUNC bool operator!=(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    return !(a == b);
}

// [SECTION] products and norms
template <int N, typename T>
WP_FUNC T dot(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    T s = T(0);
    for (int i = 0; i < N; ++i) s += a[i] * b[i];
    return s;
}
// d(a . b) = b . da + a . db
template <int N, typename T>
WP_FUNC void adj_dot(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, T adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += b[i] * adj_ret;
        adj_b[i] += a[i] * adj_ret;
    }
}

template <typename T>
WP_FUNC vec_t<3, T> cross(const vec_t<3, T>& a, const vec_t<3, T>& b) {
    return vec_t<3, T>(a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]);
}
// d(a x b) = da x b + a x db; with g = adj_ret: adj_a += b x g, adj_b += g x a
template <typename T>
WP_FUNC void adj_cross(const vec_t<3, T>& a, const vec_t<3, T>& b, vec_t<3, T>& adj_a, vec_t<3, T>& adj_b,
                       const vec_t<3, T>& adj_ret) {
    adj_a += cross(b, adj_ret);
    adj_b += cross(adj_ret, a);
}

template <int N, typename T>
WP_FUNC T length_sq(const vec_t<N, T>& a) {
    return dot(a, a);
}
// d |a|^2 = 2 a . da
template <int N, typename T>
WP_FUNC void adj_length_sq(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret) {
    for (int i = 0; i < N; ++i) adj_a[i] += T(2) * a[i] * adj_ret;
}

template <int N, typename T>
WP_FUNC T length(const vec_t<N, T>& a) {
    return sqrt(dot(a, a));
}
// d |a| = a . da / |a| (0 at a == 0)
template <int N, typename T>
WP_FUNC void adj_length(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret) {
    const T l = length(a);
    if (l > T(0))
        for (int i = 0; i < N; ++i) adj_a[i] += a[i] / l * adj_ret;
}

// a / |a|, and the zero vector for a == 0 (as Warp).
template <int N, typename T>
WP_FUNC vec_t<N, T> normalize(const vec_t<N, T>& a) {
    const T l = length(a);
    return l > T(0) ? div(a, l) : vec_t<N, T>();
}
// n = a / |a|: dn = (da - n (n . da)) / |a|, so adj_a += (g - n (n . g)) / |a|
template <int N, typename T>
WP_FUNC void adj_normalize(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    const T l = length(a);
    if (!(l > T(0))) return;
    const vec_t<N, T> n = div(a, l);
    const T ng = dot(n, adj_ret);
    for (int i = 0; i < N; ++i) adj_a[i] += (adj_ret[i] - n[i] * ng) / l;
}

// [SECTION] component-wise
template <int N, typename T>
WP_FUNC vec_t<N, T> cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] * b[i];
    return r;
}
// d(a_i b_i) = b_i da_i + a_i db_i
template <int N, typename T>
WP_FUNC void adj_cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                        const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += b[i] * adj_ret[i];
        adj_b[i] += a[i] * adj_ret[i];
    }
}

template <int N, typename T>
WP_FUNC vec_t<N, T> cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] / b[i];
    return r;
}
// d(a_i / b_i) = da_i / b_i - a_i db_i / b_i^2
template <int N, typename T>
WP_FUNC void adj_cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                        const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        adj_a[i] += adj_ret[i] / b[i];
        adj_b[i] -= a[i] * adj_ret[i] / (b[i] * b[i]);
    }
}

template <int N, typename T>
WP_FUNC vec_t<N, T> min(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = min(a[i], b[i]);
    return r;
}
template <int N, typename T>
WP_FUNC void adj_min(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                     const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_min(a[i], b[i], adj_a[i], adj_b[i], adj_ret[i]);
}
template <int N, typename T>
WP_FUNC vec_t<N, T> max(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = max(a[i], b[i]);
    return r;
}
template <int N, typename T>
WP_FUNC void adj_max(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                     const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_max(a[i], b[i], adj_a[i], adj_b[i], adj_ret[i]);
}

// The smallest / largest component (Warp's min(v), max(v)).
template <int N, typename T>
WP_FUNC T min(const vec_t<N, T>& a) {
    T m = a[0];
    for (int i = 1; i < N; ++i) m = min(m, a[i]);
    return m;
}
template <int N, typename T>
WP_FUNC T max(const vec_t<N, T>& a) {
    T m = a[0];
    for (int i = 1; i < N; ++i) m = max(m, a[i]);
    return m;
}
// d min(v) = dv_k for the first k holding the minimum
template <int N, typename T>
WP_FUNC void adj_min(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret) {
    int k = 0;
    for (int i = 1; i < N; ++i)
        if (a[i] < a[k]) k = i;
    adj_a[k] += adj_ret;
}
// d max(v) = dv_k for the first k holding the maximum
template <int N, typename T>
WP_FUNC void adj_max(const vec_t<N, T>& a, vec_t<N, T>& adj_a, T adj_ret) {
    int k = 0;
    for (int i = 1; i < N; ++i)
        if (a[i] > a[k]) k = i;
    adj_a[k] += adj_ret;
}

template <int N, typename T>
WP_FUNC vec_t<N, T> abs(const vec_t<N, T>& a) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = abs(a[i]);
    return r;
}
template <int N, typename T>
WP_FUNC void adj_abs(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_abs(a[i], adj_a[i], adj_ret[i]);
}

template <int N, typename T>
WP_FUNC vec_t<N, T> sign(const vec_t<N, T>& a) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = sign(a[i]);
    return r;
}

template <int N, typename T>
WP_FUNC vec_t<N, T> lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, T t) {
    vec_t<N, T> r;
    for (int i = 0; i < N; ++i) r[i] = a[i] + t * (b[i] - a[i]);
    return r;
}
// d lerp = (1 - t) da + t db + (b - a) dt
template <int N, typename T>
WP_FUNC void adj_lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, T t, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b,
                      T& adj_t, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_lerp(a[i], b[i], t, adj_a[i], adj_b[i], adj_t, adj_ret[i]);
}

}  // namespace wp
