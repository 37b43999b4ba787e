// Forward and inverse kinematics of the joints of several axes (universal, compound, D6;
// kernels/articulation.py angular_fk / angular_ik): body poses from eval_fk at random coordinates
// against a host composition in double precision (Eigen AngleAxis products), eval_ik(eval_fk(q,
// qd)) == (q, qd), and the child's angular velocity against central differences of its poses.
#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "engine/kinematics.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;
using Xform = ModelBuilder::Xform;
using Iso = Eigen::Isometry3d;

Iso iso(const std::array<float, 7>& t) {
    Iso x = Iso::Identity();
    x.translation() = Eigen::Vector3d(t[0], t[1], t[2]);
    x.linear() = Eigen::Quaterniond(t[6], t[3], t[4], t[5]).normalized().toRotationMatrix();
    return x;
}

JointAxisDef along(const Vec3& a) {
    JointAxisDef d;
    d.axis = a;
    return d;
}

// A chain of five bodies from the world: universal (tilted axes), compound (z, x, y), D6 with two
// linear and three angular axes (the third left-handed: -(a0 x a1)), D6 with one linear and two
// angular, D6 with one angular; joint frames tilted and offset.
ModelBuilder chain() {
    ModelBuilder b(0.0f);
    b.ground = false;
    for (int k = 0; k < 5; ++k) {
        int body = b.add_body(Vec3(float(k), 0, 0));
        b.add_shape_box(body, Vec3(0.03f * float(k + 1), -0.02f, 0.01f), Quat::Identity(), 0.1f, 0.05f, 0.04f);
    }
    const Quat tilt(Eigen::AngleAxisf(0.4f, Vec3(1, -1, 0.5f).normalized()));
    const Quat tilt2(Eigen::AngleAxisf(-0.7f, Vec3(0.2f, 1, 0.3f).normalized()));
    const Vec3 u0 = Vec3(0, 0.6f, 0.8f), u1 = Vec3(1, 0, 0);
    b.add_joint_universal(-1, 0, {Vec3(0, 1, 0), tilt}, {Vec3(-0.2f, 0.1f, 0), tilt2}, along(u0), along(u1));
    b.add_joint_compound(0, 1, {Vec3(0.3f, 0, 0.1f), tilt2}, {Vec3(-0.2f, 0, 0), Quat::Identity()}, along(Vec3::UnitZ()),
                         along(Vec3::UnitX()), along(Vec3::UnitY()));
    const Vec3 r0 = tilt * Vec3::UnitX(), r1 = tilt * Vec3::UnitY(), r2 = tilt * Vec3::UnitZ();
    b.add_joint_d6(1, 2, {Vec3(0.25f, 0, 0), Quat::Identity()}, {Vec3(-0.1f, 0.05f, 0), tilt},
                   {along(Vec3::UnitY()), along(Vec3::UnitZ())}, {along(r1), along(r0), along(r2)});
    b.add_joint_d6(2, 3, {Vec3(0.2f, 0, 0), tilt}, {Vec3(-0.1f, 0, 0), Quat::Identity()}, {along(r2)},
                   {along(Vec3::UnitX()), along(Vec3::UnitY())});
    b.add_joint_d6(3, 4, {Vec3(0.2f, 0.1f, 0), Quat::Identity()}, {Vec3(-0.1f, 0, 0), tilt2}, {}, {along(u0)});
    return b;
}

// The joint's transform X_j(q) in double precision: the translation sum(q_k l_k), then the
// rotation AngleAxis(a0, q0) AngleAxis(a1, q1) AngleAxis(a2, q2).
Iso joint_transform(const ModelBuilder& b, int j, const std::vector<float>& q) {
    const int qs = b.joint_q_start(j), a = b.joint_axis_start[size_t(j)];
    const int nl = b.joint_axis_dim[size_t(j)][0], na = b.joint_axis_dim[size_t(j)][1];
    Iso X = Iso::Identity();
    for (int k = 0; k < nl; ++k) X.translation() += b.joint_axis[size_t(a + k)].cast<double>() * double(q[size_t(qs + k)]);
    Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
    for (int k = 0; k < na; ++k)
        R = R *
            Eigen::AngleAxisd(double(q[size_t(qs + nl + k)]), b.joint_axis[size_t(a + nl + k)].cast<double>()).toRotationMatrix();
    X.linear() = R;
    return X;
}

Array upload(const std::vector<float>& v) {
    Array a = Array::empty(compiler::float32_type(), {int64_t(v.size())}, runtime::Device{});
    a.copy_from_host(v.data(), v.size() * sizeof(float));
    return a;
}

std::vector<float> download(const Array& a, size_t n) {
    std::vector<float> v(n);
    a.copy_to_host(v.data(), n * sizeof(float));
    return v;
}

