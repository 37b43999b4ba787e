// compiler/native/spatial.h: spatial (6D) vector algebra in Warp's convention: a spatial_vector
// is vec_t<6, T> with the angular part w on top (components 0-2) and the linear part v at the
// bottom (3-5); spatial_matrix is mat_t<6, 6, T>.
//
//   spatial_cross(a, b)      = (wa x wb, wa x vb + va x wb)       motion cross product
//   spatial_cross_dual(a, b) = (wa x wb + va x vb, wa x vb)       force cross product
#pragma once

#include "mat.h"

namespace wp {

template <typename T>
WP_FUNC vec_t<6, T> spatial_vector(const vec_t<3, T>& w, const vec_t<3, T>& v) {
    return vec_t<6, T>(w[0], w[1], w[2], v[0], v[1], v[2]);
}
template <typename T>
WP_FUNC void adj_spatial_vector(const vec_t<3, T>& w, const vec_t<3, T>& v, vec_t<3, T>& adj_w, vec_t<3, T>& adj_v,
                                const vec_t<6, T>& adj_ret) {
    for (int i = 0; i < 3; ++i) {
        adj_w[i] += adj_ret[i];
        adj_v[i] += adj_ret[i + 3];
    }
}

template <typename T>
WP_FUNC vec_t<3, T> spatial_top(const vec_t<6, T>& a) {
    return vec_t<3, T>(a[0], a[1], a[2]);
}
template <typename T>
WP_FUNC void adj_spatial_top(const vec_t<6, T>& a, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret) {
    for (int i = 0; i < 3; ++i) adj_a[i] += adj_ret[i];
}
template <typename T>
WP_FUNC vec_t<3, T> spatial_bottom(const vec_t<6, T>& a) {
    return vec_t<3, T>(a[3], a[4], a[5]);
}
template <typename T>
WP_FUNC void adj_spatial_bottom(const vec_t<6, T>& a, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret) {
    for (int i = 0; i < 3; ++i) adj_a[i + 3] += adj_ret[i];
}

template <typename T>
WP_FUNC T spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b) {
    return dot(a, b);
}
// d(a . b) = b . da + a . db
template <typename T>
WP_FUNC void adj_spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                             T adj_ret) {
    adj_dot(a, b, adj_a, adj_b, adj_ret);
}

template <typename T>
WP_FUNC vec_t<6, T> spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b) {
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_vector(cross(wa, wb), cross(wa, vb) + cross(va, wb));
}
// Each term is a cross product; its adjoint is adj_cross (adj_x += y x g, adj_y += g x x).
template <typename T>
WP_FUNC void adj_spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                               const vec_t<6, T>& adj_ret) {
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    const vec_t<3, T> gw = spatial_top(adj_ret), gv = spatial_bottom(adj_ret);
    vec_t<3, T> adj_wa, adj_va, adj_wb, adj_vb;
    adj_cross(wa, wb, adj_wa, adj_wb, gw);
    adj_cross(wa, vb, adj_wa, adj_vb, gv);
    adj_cross(va, wb, adj_va, adj_wb, gv);
    for (int i = 0; i < 3; ++i) {
        adj_a[i] += adj_wa[i];
        adj_a[i + 3] += adj_va[i];
        adj_b[i] += adj_wb[i];
        adj_b[i + 3] += adj_vb[i];
    }
}

template <typename T>
WP_FUNC vec_t<6, T> spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b) {
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    return spatial_vector(cross(wa, wb) + cross(va, vb), cross(wa, vb));
}
template <typename T>
WP_FUNC void adj_spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a,
                                    vec_t<6, T>& adj_b, const vec_t<6, T>& adj_ret) {
    const vec_t<3, T> wa = spatial_top(a), va = spatial_bottom(a), wb = spatial_top(b), vb = spatial_bottom(b);
    const vec_t<3, T> gw = spatial_top(adj_ret), gv = spatial_bottom(adj_ret);
    vec_t<3, T> adj_wa, adj_va, adj_wb, adj_vb;
    adj_cross(wa, wb, adj_wa, adj_wb, gw);
    adj_cross(va, vb, adj_va, adj_vb, gw);
    adj_cross(wa, vb, adj_wa, adj_vb, gv);
    for (int i = 0; i < 3; ++i) {
        adj_a[i] += adj_wa[i];
        adj_a[i + 3] += adj_va[i];
        adj_b[i] += adj_wb[i];
        adj_b[i + 3] += adj_vb[i];
    }
}

// Warp's spatial_adjoint: the 6x6 block matrix [[R, 0], [S, R]] (the adjoint of a transform when
// S = skew(p) R).
template <typename T>
WP_FUNC mat_t<6, 6, T> spatial_adjoint(const mat_t<3, 3, T>& R, const mat_t<3, 3, T>& S) {
    mat_t<6, 6, T> m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            m(i, j) = R(i, j);
            m(i + 3, j + 3) = R(i, j);
            m(i + 3, j) = S(i, j);
        }
    return m;
}
// dR collects both diagonal blocks of the output's adjoint, dS the lower-left block
template <typename T>
WP_FUNC void adj_spatial_adjoint(const mat_t<3, 3, T>& R, const mat_t<3, 3, T>& S, mat_t<3, 3, T>& adj_R, mat_t<3, 3, T>& adj_S,
                                 const mat_t<6, 6, T>& adj_ret) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            adj_R(i, j) += adj_ret(i, j) + adj_ret(i + 3, j + 3);
            adj_S(i, j) += adj_ret(i + 3, j);
        }
}

}  // namespace wp
