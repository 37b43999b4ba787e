// compiler/native/quat.h: quat_t<T>, rotation quaternions in Warp's layout (x, y, z imaginary,
// w real), their operators and builtins, and the adjoints of both.
//
// Layout: T x, y, z, w (a quatf is 16 bytes). Rotation builtins assume a unit quaternion, as
// Warp's; their adjoints differentiate the formula as written, so they are exact for any q.
//
// Constructors (what the code generator emits):
//   wp::quat_t<float>()                  zero (not the identity; see quat_identity)
//   wp::quat_t<float>(x, y, z, w)        components
//   wp::quat_t<float>(v, w)              imaginary part v (vec3), real part w
//   wp::quat_t<double>(q_float)          conversion (explicit)
//   wp::quat_identity<float>()           (0, 0, 0, 1)
#pragma once

#include "mat.h"

namespace wp {

template <typename T>
struct quat_t {
    T x, y, z, w;

    WP_FUNC quat_t() : x(0), y(0), z(0), w(0) {}
    WP_FUNC quat_t(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    WP_FUNC quat_t(const vec_t<3, T>& v, T w_) : x(v[0]), y(v[1]), z(v[2]), w(w_) {}
    template <typename U, enable_if_t<!is_same<U, T>::value> = 0>
    WP_FUNC explicit quat_t(const quat_t<U>& o)
        : x(static_cast<T>(o.x)), y(static_cast<T>(o.y)), z(static_cast<T>(o.z)), w(static_cast<T>(o.w)) {}

    WP_FUNC T& operator[](int i) { return (&x)[i]; }
    WP_FUNC const T& operator[](int i) const { return (&x)[i]; }
};

template <typename T>
WP_FUNC vec_t<3, T> quat_imag(const quat_t<T>& q) {
    return vec_t<3, T>(q.x, q.y, q.z);
}
template <typename T>
WP_FUNC vec_t<4, T> quat_as_vec(const quat_t<T>& q) {
    return vec_t<4, T>(q.x, q.y, q.z, q.w);
}
template <typename T>
WP_FUNC quat_t<T> vec_as_quat(const vec_t<4, T>& v) {
    return quat_t<T>(v[0], v[1], v[2], v[3]);
}
// Accumulates a vec4 adjoint into a quaternion adjoint.
template <typename T>
WP_FUNC void quat_accumulate(quat_t<T>& adj_q, const vec_t<4, T>& g) {
    adj_q.x += g[0];
    adj_q.y += g[1];
    adj_q.z += g[2];
    adj_q.w += g[3];
}

template <typename T>
WP_FUNC quat_t<T> quat_identity() {
    return quat_t<T>(T(0), T(0), T(0), T(1));
}

// [SECTION] arithmetic: component-wise through vec4, except the Hamilton product
template <typename T>
WP_FUNC quat_t<T> add(const quat_t<T>& a, const quat_t<T>& b) {
    return vec_as_quat(add(quat_as_vec(a), quat_as_vec(b)));
}
// d(a + b) = da + db
template <typename T>
WP_FUNC void adj_add(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b,
                     const quat_t<T>& adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(adj_ret));
    quat_accumulate(adj_b, quat_as_vec(adj_ret));
}
template <typename T>
WP_FUNC quat_t<T> sub(const quat_t<T>& a, const quat_t<T>& b) {
    return vec_as_quat(sub(quat_as_vec(a), quat_as_vec(b)));
}
// d(a - b) = da - db
template <typename T>
WP_FUNC void adj_sub(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b,
                     const quat_t<T>& adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(adj_ret));
    quat_accumulate(adj_b, -quat_as_vec(adj_ret));
}
template <typename T>
WP_FUNC quat_t<T> neg(const quat_t<T>& a) {
    return quat_t<T>(-a.x, -a.y, -a.z, -a.w);
}
// d(-a) = -da
template <typename T>
WP_FUNC void adj_neg(const quat_t<T>& a, quat_t<T>& adj_a, const quat_t<T>& adj_ret) {
    quat_accumulate(adj_a, -quat_as_vec(adj_ret));
}
template <typename T>
WP_FUNC quat_t<T> mul(const quat_t<T>& a, nondeduced_t<T> s) {
    return quat_t<T>(a.x * s, a.y * s, a.z * s, a.w * s);
}
template <typename T>
WP_FUNC quat_t<T> mul(nondeduced_t<T> s, const quat_t<T>& a) {
    return mul(a, s);
}
// d(q s) = s dq + q ds
template <typename T>
WP_FUNC void adj_mul(const quat_t<T>& a, T s, quat_t<T>& adj_a, T& adj_s, const quat_t<T>& adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(adj_ret) * s);
    adj_s += dot(quat_as_vec(a), quat_as_vec(adj_ret));
}
template <typename T>
WP_FUNC void adj_mul(T s, const quat_t<T>& a, T& adj_s, quat_t<T>& adj_a, const quat_t<T>& adj_ret) {
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}
template <typename T>
WP_FUNC quat_t<T> div(const quat_t<T>& a, nondeduced_t<T> s) {
    return quat_t<T>(a.x / s, a.y / s, a.z / s, a.w / s);
}
// d(q / s) = dq / s - q ds / s^2
template <typename T>
WP_FUNC void adj_div(const quat_t<T>& a, T s, quat_t<T>& adj_a, T& adj_s, const quat_t<T>& adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(adj_ret) / s);
    adj_s -= dot(quat_as_vec(a), quat_as_vec(adj_ret)) / (s * s);
}