std::vector<float> random_coordinates(std::mt19937& rng, size_t n, float amplitude) {
    std::uniform_real_distribution<float> u(-amplitude, amplitude);
    std::vector<float> q(n);
    for (float& v : q) v = u(rng);
    return q;
}

TEST(JointAxesKinematics, ForwardPosesMatchEigenAndInverseKinematicsRecoversTheCoordinates) {
    REQUIRE_CPU();
    ModelBuilder b = chain();
    Model m = b.finalize("cpu");
    ASSERT_EQ(m.joint_coord_count, 2 + 3 + 5 + 3 + 1);
    ASSERT_EQ(m.joint_dof_count, m.joint_coord_count);
    ASSERT_EQ(m.joint_axis_count, m.joint_coord_count);
    std::mt19937 rng(17);
    double worst_pose = 0, worst_q = 0, worst_qd = 0;
    for (int trial = 0; trial < 20; ++trial) {
        // Angles within +-1.2 rad: the middle angle of a decomposition stays clear of +-pi/2.
        std::vector<float> q = random_coordinates(rng, size_t(m.joint_coord_count), 1.2f);
        std::vector<float> qd = random_coordinates(rng, size_t(m.joint_dof_count), 2.0f);
        State s = m.state();
        eval_fk(m, upload(q), upload(qd), s);
        std::vector<Iso> want(5);
        for (int j = 0; j < b.joint_count(); ++j) {
            const int p = b.joint_parent[size_t(j)];
            const Iso X_wp = p >= 0 ? want[size_t(p)] : Iso::Identity();
            want[size_t(b.joint_child[size_t(j)])] =
                X_wp * iso(b.joint_X_p[size_t(j)]) * joint_transform(b, j, q) * iso(b.joint_X_c[size_t(j)]).inverse();
        }
        auto got = bodies_of(s);
        for (int k = 0; k < 5; ++k) {
            worst_pose = std::max(worst_pose, (got[size_t(k)].p - want[size_t(k)].translation()).norm());
            worst_pose = std::max(worst_pose, (got[size_t(k)].q.toRotationMatrix() - want[size_t(k)].linear()).norm());
        }
        Array q_back = upload(std::vector<float>(q.size(), 0.0f)), qd_back = upload(std::vector<float>(qd.size(), 0.0f));
        eval_ik(m, s, q_back, qd_back);
        std::vector<float> q2 = download(q_back, q.size()), qd2 = download(qd_back, qd.size());
        for (size_t k = 0; k < q.size(); ++k) {
            worst_q = std::max(worst_q, double(std::abs(q2[k] - q[k])));
            worst_qd = std::max(worst_qd, double(std::abs(qd2[k] - qd[k])));
        }
    }
    printf("20 random coordinate sets: largest pose error %.2e, ik(fk(q)) - q %.2e rad or m, qd %.2e\n", worst_pose, worst_q,
           worst_qd);
    EXPECT_LT(worst_pose, 1e-5);
    EXPECT_LT(worst_q, 2e-5);
    EXPECT_LT(worst_qd, 2e-4);
}

// The angular velocity eval_fk gives the last compound and universal bodies at (q, qd) against
// dR/dt R^T from the poses at q +- h qd.
TEST(JointAxesKinematics, ForwardAngularVelocitiesAreTheTimeDerivativesOfThePoses) {
    REQUIRE_CPU();
    Model m = chain().finalize("cpu");
    std::mt19937 rng(5);
    std::vector<float> q = random_coordinates(rng, size_t(m.joint_coord_count), 1.0f);
    std::vector<float> qd = random_coordinates(rng, size_t(m.joint_dof_count), 1.0f);
    const double h = 1e-3;
    auto poses_at = [&](double t) {
        std::vector<float> qt(q.size());
        for (size_t k = 0; k < q.size(); ++k) qt[k] = float(q[k] + t * qd[k]);
        State s = m.state();
        eval_fk(m, upload(qt), upload(qd), s);
        return bodies_of(s);
    };
    auto now = poses_at(0), ahead = poses_at(h), behind = poses_at(-h);
    for (size_t k = 0; k < now.size(); ++k) {
        Eigen::Matrix3d dR = (ahead[k].q.toRotationMatrix() - behind[k].q.toRotationMatrix()) / (2 * h);
        Eigen::Matrix3d W = dR * now[k].q.toRotationMatrix().transpose();
        Eigen::Vector3d w(0.5 * (W(2, 1) - W(1, 2)), 0.5 * (W(0, 2) - W(2, 0)), 0.5 * (W(1, 0) - W(0, 1)));
        EXPECT_LT((now[k].w - w).norm(), 2e-3 * (1 + w.norm())) << "body " << k;
    }
}

}  // namespace
