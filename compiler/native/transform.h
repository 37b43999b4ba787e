// compiler/native/transform.h: transform_t<T>, rigid transforms in Warp's layout (translation p,
// then rotation q: 7 scalars, a transformf is 28 bytes), their builtins and adjoints.
//
// Constructors (what the code generator emits):
//   wp::transform_t<float>()            p = 0, q = 0 (all zero, as Warp; see transform_identity)
//   wp::transform_t<float>(p, q)        from a vec3 and a quat
//   wp::transform_t<double>(t_float)    conversion (explicit)
//   wp::transform_identity<float>()     p = 0, q = (0, 0, 0, 1)
#pragma once

#include "quat.h"

namespace wp {

template <typename T>
struct transform_t {
    vec_t<3, T> p;
    quat_t<T> q;

    WP_FUNC transform_t() : p(), q() {}
    // Warp's t[i]: the 7 components p0 p1 p2 qx qy qz qw
    WP_FUNC T& operator[](int i) { return i < 3 ? p[i] : q[i - 3]; }
    WP_FUNC const T& operator[](int i) const { return i < 3 ? p[i] : q[i - 3]; }
    WP_FUNC transform_t(const vec_t<3, T>& p_, const quat_t<T>& q_) : p(p_), q(q_) {}
    template <typename U, enable_if_t<!is_same<U, T>::value> = 0>
    WP_FUNC explicit transform_t(const transform_t<U>& o) : p(o.p), q(o.q) {}
};

template <typename T>
WP_FUNC transform_t<T> transform_identity() {
    return transform_t<T>(vec_t<3, T>(), quat_identity<T>());
}

// Warp's lerp of transforms: component-wise on p and q (the q is not renormalised; use
// quat_slerp to blend rotations).
template <typename T>
WP_FUNC transform_t<T> lerp(const transform_t<T>& a, const transform_t<T>& b, T t) {
    return transform_t<T>(lerp(a.p, b.p, t), lerp(a.q, b.q, t));
}
// d lerp = (1 - t) da + t db + (b - a) dt, for p and q alike
template <typename T>
WP_FUNC void adj_lerp(const transform_t<T>& a, const transform_t<T>& b, T t, transform_t<T>& adj_a, transform_t<T>& adj_b,
                      T& adj_t, const transform_t<T>& adj_ret) {
    adj_lerp(a.p, b.p, t, adj_a.p, adj_b.p, adj_t, adj_ret.p);
    adj_lerp(a.q, b.q, t, adj_a.q, adj_b.q, adj_t, adj_ret.q);
}

// The constructor as a builtin: transform(p, q).
template <typename T>
WP_FUNC transform_t<T> transform(const vec_t<3, T>& p, const quat_t<T>& q) {
    return transform_t<T>(p, q);
}
template <typename T>
WP_FUNC void adj_transform(const vec_t<3, T>& p, const quat_t<T>& q, vec_t<3, T>& adj_p, quat_t<T>& adj_q,
                           const transform_t<T>& adj_ret) {
    adj_p += adj_ret.p;
    quat_accumulate(adj_q, quat_as_vec(adj_ret.q));
}

template <typename T>
WP_FUNC vec_t<3, T> transform_get_translation(const transform_t<T>& t) {
    return t.p;
}
template <typename T>
WP_FUNC void adj_transform_get_translation(const transform_t<T>& t, transform_t<T>& adj_t, const vec_t<3, T>& adj_ret) {
    adj_t.p += adj_ret;
}
template <typename T>
WP_FUNC quat_t<T> transform_get_rotation(const transform_t<T>& t) {
    return t.q;
}
template <typename T>
WP_FUNC void adj_transform_get_rotation(const transform_t<T>& t, transform_t<T>& adj_t, const quat_t<T>& adj_ret) {
    quat_accumulate(adj_t.q, quat_as_vec(adj_ret));
}

// a * b = (a.p + rotate(a.q, b.p), a.q b.q)
template <typename T>
WP_FUNC transform_t<T> transform_multiply(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(a.p + quat_rotate(a.q, b.p), mul(a.q, b.q));
}
template <typename T>
WP_FUNC void adj_transform_multiply(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a,
                                    transform_t<T>& adj_b, const transform_t<T>& adj_ret) {
    adj_a.p += adj_ret.p;
    adj_quat_rotate(a.q, b.p, adj_a.q, adj_b.p, adj_ret.p);
    adj_mul(a.q, b.q, adj_a.q, adj_b.q, adj_ret.q);
}
template <typename T>
WP_FUNC transform_t<T> mul(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_multiply(a, b);
}
template <typename T>
WP_FUNC void adj_mul(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b,
                     const transform_t<T>& adj_ret) {
    adj_transform_multiply(a, b, adj_a, adj_b, adj_ret);
}
template <typename T>
WP_FUNC transform_t<T> operator*(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_multiply(a, b);
}

// [SECTION] component-wise arithmetic (Warp's t + u, t - u, s * t): p and q alike, as 7 numbers
template <typename T>
WP_FUNC transform_t<T> add(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(add(a.p, b.p), add(a.q, b.q));
}
// d(a + b) = da + db
template <typename T>
WP_FUNC void adj_add(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b,
                     const transform_t<T>& adj_ret) {
    adj_add(a.p, b.p, adj_a.p, adj_b.p, adj_ret.p);
    adj_add(a.q, b.q, adj_a.q, adj_b.q, adj_ret.q);
}
template <typename T>
WP_FUNC transform_t<T> sub(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(sub(a.p, b.p), sub(a.q, b.q));
}
// d(a - b) = da - db
template <typename T>
WP_FUNC void adj_sub(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b,
                     const transform_t<T>& adj_ret) {
    adj_sub(a.p, b.p, adj_a.p, adj_b.p, adj_ret.p);
    adj_sub(a.q, b.q, adj_a.q, adj_b.q, adj_ret.q);
}
template <typename T>
WP_FUNC transform_t<T> mul(const transform_t<T>& a, nondeduced_t<T> s) {
    return transform_t<T>(mul(a.p, s), mul(a.q, s));
}
template <typename T>
WP_FUNC transform_t<T> mul(nondeduced_t<T> s, const transform_t<T>& a) {
    return mul(a, s);
}
// d(t s) = s dt + t ds
template <typename T>
WP_FUNC void adj_mul(const transform_t<T>& a, T s, transform_t<T>& adj_a, T& adj_s, const transform_t<T>& adj_ret) {
    adj_mul(a.p, s, adj_a.p, adj_s, adj_ret.p);
    adj_mul(a.q, s, adj_a.q, adj_s, adj_ret.q);
}
template <typename T>
WP_FUNC void adj_mul(T s, const transform_t<T>& a, T& adj_s, transform_t<T>& adj_a, const transform_t<T>& adj_ret) {
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}
template <typename T>
WP_FUNC transform_t<T> operator+(const transform_t<T>& a, const transform_t<T>& b) {
    return add(a, b);
}
template <typename T>
WP_FUNC transform_t<T> operator-(const transform_t<T>& a, const transform_t<T>& b) {
    return sub(a, b);
}
template <typename T>
WP_FUNC transform_t<T> operator*(const transform_t<T>& a, nondeduced_t<T> s) {
    return mul(a, s);
}
template <typename T>
WP_FUNC transform_t<T> operator*(nondeduced_t<T> s, const transform_t<T>& a) {
    return mul(a, s);
}

template <typename T>
WP_FUNC bool operator==(const transform_t<T>& a, const transform_t<T>& b) {
    return a.p == b.p && a.q == b.q;
}
template <typename T>
WP_FUNC bool operator!=(const transform_t<T>& a, const transform_t<T>& b) {
    return !(a == b);
}

// t^-1 = (-rotate(q^*, p), q^*)
template <typename T>
WP_FUNC transform_t<T> transform_inverse(const transform_t<T>& t) {
    const quat_t<T> qi = quat_inverse(t.q);
    return transform_t<T>(-quat_rotate(qi, t.p), qi);
}
template <typename T>
WP_FUNC void adj_transform_inverse(const transform_t<T>& t, transform_t<T>& adj_t, const transform_t<T>& adj_ret) {
    const quat_t<T> qi = quat_inverse(t.q);
    quat_t<T> adj_qi = adj_ret.q;
    adj_quat_rotate(qi, t.p, adj_qi, adj_t.p, -adj_ret.p);
    adj_quat_inverse(t.q, adj_t.q, adj_qi);
}

// rotate(q, x) + p
template <typename T>
WP_FUNC vec_t<3, T> transform_point(const transform_t<T>& t, const vec_t<3, T>& x) {
    return quat_rotate(t.q, x) + t.p;
}
template <typename T>
WP_FUNC void adj_transform_point(const transform_t<T>& t, const vec_t<3, T>& x, transform_t<T>& adj_t,
                                 vec_t<3, T>& adj_x, const vec_t<3, T>& adj_ret) {
    adj_t.p += adj_ret;
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, adj_ret);
}
// rotate(q, x)
template <typename T>
WP_FUNC vec_t<3, T> transform_vector(const transform_t<T>& t, const vec_t<3, T>& x) {
    return quat_rotate(t.q, x);
}
template <typename T>
WP_FUNC void adj_transform_vector(const transform_t<T>& t, const vec_t<3, T>& x, transform_t<T>& adj_t,
                                  vec_t<3, T>& adj_x, const vec_t<3, T>& adj_ret) {
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, adj_ret);
}