// Hamilton product: (a.w b.v + b.w a.v + a.v x b.v, a.w b.w - a.v . b.v)
template <typename T>
WP_FUNC quat_t<T> mul(const quat_t<T>& a, const quat_t<T>& b) {
    const vec_t<3, T> av = quat_imag(a), bv = quat_imag(b);
    return quat_t<T>(bv * a.w + av * b.w + cross(av, bv), a.w * b.w - dot(av, bv));
}
// With g = (gv, gw): adj_a.v += gv b.w + b.v x gv... written out from the product's bilinear form.
template <typename T>
WP_FUNC void adj_mul(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b,
                     const quat_t<T>& adj_ret) {
    const vec_t<3, T> av = quat_imag(a), bv = quat_imag(b), gv = quat_imag(adj_ret);
    const T gw = adj_ret.w;
    // r.v = a.w bv + b.w av + av x bv;  r.w = a.w b.w - av . bv
    const vec_t<3, T> adj_av = gv * b.w + cross(bv, gv) - bv * gw;
    const vec_t<3, T> adj_bv = gv * a.w + cross(gv, av) - av * gw;
    adj_a.x += adj_av[0];
    adj_a.y += adj_av[1];
    adj_a.z += adj_av[2];
    adj_a.w += dot(gv, bv) + gw * b.w;
    adj_b.x += adj_bv[0];
    adj_b.y += adj_bv[1];
    adj_b.z += adj_bv[2];
    adj_b.w += dot(gv, av) + gw * a.w;
}

template <typename T>
WP_FUNC quat_t<T> operator+(const quat_t<T>& a, const quat_t<T>& b) {
    return add(a, b);
}
template <typename T>
WP_FUNC quat_t<T> operator-(const quat_t<T>& a, const quat_t<T>& b) {
    return sub(a, b);
}
template <typename T>
WP_FUNC quat_t<T> operator-(const quat_t<T>& a) {
    return neg(a);
}
template <typename T>
WP_FUNC quat_t<T> operator*(const quat_t<T>& a, const quat_t<T>& b) {
    return mul(a, b);
}
template <typename T>
WP_FUNC quat_t<T> operator*(const quat_t<T>& a, nondeduced_t<T> s) {
    return mul(a, s);
}
template <typename T>
WP_FUNC quat_t<T> operator*(nondeduced_t<T> s, const quat_t<T>& a) {
    return mul(a, s);
}
template <typename T>
WP_FUNC quat_t<T> operator/(const quat_t<T>& a, nondeduced_t<T> s) {
    return div(a, s);
}
template <typename T>
WP_FUNC bool operator==(const quat_t<T>& a, const quat_t<T>& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}
template <typename T>
WP_FUNC bool operator!=(const quat_t<T>& a, const quat_t<T>& b) {
    return !(a == b);
}

