// Forward and inverse kinematics of articulations (engine/kinematics.h, kernels/articulation.py):
// body poses against a host computation in double precision with Eigen, body velocities against
// central differences of the poses in time, eval_ik inverting eval_fk, masks, the articulation
// order check, a chain placed by eval_fk held by its joints without stretch, and every message.
#include <Eigen/Dense>
#include <cmath>

#include "engine/kinematics.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;
using Xform = ModelBuilder::Xform;
using Iso = Eigen::Isometry3d;

Iso iso(const Xform& x) {
    Iso t = Iso::Identity();
    t.translation() = x.p.cast<double>();
    t.linear() = x.q.cast<double>().normalized().toRotationMatrix();
    return t;
}

// A free root, then a revolute, a prismatic and a ball joint in a chain, each body with a shape
// whose offset gives it a centre of mass away from its frame.
ModelBuilder tree() {
    ModelBuilder b(0.0f);
    b.ground = false;
    b.add_articulation();
    for (int k = 0; k < 4; ++k) {
        int body = b.add_body(Vec3(float(k), 0, 0));
        b.add_shape_box(body, Vec3(0.05f * float(k + 1), 0.02f, 0), Quat::Identity(), 0.1f, 0.05f, 0.04f);
    }
    Quat tilt(Eigen::AngleAxisf(0.3f, Vec3(1, 1, 0).normalized()));
    b.add_joint_free(0, {Vec3(0, 1, 0), tilt});
    JointAxisDef z;
    z.axis = Vec3(0, 0.6f, 0.8f);
    b.add_joint_revolute(0, 1, {Vec3(0.3f, 0, 0), tilt}, {Vec3(-0.2f, 0.1f, 0), Quat::Identity()}, z);
    JointAxisDef x;
    x.axis = Vec3(1, 0, 0);
    b.add_joint_prismatic(1, 2, {Vec3(0.25f, 0, 0.1f), Quat::Identity()}, {Vec3(-0.2f, 0, 0), tilt}, x);
    b.add_joint_ball(2, 3, {Vec3(0.2f, 0, 0), Quat::Identity()}, {Vec3(-0.1f, 0, 0), Quat::Identity()});
    return b;
}

std::vector<float> coords(double t) {
    Eigen::Quaterniond root(Eigen::AngleAxisd(0.7 + 0.5 * t, Eigen::Vector3d(0.2, 1, -0.3).normalized()));
    Eigen::Quaterniond ball(Eigen::AngleAxisd(-0.4 + 0.9 * t, Eigen::Vector3d(1, -0.5, 0.4).normalized()));
    return {float(0.1 + 0.3 * t), float(1.2 - 0.2 * t), float(-0.3 + t),      float(root.x()),       float(root.y()),
            float(root.z()),      float(root.w()),      float(0.8 - 1.1 * t), float(0.15 + 0.4 * t), float(ball.x()),
            float(ball.y()),      float(ball.z()),      float(ball.w())};
}

Array upload(const std::vector<float>& v) {
    Array a = Array::empty(compiler::float32_type(), {int64_t(v.size())}, runtime::Device{});
    a.copy_from_host(v.data(), v.size() * sizeof(float));
    return a;
}

std::vector<Iso> poses(const State& s) {
    std::vector<float> q(size_t(s.body_count) * 7);
    s.body_q.copy_to_host(q.data(), q.size() * sizeof(float));
    std::vector<Iso> out;
    for (int b = 0; b < s.body_count; ++b) {
        const float* t = &q[size_t(7 * b)];
        out.push_back(iso({Vec3(t[0], t[1], t[2]), Quat(t[6], t[3], t[4], t[5])}));
    }
    return out;
}

TEST(Kinematics, ForwardPosesMatchAHostComposition) {
    REQUIRE_CPU();
    ModelBuilder b = tree();
    b.joint_q = coords(0.0);
    Model m = b.finalize("cpu");
    ASSERT_EQ(m.joint_coord_count, 13);
    ASSERT_EQ(m.joint_dof_count, 6 + 1 + 1 + 3);
    ASSERT_EQ(m.articulation_count, 1);
    State s = m.state();
    eval_fk(m, m.joint_q, m.joint_qd, s);
    // The host composition X_wc = X_wp * X_p * X_j(q) * X_c^-1, in double precision.
    std::vector<float> q = coords(0.0);
    std::vector<Iso> want(4);
    for (int j = 0; j < 4; ++j) {
        Iso X_wp = b.joint_parent[size_t(j)] >= 0 ? want[size_t(b.joint_parent[size_t(j)])] : Iso::Identity();
        auto xf = [](const std::array<float, 7>& t) { return iso({Vec3(t[0], t[1], t[2]), Quat(t[6], t[3], t[4], t[5])}); };
        Iso X_j = Iso::Identity();
        const int qs = b.joint_q_start(j);
        const Eigen::Vector3d axis = b.joint_axis[size_t(j)].cast<double>();
        if (b.joint_type[size_t(j)] == JOINT_FREE) {
            X_j.translation() = Eigen::Vector3d(q[0], q[1], q[2]);
            X_j.linear() = Eigen::Quaterniond(q[6], q[3], q[4], q[5]).normalized().toRotationMatrix();
        } else if (b.joint_type[size_t(j)] == JOINT_REVOLUTE) {
            X_j.linear() = Eigen::AngleAxisd(q[size_t(qs)], axis).toRotationMatrix();
        } else if (b.joint_type[size_t(j)] == JOINT_PRISMATIC) {
            X_j.translation() = axis * q[size_t(qs)];
        } else {
            X_j.linear() = Eigen::Quaterniond(q[size_t(qs + 3)], q[size_t(qs)], q[size_t(qs + 1)], q[size_t(qs + 2)])
                               .normalized()
                               .toRotationMatrix();
        }
        want[size_t(b.joint_child[size_t(j)])] = X_wp * xf(b.joint_X_p[size_t(j)]) * X_j * xf(b.joint_X_c[size_t(j)]).inverse();
    }
    std::vector<Iso> got = poses(s);
    for (int k = 0; k < 4; ++k) {
        EXPECT_LT((got[size_t(k)].translation() - want[size_t(k)].translation()).norm(), 2e-6) << "body " << k;
        EXPECT_LT((got[size_t(k)].linear() - want[size_t(k)].linear()).norm(), 2e-6) << "body " << k;
    }
}