// With a 4x4 homogeneous matrix: (M (x, 1)).xyz and (M (x, 0)).xyz
template <typename T>
WP_FUNC vec_t<3, T> transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x) {
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i) r[i] = m[i][0] * x[0] + m[i][1] * x[1] + m[i][2] * x[2] + m[i][3];
    return r;
}
template <typename T>
WP_FUNC void adj_transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x, mat_t<4, 4, T>& adj_m,
                                 vec_t<3, T>& adj_x, const vec_t<3, T>& adj_ret) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            adj_m[i][j] += adj_ret[i] * x[j];
            adj_x[j] += m[i][j] * adj_ret[i];
        }
        adj_m[i][3] += adj_ret[i];
    }
}
template <typename T>
WP_FUNC vec_t<3, T> transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& x) {
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i) r[i] = m[i][0] * x[0] + m[i][1] * x[1] + m[i][2] * x[2];
    return r;
}
template <typename T>
WP_FUNC void adj_transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& x, mat_t<4, 4, T>& adj_m,
                                  vec_t<3, T>& adj_x, const vec_t<3, T>& adj_ret) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            adj_m[i][j] += adj_ret[i] * x[j];
            adj_x[j] += m[i][j] * adj_ret[i];
        }
}

}  // namespace wp