// [SECTION] norms (as a 4-vector)
template <typename T>
WP_FUNC T dot(const quat_t<T>& a, const quat_t<T>& b) {
    return dot(quat_as_vec(a), quat_as_vec(b));
}
template <typename T>
WP_FUNC void adj_dot(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b, T adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(b) * adj_ret);
    quat_accumulate(adj_b, quat_as_vec(a) * adj_ret);
}
template <typename T>
WP_FUNC T length(const quat_t<T>& a) {
    return length(quat_as_vec(a));
}
template <typename T>
WP_FUNC void adj_length(const quat_t<T>& a, quat_t<T>& adj_a, T adj_ret) {
    vec_t<4, T> g;
    adj_length(quat_as_vec(a), g, adj_ret);
    quat_accumulate(adj_a, g);
}
template <typename T>
WP_FUNC T length_sq(const quat_t<T>& a) {
    return length_sq(quat_as_vec(a));
}
template <typename T>
WP_FUNC void adj_length_sq(const quat_t<T>& a, quat_t<T>& adj_a, T adj_ret) {
    quat_accumulate(adj_a, quat_as_vec(a) * (T(2) * adj_ret));
}
template <typename T>
WP_FUNC quat_t<T> normalize(const quat_t<T>& a) {
    return vec_as_quat(normalize(quat_as_vec(a)));
}
template <typename T>
WP_FUNC void adj_normalize(const quat_t<T>& a, quat_t<T>& adj_a, const quat_t<T>& adj_ret) {
    vec_t<4, T> g;
    adj_normalize(quat_as_vec(a), g, quat_as_vec(adj_ret));
    quat_accumulate(adj_a, g);
}

// [SECTION] rotations
// The conjugate (the inverse of a unit quaternion, as Warp).
template <typename T>
WP_FUNC quat_t<T> quat_inverse(const quat_t<T>& q) {
    return quat_t<T>(-q.x, -q.y, -q.z, q.w);
}
// d conj(q) = conj(dq)
template <typename T>
WP_FUNC void adj_quat_inverse(const quat_t<T>& q, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    adj_q.x -= adj_ret.x;
    adj_q.y -= adj_ret.y;
    adj_q.z -= adj_ret.z;
    adj_q.w += adj_ret.w;
}

// (axis sin(angle/2), cos(angle/2)); the axis is used as given (Warp does not normalize it).
template <typename T>
WP_FUNC quat_t<T> quat_from_axis_angle(const vec_t<3, T>& axis, T angle) {
    const T h = angle * T(0.5);
    return quat_t<T>(axis * sin(h), cos(h));
}
// d q.v = sin(h) daxis + axis cos(h) dangle / 2;  d q.w = -sin(h) dangle / 2
template <typename T>
WP_FUNC void adj_quat_from_axis_angle(const vec_t<3, T>& axis, T angle, vec_t<3, T>& adj_axis, T& adj_angle,
                                      const quat_t<T>& adj_ret) {
    const T h = angle * T(0.5), s = sin(h), c = cos(h);
    const vec_t<3, T> gv = quat_imag(adj_ret);
    adj_axis += gv * s;
    adj_angle += T(0.5) * (c * dot(axis, gv) - s * adj_ret.w);
}