// body_qd from eval_fk at (q(t), dq/dt) against central differences of the poses from eval_fk at
// q(t +- h): the centre of mass's velocity and the angular velocity (from dR/dt R^T).
TEST(Kinematics, ForwardVelocitiesAreTheTimeDerivativesOfThePoses) {
    REQUIRE_CPU();
    ModelBuilder b = tree();
    Model m = b.finalize("cpu");
    const double h = 1e-3;
    auto at = [&](double t) {
        State s = m.state();
        eval_fk(m, upload(coords(t)), m.joint_qd, s);
        return poses(s);
    };
    // dq/dt as joint velocities: the free root's angular velocity in its parent frame and the
    // velocity of its origin; the ball's relative angular velocity in its parent's joint frame.
    std::vector<float> q0 = coords(0.0);
    Eigen::Vector3d root_axis = Eigen::Vector3d(0.2, 1, -0.3).normalized() * 0.5;
    Eigen::Vector3d ball_axis = Eigen::Vector3d(1, -0.5, 0.4).normalized() * 0.9;
    std::vector<float> qd = {float(root_axis.x()), float(root_axis.y()), float(root_axis.z()), 0.3f, -0.2f, 1.0f, -1.1f, 0.4f,
                             float(ball_axis.x()), float(ball_axis.y()), float(ball_axis.z())};
    State s = m.state();
    eval_fk(m, upload(q0), upload(qd), s);
    std::vector<float> v(size_t(m.body_count) * 6);
    s.body_qd.copy_to_host(v.data(), v.size() * sizeof(float));
    std::vector<Iso> lo = at(-h), hi = at(h);
    for (int k = 0; k < 4; ++k) {
        const Eigen::Vector3d com = b.body_mass[size_t(k)].com;
        Eigen::Vector3d v_fd = (hi[size_t(k)] * com - lo[size_t(k)] * com) / (2 * h);
        Eigen::Matrix3d dR = (hi[size_t(k)].linear() - lo[size_t(k)].linear()) / (2 * h);
        Eigen::Matrix3d W = dR * at(0.0)[size_t(k)].linear().transpose();
        Eigen::Vector3d w_fd(W(2, 1), W(0, 2), W(1, 0));
        Eigen::Vector3d w(v[size_t(6 * k)], v[size_t(6 * k + 1)], v[size_t(6 * k + 2)]);
        Eigen::Vector3d vc(v[size_t(6 * k + 3)], v[size_t(6 * k + 4)], v[size_t(6 * k + 5)]);
        EXPECT_LT((w - w_fd).norm(), 2e-3 * (1 + w_fd.norm()))
            << "body " << k << ": " << w.transpose() << " vs " << w_fd.transpose();
        EXPECT_LT((vc - v_fd).norm(), 2e-3 * (1 + v_fd.norm()))
            << "body " << k << ": " << vc.transpose() << " vs " << v_fd.transpose();
    }
}

TEST(Kinematics, InverseRecoversTheCoordinates) {
    REQUIRE_CPU();
    Model m = tree().finalize("cpu");
    std::vector<float> q = coords(0.3);
    std::vector<float> qd = {0.5f, -0.2f, 0.1f, 1.0f, 0.0f, -0.5f, 2.0f, -0.7f, 0.3f, 0.2f, -0.9f};
    State s = m.state();
    eval_fk(m, upload(q), upload(qd), s);
    Array q2 = Array::zeros(compiler::float32_type(), {m.joint_coord_count}, m.device);
    Array qd2 = Array::zeros(compiler::float32_type(), {m.joint_dof_count}, m.device);
    eval_ik(m, s, q2, qd2);
    std::vector<float> gq(q.size()), gqd(qd.size());
    q2.copy_to_host(gq.data(), gq.size() * sizeof(float));
    qd2.copy_to_host(gqd.data(), gqd.size() * sizeof(float));
    for (size_t k = 0; k < q.size(); ++k) EXPECT_NEAR(gq[k], q[k], 2e-5) << "joint_q[" << k << "]";
    for (size_t k = 0; k < qd.size(); ++k) EXPECT_NEAR(gqd[k], qd[k], 2e-5) << "joint_qd[" << k << "]";
}

