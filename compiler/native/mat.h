// compiler/native/mat.h: mat_t<R, C, T>, row-major matrices (mat22…mat44, spatial_matrix = 6x6),
// their operators and builtins (transpose, determinant, inverse, trace, diag, identity, skew,
// outer, the `@` product), and the adjoints of all of them.
//
// Layout: `vec_t<C, T> r[R]`, rows one after another (a mat33f is 36 bytes). m[i] is row i,
// m(i, j) and m[i][j] are an element.
//
// Constructors (what the code generator emits):
//   wp::mat_t<3,3,float>()                    zero
//   wp::mat_t<3,3,float>(s)                   every element s (explicit)
//   wp::mat_t<3,3,float>(m00, m01, …, m22)    R*C scalars, row by row
//   wp::mat_t<3,3,float>(r0, r1, r2)          R row vectors
//   wp::matrix_from_rows(r0, r1, r2)          the same
//   wp::matrix_from_cols(c0, c1, c2)          C column vectors (Warp's mat33(v0, v1, v2))
//   wp::mat_t<3,3,double>(m_float)            element-wise conversion (explicit)
//   wp::identity<3,float>()                   the identity
#pragma once

#include "vec.h"

namespace wp {

template <int R, int C, typename T>
struct mat_t {
    vec_t<C, T> r[R];

    WP_FUNC mat_t() : r{} {}
    WP_FUNC explicit mat_t(T s) {
        for (int i = 0; i < R; ++i) r[i] = vec_t<C, T>(s);
    }
    template <typename... A, enable_if_t<(sizeof...(A) == R * C && R * C > 1)> = 0>
    WP_FUNC mat_t(A... a) {
        const T v[R * C] = {static_cast<T>(a)...};
        for (int i = 0; i < R; ++i)
            for (int j = 0; j < C; ++j) r[i][j] = v[i * C + j];
    }
    template <int R_ = R, enable_if_t<R_ == 2> = 0>
    WP_FUNC mat_t(const vec_t<C, T>& r0, const vec_t<C, T>& r1) : r{r0, r1} {}
    template <int R_ = R, enable_if_t<R_ == 3> = 0>
    WP_FUNC mat_t(const vec_t<C, T>& r0, const vec_t<C, T>& r1, const vec_t<C, T>& r2) : r{r0, r1, r2} {}
    template <int R_ = R, enable_if_t<R_ == 4> = 0>
    WP_FUNC mat_t(const vec_t<C, T>& r0, const vec_t<C, T>& r1, const vec_t<C, T>& r2, const vec_t<C, T>& r3)
        : r{r0, r1, r2, r3} {}
    template <typename U, enable_if_t<!is_same<U, T>::value> = 0>
    WP_FUNC explicit mat_t(const mat_t<R, C, U>& o) {
        for (int i = 0; i < R; ++i) r[i] = vec_t<C, T>(o.r[i]);
    }