// Warp's quat_rpy: roll about x, then pitch about y, then yaw about z (q = q_z q_y q_x), from the
// cosines and sines of the half angles. Each component is linear in each (c, s) pair.
template <typename T>
WP_FUNC quat_t<T> quat_rpy_terms(T cr, T sr, T cp, T sp, T cy, T sy) {
    return quat_t<T>(cy * sr * cp - sy * cr * sp, cy * cr * sp + sy * sr * cp, sy * cr * cp - cy * sr * sp,
                     cy * cr * cp + sy * sr * sp);
}
template <typename T>
WP_FUNC quat_t<T> quat_rpy(T roll, T pitch, T yaw) {
    const T r = roll * T(0.5), p = pitch * T(0.5), y = yaw * T(0.5);
    return quat_rpy_terms(cos(r), sin(r), cos(p), sin(p), cos(y), sin(y));
}
// By linearity in each pair, d q / d roll = terms(d cr, d sr, ...) with d cr = -sr / 2, d sr = cr / 2
// (the same for pitch and yaw); each adjoint is the dot product of that with adj_ret.
template <typename T>
WP_FUNC void adj_quat_rpy(T roll, T pitch, T yaw, T& adj_roll, T& adj_pitch, T& adj_yaw, const quat_t<T>& adj_ret) {
    const T r = roll * T(0.5), p = pitch * T(0.5), y = yaw * T(0.5);
    const T cr = cos(r), sr = sin(r), cp = cos(p), sp = sin(p), cy = cos(y), sy = sin(y), h = T(0.5);
    const vec_t<4, T> g = quat_as_vec(adj_ret);
    adj_roll += dot(quat_as_vec(quat_rpy_terms(-h * sr, h * cr, cp, sp, cy, sy)), g);
    adj_pitch += dot(quat_as_vec(quat_rpy_terms(cr, sr, -h * sp, h * cp, cy, sy)), g);
    adj_yaw += dot(quat_as_vec(quat_rpy_terms(cr, sr, cp, sp, -h * sy, h * cy)), g);
}

// The rotation's unit axis and its angle in [0, pi] (Warp returns them through out-parameters).
template <typename T>
WP_FUNC tuple_t<vec_t<3, T>, T> quat_to_axis_angle(const quat_t<T>& q) {
    const vec_t<3, T> v = quat_imag(q);
    const vec_t<3, T> axis = q.w < T(0) ? -normalize(v) : normalize(v);
    return tuple_t<vec_t<3, T>, T>{axis, {T(2) * atan2(length(v), abs(q.w))}};
}

// v' = v (2 w^2 - 1) + 2 w (u x v) + 2 u (u . v), u = q.v (q v q^* for a unit q)
template <typename T>
WP_FUNC vec_t<3, T> quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v) {
    const vec_t<3, T> u = quat_imag(q);
    return v * (T(2) * q.w * q.w - T(1)) + cross(u, v) * (T(2) * q.w) + u * (T(2) * dot(u, v));
}
// With g = adj_ret:  adj_v += (2w^2 - 1) g + 2w (g x u) + 2 (g . u) u
//                    adj_u += 2w (v x g) + 2 (u . v) g + 2 (g . u) v
//                    adj_w += 4w (g . v) + 2 g . (u x v)
template <typename T>
WP_FUNC void adj_quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v,
                             const vec_t<3, T>& g) {
    const vec_t<3, T> u = quat_imag(q);
    const T w = q.w, gu = dot(g, u), uv = dot(u, v);
    adj_v += g * (T(2) * w * w - T(1)) + cross(g, u) * (T(2) * w) + u * (T(2) * gu);
    const vec_t<3, T> au = cross(v, g) * (T(2) * w) + g * (T(2) * uv) + v * (T(2) * gu);
    adj_q.x += au[0];
    adj_q.y += au[1];
    adj_q.z += au[2];
    adj_q.w += T(4) * w * dot(g, v) + T(2) * dot(g, cross(u, v));
}

// The inverse rotation: the same formula with u -> -u.
template <typename T>
WP_FUNC vec_t<3, T> quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v) {
    return quat_rotate(quat_inverse(q), v);
}
// Chain rule through quat_inverse.
template <typename T>
WP_FUNC void adj_quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v,
                                 const vec_t<3, T>& adj_ret) {
    quat_t<T> adj_qi;
    adj_quat_rotate(quat_inverse(q), v, adj_qi, adj_v, adj_ret);
    adj_quat_inverse(q, adj_q, adj_qi);
}

