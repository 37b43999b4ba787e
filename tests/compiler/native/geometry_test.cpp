// Quaternions, transforms and spatial algebra of compiler/native against Eigen (float64) and
// against Featherstone's 6x6 cross-product matrices.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <random>

#include "weft_native.h"

namespace {

using V3 = wp::vec_t<3, double>;
using Q = wp::quat_t<double>;

Q rand_quat(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    return wp::normalize(Q(u(rng), u(rng), u(rng), u(rng)));
}
V3 rand_v3(std::mt19937& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    return V3(u(rng), u(rng), u(rng));
}
Eigen::Quaterniond eq(const Q& q) { return Eigen::Quaterniond(q.w, q.x, q.y, q.z); }
Eigen::Vector3d ev(const V3& v) { return {v[0], v[1], v[2]}; }
void expect_v3(const V3& a, const Eigen::Vector3d& b, double tol = 1e-12) {
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(a[i], b(i), tol) << i;
}
void expect_q(const Q& a, const Eigen::Quaterniond& b, double tol = 1e-12) {
    EXPECT_NEAR(a.x, b.x(), tol);
    EXPECT_NEAR(a.y, b.y(), tol);
    EXPECT_NEAR(a.z, b.z(), tol);
    EXPECT_NEAR(a.w, b.w(), tol);
}

}  // namespace

TEST(Quaternions, MatchEigen) {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 50; ++trial) {
        const Q a = rand_quat(rng), b = rand_quat(rng);
        const V3 v = rand_v3(rng);
        expect_q(a * b, eq(a) * eq(b));
        expect_v3(wp::quat_rotate(a, v), eq(a) * ev(v));
        expect_v3(wp::quat_rotate_inv(a, v), eq(a).conjugate() * ev(v));
        expect_q(wp::quat_inverse(a), eq(a).inverse());
        const auto m = wp::quat_to_matrix(a);
        const Eigen::Matrix3d r = eq(a).toRotationMatrix();
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) EXPECT_NEAR(m(i, j), r(i, j), 1e-12);
        // From a matrix: the same rotation, up to the sign of q.
        const Q back = wp::quat_from_matrix(m);
        const double sgn = wp::dot(back, a) < 0 ? -1 : 1;
        expect_q(back * sgn, eq(a), 1e-10);
        // Axis-angle against Eigen's AngleAxis.
        const V3 axis = wp::normalize(v);
        const double angle = 2.5 * (trial + 1) / 50.0;
        expect_q(wp::quat_from_axis_angle(axis, angle), Eigen::Quaterniond(Eigen::AngleAxisd(angle, ev(axis))));
        const auto aa = wp::quat_to_axis_angle(a);
        const Eigen::AngleAxisd ref(eq(a));
        const double ra = ref.angle() > M_PI ? 2 * M_PI - ref.angle() : ref.angle();
        EXPECT_NEAR(aa.get<1>(), ra, 1e-10);
        const Q rebuilt = wp::quat_from_axis_angle(aa.get<0>(), aa.get<1>());
        expect_q(rebuilt * (wp::dot(rebuilt, a) < 0 ? -1.0 : 1.0), eq(a), 1e-10);
        // Slerp: Eigen's also takes the shorter arc.
        for (double t : {0.0, 0.3, 0.8, 1.0}) {
            const Q s = wp::quat_slerp(a, b, t);
            const Eigen::Quaterniond es = eq(a).slerp(t, eq(b));
            const double ss = wp::dot(s, Q(es.x(), es.y(), es.z(), es.w())) < 0 ? -1 : 1;
            expect_q(s * ss, es, 1e-10);
        }
    }
    EXPECT_EQ(wp::quat_identity<float>(), wp::quat_t<float>(0, 0, 0, 1));
    EXPECT_EQ(wp::quat_t<double>(V3(1, 2, 3), 4.0), Q(1, 2, 3, 4));
}

TEST(Transforms, MatchEigenIsometry) {
    std::mt19937 rng(4);
    for (int trial = 0; trial < 50; ++trial) {
        const wp::transform_t<double> a(rand_v3(rng), rand_quat(rng)), b(rand_v3(rng), rand_quat(rng));
        auto iso = [](const wp::transform_t<double>& t) {
            Eigen::Isometry3d e = Eigen::Isometry3d::Identity();
            e.translate(ev(t.p));
            e.rotate(eq(t.q));
            return e;
        };
        const V3 x = rand_v3(rng);
        expect_v3(wp::transform_point(a, x), iso(a) * ev(x));
        expect_v3(wp::transform_vector(a, x), iso(a).linear() * ev(x));
        const auto ab = wp::transform_multiply(a, b);
        expect_v3(wp::transform_point(ab, x), iso(a) * (iso(b) * ev(x)));
        expect_v3(wp::transform_point(a * b, x), iso(a) * (iso(b) * ev(x)));
        const auto ai = wp::transform_inverse(a);
        expect_v3(wp::transform_point(ai, x), iso(a).inverse() * ev(x));
        expect_v3(wp::transform_get_translation(a), ev(a.p));
        EXPECT_EQ(wp::transform_get_rotation(a), a.q);
        // The homogeneous-matrix forms.
        wp::mat_t<4, 4, double> m;
        const Eigen::Matrix4d em = iso(a).matrix();
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) m(i, j) = em(i, j);
        expect_v3(wp::transform_point(m, x), iso(a) * ev(x));
        expect_v3(wp::transform_vector(m, x), iso(a).linear() * ev(x));
    }
    const auto id = wp::transform_identity<double>();
    EXPECT_EQ(id.q, Q(0, 0, 0, 1));
    EXPECT_EQ(id.p, V3());
}

TEST(Spatial, MatchesFeatherstoneMatrices) {
    std::mt19937 rng(5);
    auto skew = [](const Eigen::Vector3d& v) {
        Eigen::Matrix3d s;
        s << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
        return s;
    };
    for (int trial = 0; trial < 20; ++trial) {
        const V3 w = rand_v3(rng), v = rand_v3(rng), w2 = rand_v3(rng), v2 = rand_v3(rng);
        const auto a = wp::spatial_vector(w, v), b = wp::spatial_vector(w2, v2);
        Eigen::Matrix<double, 6, 1> eb;
        for (int i = 0; i < 6; ++i) eb(i) = b[i];
        Eigen::Matrix<double, 6, 6> crm = Eigen::Matrix<double, 6, 6>::Zero();
        crm.topLeftCorner<3, 3>() = skew(ev(w));
        crm.bottomLeftCorner<3, 3>() = skew(ev(v));
        crm.bottomRightCorner<3, 3>() = skew(ev(w));
        const Eigen::Matrix<double, 6, 6> crf = -crm.transpose();
        const Eigen::Matrix<double, 6, 1> m = crm * eb, f = crf * eb;
        const auto sc = wp::spatial_cross(a, b), scd = wp::spatial_cross_dual(a, b);
        for (int i = 0; i < 6; ++i) {
            EXPECT_NEAR(sc[i], m(i), 1e-12);
            EXPECT_NEAR(scd[i], f(i), 1e-12);
        }
        EXPECT_NEAR(wp::spatial_dot(a, b), wp::dot(w, w2) + wp::dot(v, v2), 1e-14);
        EXPECT_EQ(wp::spatial_top(a), w);
        EXPECT_EQ(wp::spatial_bottom(a), v);
    }
}