TEST(Kinematics, MaskSkipsArticulations) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    for (int a = 0; a < 2; ++a) {
        b.add_articulation();
        int body = b.add_body(Vec3(float(a), 5, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.1f);
        JointAxisDef y;
        y.axis = Vec3::UnitY();
        b.add_joint_prismatic(-1, body, {Vec3(float(a), 0, 0), Quat::Identity()}, {}, y);
    }
    b.joint_q = {1.0f, 2.0f};
    Model m = b.finalize("cpu");
    EXPECT_EQ(m.articulation_count, 2);
    State s = m.state();
    std::vector<int> on = {0, 1};
    Array mask = Array::empty(compiler::int32_type(), {2}, m.device);
    mask.copy_from_host(on.data(), sizeof(int) * 2);
    eval_fk(m, m.joint_q, m.joint_qd, s, &mask);
    std::vector<Iso> p = poses(s);
    EXPECT_NEAR(p[0].translation().y(), 5.0, 1e-6);  // skipped: kept its pose
    EXPECT_NEAR(p[1].translation().y(), 2.0, 1e-6);
}

// A chain posed by eval_fk at angles far from the builder's straight line: the joints hold it
// there, so one step without gravity leaves every body where it was.
TEST(Kinematics, APosedChainIsHeldByItsJoints) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    b.joint_attach_ke = 1.0e4f;
    int parent = -1;
    for (int k = 0; k < 3; ++k) {
        int body = b.add_body(Vec3(0.4f * float(k), 0, 0));
        b.add_shape_capsule(body, Vec3::Zero(), Quat::Identity(), 0.03f, 0.1f);
        JointAxisDef z;
        z.axis = Vec3::UnitZ();
        b.add_joint_revolute(parent, body, {Vec3(parent < 0 ? 0.0f : 0.2f, 0, 0), Quat::Identity()},
                             {Vec3(-0.2f, 0, 0), Quat::Identity()}, z);
        parent = body;
    }
    b.joint_q = {0.5f, -1.0f, 0.7f};
    Model m = b.finalize("cpu");
    State s0 = m.state(), s1 = m.state();
    eval_fk(m, m.joint_q, m.joint_qd, s0);
    SemiImplicitIntegrator it;
    it.simulate(m, s0, s1, 1e-3f);
    std::vector<Iso> a = poses(s0), c = poses(s1);
    for (int k = 0; k < 3; ++k) EXPECT_LT((a[size_t(k)].translation() - c[size_t(k)].translation()).norm(), 1e-6);
    std::vector<float> f(18);
    s1.body_f.copy_to_host(f.data(), f.size() * sizeof(float));
    for (float x : f) EXPECT_NEAR(x, 0.0f, 5e-3f);
}

TEST(Kinematics, MistakesAreNamed) {
    REQUIRE_CPU();
    Model m = tree().finalize("cpu");
    State s = m.state();
    Array short_q = Array::zeros(compiler::float32_type(), {3}, m.device);
    EXPECT_EQ(message_of([&] { eval_fk(m, short_q, m.joint_qd, s); }),
              "eval_fk: joint_q must be a float32 array of 13 entries (the model's joints have 13), got " + short_q.describe());
    Array ints = Array::zeros(compiler::int32_type(), {11}, m.device);
    EXPECT_EQ(message_of([&] { eval_ik(m, s, m.joint_q, ints); }),
              "eval_ik: joint_qd must be a float32 array of 11 entries (the model's joints have 11), got " + ints.describe());
    {
        tape::Tape t;
        runtime::ScopedRecorder rec(&t);
        EXPECT_EQ(
            message_of([&] { eval_fk(m, m.joint_q, m.joint_qd, s); }),
            "eval_fk: not differentiable yet, and a Tape is recording; call it before recording (or use eval_ik, which is)");
    }
    // A child joint added before its parent's joint.
    ModelBuilder b;
    int a = b.add_body(), c = b.add_body();
    b.add_joint_ball(a, c, {}, {}, true, 0.01f, "wrist");
    b.add_joint_ball(-1, a, {}, {}, true, 0.01f, "shoulder");
    EXPECT_EQ(message_of([&] { b.finalize("cpu"); }),
              "finalize: joint 'wrist' has parent body 0, whose own joint 'shoulder' comes later; add a tree's joints parent "
              "first, in one articulation");
    ModelBuilder w = tree();
    w.joint_q.pop_back();
    EXPECT_EQ(message_of([&] { w.finalize("cpu"); }),
              "finalize: joint_q has 12 entries and joint_qd 11; the joints have 13 and 11");
}

}  // namespace