// The rotation matrix: column j is quat_rotate(q, e_j).
template <typename T>
WP_FUNC mat_t<3, 3, T> quat_to_matrix(const quat_t<T>& q) {
    return matrix_from_cols(quat_rotate(q, vec_t<3, T>(T(1), T(0), T(0))), quat_rotate(q, vec_t<3, T>(T(0), T(1), T(0))),
                            quat_rotate(q, vec_t<3, T>(T(0), T(0), T(1))));
}
// Column j's adjoint goes through adj_quat_rotate with v = e_j.
template <typename T>
WP_FUNC void adj_quat_to_matrix(const quat_t<T>& q, quat_t<T>& adj_q, const mat_t<3, 3, T>& adj_ret) {
    for (int j = 0; j < 3; ++j) {
        vec_t<3, T> e, g, adj_e;
        e[j] = T(1);
        for (int i = 0; i < 3; ++i) g[i] = adj_ret[i][j];
        adj_quat_rotate(q, e, adj_q, adj_e, g);
    }
}

// Shepperd's method. Each branch computes one "large" component k from a square root,
// c_k = h / 2 with h = sqrt(1 + s_0 m00 + s_1 m11 + s_2 m22), and the other three as
// (m[i][j] +- m[j][i]) / (2 h). The branch table drives both the forward and the adjoint.
namespace detail {
struct shepperd_branch {
    int big;            // component (x=0, y=1, z=2, w=3) taken from the square root
    int diag_sign[3];   // signs of m00, m11, m22 under the root
    int comp[3];        // the other components
    int i[3], j[3];     // each is (m[i][j] + sgn m[j][i]) / (2h)
    int sgn[3];
};
template <typename T>
WP_FUNC shepperd_branch shepperd_pick(const mat_t<3, 3, T>& m) {
    const T tr = m[0][0] + m[1][1] + m[2][2];
    if (tr >= T(0)) return {3, {1, 1, 1}, {0, 1, 2}, {2, 0, 1}, {1, 2, 0}, {-1, -1, -1}};
    if (m[0][0] >= m[1][1] && m[0][0] >= m[2][2]) return {0, {1, -1, -1}, {1, 2, 3}, {0, 2, 2}, {1, 0, 1}, {1, 1, -1}};
    if (m[1][1] >= m[2][2]) return {1, {-1, 1, -1}, {0, 2, 3}, {0, 1, 0}, {1, 2, 2}, {1, 1, -1}};
    return {2, {-1, -1, 1}, {0, 1, 3}, {0, 1, 1}, {2, 2, 0}, {1, 1, -1}};
}
}  // namespace detail

template <typename T>
WP_FUNC quat_t<T> quat_from_matrix(const mat_t<3, 3, T>& m) {
    const detail::shepperd_branch b = detail::shepperd_pick(m);
    const T h = sqrt(T(1) + b.diag_sign[0] * m[0][0] + b.diag_sign[1] * m[1][1] + b.diag_sign[2] * m[2][2]);
    const T f = T(0.5) / h;
    quat_t<T> q;
    q[b.big] = T(0.5) * h;
    for (int k = 0; k < 3; ++k) q[b.comp[k]] = (m[b.i[k]][b.j[k]] + b.sgn[k] * m[b.j[k]][b.i[k]]) * f;
    return q;
}
// c_big = h/2, c_k = p_k f with f = 1/(2h), h = sqrt(s):
// adj_h = adj_big / 2 - sum_k adj_k p_k / (2 h^2);  adj_s = adj_h / (2h);  adj_p_k = adj_k f
template <typename T>
WP_FUNC void adj_quat_from_matrix(const mat_t<3, 3, T>& m, mat_t<3, 3, T>& adj_m, const quat_t<T>& adj_ret) {
    const detail::shepperd_branch b = detail::shepperd_pick(m);
    const T h = sqrt(T(1) + b.diag_sign[0] * m[0][0] + b.diag_sign[1] * m[1][1] + b.diag_sign[2] * m[2][2]);
    const T f = T(0.5) / h;
    T adj_h = T(0.5) * adj_ret[b.big];
    for (int k = 0; k < 3; ++k) {
        const int i = b.i[k], j = b.j[k];
        const T p = m[i][j] + b.sgn[k] * m[j][i];
        const T g = adj_ret[b.comp[k]];
        adj_h -= g * p / (T(2) * h * h);
        adj_m[i][j] += g * f;
        adj_m[j][i] += b.sgn[k] * g * f;
    }
    const T adj_s = adj_h / (T(2) * h);
    for (int d = 0; d < 3; ++d) adj_m[d][d] += b.diag_sign[d] * adj_s;
}