    WP_FUNC vec_t<C, T>& operator[](int i) { return r[i]; }
    WP_FUNC const vec_t<C, T>& operator[](int i) const { return r[i]; }
    WP_FUNC T& operator()(int i, int j) { return r[i][j]; }
    WP_FUNC const T& operator()(int i, int j) const { return r[i][j]; }
};

template <int C, typename T, typename... V>
WP_FUNC mat_t<1 + sizeof...(V), C, T> matrix_from_rows(const vec_t<C, T>& r0, const V&... rest) {
    mat_t<1 + sizeof...(V), C, T> m;
    const vec_t<C, T> rows[] = {r0, rest...};
    for (int i = 0; i < 1 + int(sizeof...(V)); ++i) m[i] = rows[i];
    return m;
}
template <int R, typename T, typename... V>
WP_FUNC mat_t<R, 1 + sizeof...(V), T> matrix_from_cols(const vec_t<R, T>& c0, const V&... rest) {
    mat_t<R, 1 + sizeof...(V), T> m;
    const vec_t<R, T> cols[] = {c0, rest...};
    for (int j = 0; j < 1 + int(sizeof...(V)); ++j)
        for (int i = 0; i < R; ++i) m[i][j] = cols[j][i];
    return m;
}

template <int N, typename T>
WP_FUNC mat_t<N, N, T> identity() {
    mat_t<N, N, T> m;
    for (int i = 0; i < N; ++i) m[i][i] = T(1);
    return m;
}

// [SECTION] arithmetic (named form + operator + adjoint)
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> add(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = add(a[i], b[i]);
    return m;
}
// d(A + B) = dA + dB
template <int R, int C, typename T>
WP_FUNC void adj_add(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                     const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_add(a[i], b[i], adj_a[i], adj_b[i], adj_ret[i]);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> sub(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = sub(a[i], b[i]);
    return m;
}
// d(A - B) = dA - dB
template <int R, int C, typename T>
WP_FUNC void adj_sub(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b,
                     const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_sub(a[i], b[i], adj_a[i], adj_b[i], adj_ret[i]);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> neg(const mat_t<R, C, T>& a) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = neg(a[i]);
    return m;
}
// d(-A) = -dA
template <int R, int C, typename T>
WP_FUNC void adj_neg(const mat_t<R, C, T>& a, mat_t<R, C, T>& adj_a, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_neg(a[i], adj_a[i], adj_ret[i]);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> mul(const mat_t<R, C, T>& a, nondeduced_t<T> s) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = mul(a[i], s);
    return m;
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> mul(nondeduced_t<T> s, const mat_t<R, C, T>& a) {
    return mul(a, s);
}
// d(A s) = s dA + A ds
template <int R, int C, typename T>
WP_FUNC void adj_mul(const mat_t<R, C, T>& a, T s, mat_t<R, C, T>& adj_a, T& adj_s, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_mul(a[i], s, adj_a[i], adj_s, adj_ret[i]);
}
template <int R, int C, typename T>
WP_FUNC void adj_mul(T s, const mat_t<R, C, T>& a, T& adj_s, mat_t<R, C, T>& adj_a, const mat_t<R, C, T>& adj_ret) {
    adj_mul(a, s, adj_a, adj_s, adj_ret);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> div(const mat_t<R, C, T>& a, nondeduced_t<T> s) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = div(a[i], s);
    return m;
}
// d(A / s) = dA / s - A ds / s^2
template <int R, int C, typename T>
WP_FUNC void adj_div(const mat_t<R, C, T>& a, T s, mat_t<R, C, T>& adj_a, T& adj_s, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_div(a[i], s, adj_a[i], adj_s, adj_ret[i]);
}

// matrix @ vector
template <int R, int C, typename T>
WP_FUNC vec_t<R, T> mul(const mat_t<R, C, T>& a, const vec_t<C, T>& v) {
    vec_t<R, T> r;
    for (int i = 0; i < R; ++i) r[i] = dot(a[i], v);
    return r;
}
// d(A v) = dA v + A dv: adj_A += g v^T, adj_v += A^T g
template <int R, int C, typename T>
WP_FUNC void adj_mul(const mat_t<R, C, T>& a, const vec_t<C, T>& v, mat_t<R, C, T>& adj_a, vec_t<C, T>& adj_v,
                     const vec_t<R, T>& adj_ret) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            adj_a[i][j] += adj_ret[i] * v[j];
            adj_v[j] += a[i][j] * adj_ret[i];
        }
}
// vector @ matrix (v^T A)
template <int R, int C, typename T>
WP_FUNC vec_t<C, T> mul(const vec_t<R, T>& v, const mat_t<R, C, T>& a) {
    vec_t<C, T> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) r[j] += v[i] * a[i][j];
    return r;
}
// d(v^T A) = dv^T A + v^T dA: adj_v += A g, adj_A += v g^T
template <int R, int C, typename T>
WP_FUNC void adj_mul(const vec_t<R, T>& v, const mat_t<R, C, T>& a, vec_t<R, T>& adj_v, mat_t<R, C, T>& adj_a,
                     const vec_t<C, T>& adj_ret) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            adj_v[i] += a[i][j] * adj_ret[j];
            adj_a[i][j] += v[i] * adj_ret[j];
        }
}
// matrix @ matrix
template <int R, int K, int C, typename T>
WP_FUNC mat_t<R, C, T> mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i)
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < C; ++j) m[i][j] += a[i][k] * b[k][j];
    return m;
}
// d(A B) = dA B + A dB: adj_A += G B^T, adj_B += A^T G
template <int R, int K, int C, typename T>
WP_FUNC void adj_mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b, mat_t<R, K, T>& adj_a, mat_t<K, C, T>& adj_b,
                     const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i)
        for (int k = 0; k < K; ++k)
            for (int j = 0; j < C; ++j) {
                adj_a[i][k] += adj_ret[i][j] * b[k][j];
                adj_b[k][j] += a[i][k] * adj_ret[i][j];
            }
}

