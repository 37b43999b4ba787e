// Vectors and matrices of compiler/native against Eigen (float64), on random inputs.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "weft_native.h"

namespace {

template <int N>
using V = wp::vec_t<N, double>;
template <int N>
using M = wp::mat_t<N, N, double>;

template <int N>
V<N> rand_vec(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    V<N> v;
    for (int i = 0; i < N; ++i) v[i] = u(rng);
    return v;
}
template <int N>
M<N> rand_mat(std::mt19937& rng) {
    M<N> m;
    for (int i = 0; i < N; ++i) m[i] = rand_vec<N>(rng);
    return m;
}
template <int N>
Eigen::Matrix<double, N, 1> ev(const V<N>& v) {
    Eigen::Matrix<double, N, 1> e;
    for (int i = 0; i < N; ++i) e(i) = v[i];
    return e;
}
template <int N>
Eigen::Matrix<double, N, N> em(const M<N>& m) {
    Eigen::Matrix<double, N, N> e;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) e(i, j) = m(i, j);
    return e;
}
template <int N>
void expect_vec(const V<N>& a, const Eigen::Matrix<double, N, 1>& b, double tol = 1e-12) {
    for (int i = 0; i < N; ++i) EXPECT_NEAR(a[i], b(i), tol) << i;
}
template <int N>
void expect_mat(const M<N>& a, const Eigen::Matrix<double, N, N>& b, double tol = 1e-12) {
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) EXPECT_NEAR(a(i, j), b(i, j), tol) << i << "," << j;
}

template <int N>
void check_vectors(std::mt19937& rng) {
    for (int trial = 0; trial < 20; ++trial) {
        const V<N> a = rand_vec<N>(rng), b = rand_vec<N>(rng);
        const double s = 0.7;
        expect_vec<N>(a + b, ev(a) + ev(b));
        expect_vec<N>(a - b, ev(a) - ev(b));
        expect_vec<N>(-a, -ev(a));
        expect_vec<N>(a * s, ev(a) * s);
        expect_vec<N>(s * a, ev(a) * s);
        expect_vec<N>(a / s, ev(a) / s);
        EXPECT_NEAR(wp::dot(a, b), ev(a).dot(ev(b)), 1e-14);
        EXPECT_NEAR(wp::length(a), ev(a).norm(), 1e-14);
        EXPECT_NEAR(wp::length_sq(a), ev(a).squaredNorm(), 1e-14);
        expect_vec<N>(wp::normalize(a), ev(a).normalized());
        expect_vec<N>(wp::cw_mul(a, b), ev(a).cwiseProduct(ev(b)));
        expect_vec<N>(wp::cw_div(a, b), ev(a).cwiseQuotient(ev(b)), 1e-9);
        expect_vec<N>(wp::min(a, b), ev(a).cwiseMin(ev(b)));
        expect_vec<N>(wp::max(a, b), ev(a).cwiseMax(ev(b)));
        expect_vec<N>(wp::abs(a), ev(a).cwiseAbs());
        EXPECT_EQ(wp::min(a), ev(a).minCoeff());
        EXPECT_EQ(wp::max(a), ev(a).maxCoeff());
        expect_vec<N>(wp::lerp(a, b, s), ev(a) + s * (ev(b) - ev(a)));
        expect_mat<N>(wp::outer(a, b), ev(a) * ev(b).transpose());
        EXPECT_TRUE(a == a);
        EXPECT_TRUE(a != b);
    }
    EXPECT_EQ(wp::normalize(V<N>()), V<N>());  // zero stays zero, as Warp
}