// Spherical interpolation along the shorter arc: with q1' = sign(q0 . q1) q1, theta = acos(q0 . q1'),
// slerp = (sin((1-t) theta) q0 + sin(t theta) q1') / sin(theta); linear blend when theta ~ 0.
template <typename T>
WP_FUNC quat_t<T> quat_slerp(const quat_t<T>& q0, const quat_t<T>& q1, T t) {
    const vec_t<4, T> a = quat_as_vec(q0);
    vec_t<4, T> b = quat_as_vec(q1);
    T d = dot(a, b);
    if (d < T(0)) {
        b = -b;
        d = -d;
    }
    if (d > T(1) - T(1e-6)) return vec_as_quat(a * (T(1) - t) + b * t);
    const T theta = acos(d), s = sin(theta);
    return vec_as_quat(a * (sin((T(1) - t) * theta) / s) + b * (sin(t * theta) / s));
}
// r = s0 a + s1 b with s0 = sin((1-t)th)/sin th, s1 = sin(t th)/sin th, th = acos(a . b):
// ds0/dth = ((1-t) cos((1-t)th) sin th - sin((1-t)th) cos th) / sin^2 th,  ds0/dt = -th cos((1-t)th) / sin th
// ds1/dth = (t cos(t th) sin th - sin(t th) cos th) / sin^2 th,            ds1/dt = th cos(t th) / sin th
// dth = -(b . da + a . db) / sin th
template <typename T>
WP_FUNC void adj_quat_slerp(const quat_t<T>& q0, const quat_t<T>& q1, T t, quat_t<T>& adj_q0, quat_t<T>& adj_q1,
                            T& adj_t, const quat_t<T>& adj_ret) {
    const vec_t<4, T> a = quat_as_vec(q0), g = quat_as_vec(adj_ret);
    vec_t<4, T> b = quat_as_vec(q1);
    T d = dot(a, b);
    const T flip = d < T(0) ? T(-1) : T(1);
    b = b * flip;
    d = d * flip;
    vec_t<4, T> adj_a, adj_b;
    if (d > T(1) - T(1e-6)) {
        adj_a = g * (T(1) - t);
        adj_b = g * t;
        adj_t += dot(g, b - a);
    } else {
        const T th = acos(d), s = sin(th), c = cos(th);
        const T u = (T(1) - t) * th, v = t * th;
        const T s0 = sin(u) / s, s1 = sin(v) / s;
        const T adj_s0 = dot(g, a), adj_s1 = dot(g, b);
        adj_a = g * s0;
        adj_b = g * s1;
        const T ds0_dth = ((T(1) - t) * cos(u) * s - sin(u) * c) / (s * s);
        const T ds1_dth = (t * cos(v) * s - sin(v) * c) / (s * s);
        adj_t += adj_s0 * (-th * cos(u) / s) + adj_s1 * (th * cos(v) / s);
        const T adj_th = adj_s0 * ds0_dth + adj_s1 * ds1_dth;
        const T adj_d = -adj_th / s;
        adj_a += b * adj_d;
        adj_b += a * adj_d;
    }
    quat_accumulate(adj_q0, adj_a);
    quat_accumulate(adj_q1, adj_b * flip);
}

template <typename T>
WP_FUNC quat_t<T> lerp(const quat_t<T>& a, const quat_t<T>& b, T t) {
    return vec_as_quat(lerp(quat_as_vec(a), quat_as_vec(b), t));
}
template <typename T>
WP_FUNC void adj_lerp(const quat_t<T>& a, const quat_t<T>& b, T t, quat_t<T>& adj_a, quat_t<T>& adj_b, T& adj_t,
                      const quat_t<T>& adj_ret) {
    vec_t<4, T> ga, gb;
    adj_lerp(quat_as_vec(a), quat_as_vec(b), t, ga, gb, adj_t, quat_as_vec(adj_ret));
    quat_accumulate(adj_a, ga);
    quat_accumulate(adj_b, gb);
}

}  // namespace wp