template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator+(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    return add(a, b);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator-(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    return sub(a, b);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator-(const mat_t<R, C, T>& a) {
    return neg(a);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator*(const mat_t<R, C, T>& a, nondeduced_t<T> s) {
    return mul(a, s);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator*(nondeduced_t<T> s, const mat_t<R, C, T>& a) {
    return mul(a, s);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> operator/(const mat_t<R, C, T>& a, nondeduced_t<T> s) {
    return div(a, s);
}
template <int R, int C, typename T>
WP_FUNC vec_t<R, T> operator*(const mat_t<R, C, T>& a, const vec_t<C, T>& v) {
    return mul(a, v);
}
template <int R, int C, typename T>
WP_FUNC vec_t<C, T> operator*(const vec_t<R, T>& v, const mat_t<R, C, T>& a) {
    return mul(v, a);
}
template <int R, int K, int C, typename T>
WP_FUNC mat_t<R, C, T> operator*(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b) {
    return mul(a, b);
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T>& operator+=(mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    for (int i = 0; i < R; ++i) a[i] += b[i];
    return a;
}
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T>& operator-=(mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    for (int i = 0; i < R; ++i) a[i] -= b[i];
    return a;
}
template <int R, int C, typename T>
WP_FUNC bool operator==(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    for (int i = 0; i < R; ++i)
        if (a[i] != b[i]) return false;
    return true;
}
template <int R, int C, typename T>
WP_FUNC bool operator!=(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    return !(a == b);
}

// [SECTION] structure
template <int R, int C, typename T>
WP_FUNC mat_t<C, R, T> transpose(const mat_t<R, C, T>& a) {
    mat_t<C, R, T> m;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) m[j][i] = a[i][j];
    return m;
}
// d(A^T) = dA^T
template <int R, int C, typename T>
WP_FUNC void adj_transpose(const mat_t<R, C, T>& a, mat_t<R, C, T>& adj_a, const mat_t<C, R, T>& adj_ret) {
    adj_a += transpose(adj_ret);
}

template <int N, typename T>
WP_FUNC T trace(const mat_t<N, N, T>& a) {
    T s = T(0);
    for (int i = 0; i < N; ++i) s += a[i][i];
    return s;
}
// d tr(A) = sum_i dA_ii
template <int N, typename T>
WP_FUNC void adj_trace(const mat_t<N, N, T>& a, mat_t<N, N, T>& adj_a, T adj_ret) {
    for (int i = 0; i < N; ++i) adj_a[i][i] += adj_ret;
}

// A diagonal matrix from a vector.
template <int N, typename T>
WP_FUNC mat_t<N, N, T> diag(const vec_t<N, T>& d) {
    mat_t<N, N, T> m;
    for (int i = 0; i < N; ++i) m[i][i] = d[i];
    return m;
}
// d diag(v)_ii = dv_i
template <int N, typename T>
WP_FUNC void adj_diag(const vec_t<N, T>& d, vec_t<N, T>& adj_d, const mat_t<N, N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_d[i] += adj_ret[i][i];
}
// The diagonal of a square matrix.
template <int N, typename T>
WP_FUNC vec_t<N, T> get_diag(const mat_t<N, N, T>& a) {
    vec_t<N, T> v;
    for (int i = 0; i < N; ++i) v[i] = a[i][i];
    return v;
}
template <int N, typename T>
WP_FUNC void adj_get_diag(const mat_t<N, N, T>& a, mat_t<N, N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) adj_a[i][i] += adj_ret[i];
}

// skew(v) w = v x w
template <typename T>
WP_FUNC mat_t<3, 3, T> skew(const vec_t<3, T>& v) {
    return mat_t<3, 3, T>(T(0), -v[2], v[1], v[2], T(0), -v[0], -v[1], v[0], T(0));
}
// adj_v = (G21 - G12, G02 - G20, G10 - G01)
template <typename T>
WP_FUNC void adj_skew(const vec_t<3, T>& v, vec_t<3, T>& adj_v, const mat_t<3, 3, T>& g) {
    adj_v[0] += g[2][1] - g[1][2];
    adj_v[1] += g[0][2] - g[2][0];
    adj_v[2] += g[1][0] - g[0][1];
}

// a b^T
template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> outer(const vec_t<R, T>& a, const vec_t<C, T>& b) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = mul(b, a[i]);
    return m;
}
// d(a b^T) = da b^T + a db^T: adj_a += G b, adj_b += G^T a
template <int R, int C, typename T>
WP_FUNC void adj_outer(const vec_t<R, T>& a, const vec_t<C, T>& b, vec_t<R, T>& adj_a, vec_t<C, T>& adj_b,
                       const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            adj_a[i] += adj_ret[i][j] * b[j];
            adj_b[j] += adj_ret[i][j] * a[i];
        }
}

// [SECTION] determinant and inverse
template <typename T>
WP_FUNC T determinant(const mat_t<2, 2, T>& m) {
    return m[0][0] * m[1][1] - m[0][1] * m[1][0];
}
template <typename T>
WP_FUNC T determinant(const mat_t<3, 3, T>& m) {
    return dot(m[0], cross(m[1], m[2]));
}
// General N: LU with partial pivoting.
template <int N, typename T>
WP_FUNC T determinant(const mat_t<N, N, T>& m) {
    mat_t<N, N, T> a = m;
    T det = T(1);
    for (int k = 0; k < N; ++k) {
        int p = k;
        for (int i = k + 1; i < N; ++i)
            if (abs(a[i][k]) > abs(a[p][k])) p = i;
        if (a[p][k] == T(0)) return T(0);
        if (p != k) {
            const vec_t<N, T> t = a[p];
            a[p] = a[k];
            a[k] = t;
            det = -det;
        }
        det *= a[k][k];
        for (int i = k + 1; i < N; ++i) {
            const T f = a[i][k] / a[k][k];
            for (int j = k; j < N; ++j) a[i][j] -= f * a[k][j];
        }
    }
    return det;
}

template <typename T>
WP_FUNC mat_t<2, 2, T> inverse(const mat_t<2, 2, T>& m) {
    const T d = determinant(m);
    if (d == T(0)) return mat_t<2, 2, T>();
    return mat_t<2, 2, T>(m[1][1], -m[0][1], -m[1][0], m[0][0]) / d;
}
template <typename T>
WP_FUNC mat_t<3, 3, T> inverse(const mat_t<3, 3, T>& m) {
    // The inverse's columns are the cross products of the rows, over the determinant.
    const vec_t<3, T> c0 = cross(m[1], m[2]), c1 = cross(m[2], m[0]), c2 = cross(m[0], m[1]);
    const T d = dot(m[0], c0);
    if (d == T(0)) return mat_t<3, 3, T>();
    return matrix_from_cols(c0, c1, c2) / d;
}
// General N: Gauss-Jordan with partial pivoting. A singular matrix gives the zero matrix.
template <int N, typename T>
WP_FUNC mat_t<N, N, T> inverse(const mat_t<N, N, T>& m) {
    mat_t<N, N, T> a = m;
    mat_t<N, N, T> inv = identity<N, T>();
    for (int k = 0; k < N; ++k) {
        int p = k;
        for (int i = k + 1; i < N; ++i)
            if (abs(a[i][k]) > abs(a[p][k])) p = i;
        if (a[p][k] == T(0)) return mat_t<N, N, T>();
        if (p != k) {
            vec_t<N, T> t = a[p];
            a[p] = a[k];
            a[k] = t;
            t = inv[p];
            inv[p] = inv[k];
            inv[k] = t;
        }
        const T s = T(1) / a[k][k];
        a[k] = mul(a[k], s);
        inv[k] = mul(inv[k], s);
        for (int i = 0; i < N; ++i) {
            if (i == k) continue;
            const T f = a[i][k];
            a[i] -= mul(a[k], f);
            inv[i] -= mul(inv[k], f);
        }
    }
    return inv;
}

// d det(A) = det(A) tr(A^-1 dA): adj_A += g det(A) A^-T (the cofactor matrix)
template <int N, typename T>
WP_FUNC void adj_determinant(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, T adj_ret) {
    adj_m += transpose(inverse(m)) * (determinant(m) * adj_ret);
}
// d(A^-1) = -A^-1 dA A^-1: adj_A += -A^-T G A^-T
template <int N, typename T>
WP_FUNC void adj_inverse(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, const mat_t<N, N, T>& adj_ret) {
    const mat_t<N, N, T> it = transpose(inverse(m));
    adj_m -= mul(mul(it, adj_ret), it);
}

template <int R, int C, typename T>
WP_FUNC mat_t<R, C, T> lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, T t) {
    mat_t<R, C, T> m;
    for (int i = 0; i < R; ++i) m[i] = lerp(a[i], b[i], t);
    return m;
}
// d lerp = (1 - t) dA + t dB + (B - A) dt
template <int R, int C, typename T>
WP_FUNC void adj_lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, T t, mat_t<R, C, T>& adj_a,
                      mat_t<R, C, T>& adj_b, T& adj_t, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) adj_lerp(a[i], b[i], t, adj_a[i], adj_b[i], adj_t, adj_ret[i]);
}

}  // namespace wp