template <int N>
void check_matrices(std::mt19937& rng) {
    for (int trial = 0; trial < 20; ++trial) {
        const M<N> a = rand_mat<N>(rng), b = rand_mat<N>(rng);
        const V<N> v = rand_vec<N>(rng);
        expect_mat<N>(a + b, em(a) + em(b));
        expect_mat<N>(a - b, em(a) - em(b));
        expect_mat<N>(-a, -em(a));
        expect_mat<N>(a * 2.0, em(a) * 2.0);
        expect_mat<N>(a / 2.0, em(a) / 2.0);
        expect_mat<N>(a * b, em(a) * em(b));
        expect_mat<N>(wp::mul(a, b), em(a) * em(b));
        expect_vec<N>(a * v, em(a) * ev(v));
        expect_vec<N>(wp::mul(v, a), (ev(v).transpose() * em(a)).transpose());
        expect_mat<N>(wp::transpose(a), em(a).transpose());
        EXPECT_NEAR(wp::trace(a), em(a).trace(), 1e-14);
        EXPECT_NEAR(wp::determinant(a), em(a).determinant(), 1e-12);
        expect_mat<N>(wp::inverse(a), em(a).inverse(), 1e-8 * (1 + em(a).inverse().norm()));
        expect_mat<N>(wp::diag(v), ev(v).asDiagonal().toDenseMatrix());
        expect_vec<N>(wp::get_diag(a), em(a).diagonal());
        expect_mat<N>(wp::lerp(a, b, 0.25), em(a) + 0.25 * (em(b) - em(a)));
    }
    expect_mat<N>(wp::identity<N, double>(), Eigen::Matrix<double, N, N>::Identity());
    EXPECT_EQ(wp::inverse(M<N>()), M<N>());  // singular -> zero
}

}  // namespace

TEST(Vectors, MatchEigen) {
    std::mt19937 rng(1);
    check_vectors<2>(rng);
    check_vectors<3>(rng);
    check_vectors<4>(rng);
    check_vectors<6>(rng);
    for (int i = 0; i < 20; ++i) {
        const V<3> a = rand_vec<3>(rng), b = rand_vec<3>(rng);
        expect_vec<3>(wp::cross(a, b), ev(a).cross(ev(b)));
    }
}

TEST(Matrices, MatchEigen) {
    std::mt19937 rng(2);
    check_matrices<2>(rng);
    check_matrices<3>(rng);
    check_matrices<4>(rng);
    check_matrices<6>(rng);
    for (int i = 0; i < 20; ++i) {
        const V<3> a = rand_vec<3>(rng), b = rand_vec<3>(rng);
        expect_vec<3>(wp::skew(a) * b, ev(a).cross(ev(b)));
    }
}

TEST(Constructors, Spellings) {
    using V3f = wp::vec_t<3, float>;
    using V3d = wp::vec_t<3, double>;
    using V2f = wp::vec_t<2, float>;
    using V2i = wp::vec_t<2, int>;
    using M22f = wp::mat_t<2, 2, float>;
    const V3f z;
    EXPECT_EQ(z, V3f(0.0f, 0.0f, 0.0f));
    EXPECT_EQ(V3f(2.0f), V3f(2, 2, 2));
    EXPECT_EQ(V3d(V3f(1.5f, 2, 3)), V3d(1.5, 2, 3));
    EXPECT_EQ(V2i(V2f(1.7f, -1.7f)), V2i(1, -1));
    const M22f m(1, 2, 3, 4);
    EXPECT_EQ(m(0, 1), 2.0f);
    EXPECT_EQ(m[1][0], 3.0f);
    EXPECT_EQ(M22f(V2f(1, 2), V2f(3, 4)), m);
    EXPECT_EQ(wp::matrix_from_rows(V2f(1, 2), V2f(3, 4)), m);
    EXPECT_EQ(wp::matrix_from_cols(V2f(1, 3), V2f(2, 4)), m);
    EXPECT_EQ(M22f(), M22f(0.0f));
    EXPECT_EQ(sizeof(V3f), 12u);
    EXPECT_EQ(sizeof(wp::mat_t<3, 3, double>), 72u);
    EXPECT_EQ(sizeof(wp::quat_t<float>), 16u);
    EXPECT_EQ(sizeof(wp::transform_t<float>), 28u);
    EXPECT_EQ(sizeof(wp::float16), 2u);
    EXPECT_TRUE(std::is_trivially_copyable_v<wp::transform_t<double>>);
    EXPECT_TRUE(std::is_standard_layout_v<M22f>);
    using Tup = wp::tuple_t<V3f, float, int>;
    Tup t{V3f(1, 2, 3), 4.0f, 5};
    EXPECT_EQ(t.get<0>()[2], 3.0f);
    EXPECT_EQ(t.template get<1>(), 4.0f);
    EXPECT_EQ(wp::get<2>(t), 5);
    EXPECT_EQ(sizeof(t), 20u);
}
