// tests/engine/mjcf_pendulum_test.cpp: an imported MJCF double pendulum
// (tests/engine/data/double_pendulum.xml) simulated by the semi-implicit integrator's joints:
// its energy against its initial energy, and its swing against MuJoCo 2.2.2 (RK4, same file,
// where libmujoco-dev is installed; skipped with a message otherwise); and two pendulums whose
// bodies have two and three hinges (universal and compound joints, hinge_pair_pendulums.xml)
// against MuJoCo the same way.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstdio>

#include "engine/mjcf_import.h"
#include "tests/engine/engine_test_util.h"

#if WEFT_HAS_MUJOCO
#include <mujoco/mujoco.h>
#endif

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

namespace {

const std::string kFile = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/double_pendulum.xml";
constexpr float kDt = 1.0e-4f;
constexpr int kSteps = 10000;  // 1 s

struct Pose {
    Eigen::Vector3d p;
    Eigen::Quaterniond q;
    Eigen::Vector3d w, v;
};

std::vector<Pose> poses(const State& s) {
    std::vector<float> q(size_t(s.body_count) * 7), qd(size_t(s.body_count) * 6);
    s.body_q.copy_to_host(q.data(), q.size() * sizeof(float));
    s.body_qd.copy_to_host(qd.data(), qd.size() * sizeof(float));
    std::vector<Pose> out;
    for (int b = 0; b < s.body_count; ++b) {
        const float* t = &q[size_t(7 * b)];
        const float* d = &qd[size_t(6 * b)];
        out.push_back({Eigen::Vector3d(t[0], t[1], t[2]), Eigen::Quaterniond(t[6], t[3], t[4], t[5]),
                       Eigen::Vector3d(d[0], d[1], d[2]), Eigen::Vector3d(d[3], d[4], d[5])});
    }
    return out;
}

// A model as the tests run it: the file's frame kept (up_axis Y), free hinges. The joints'
// attachment springs hold the links within m g / ke = 1.2 mm; their stiffness and damping are
// bounded by the explicit step on the capsules' small axial inertia (5e-4 kg m^2): sqrt(ke / I) dt
// = 0.45 and kd dt / I = 0.2 at ke 1e4, kd 1 (1e5 and Warp's kd 1e2 diverge).
ModelBuilder imported(const std::string& file) {
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 1.0e4f;
    b.joint_attach_kd = 1.0f;
    ImportOptions o;
    o.up_axis = "Y";
    o.stiffness = 0.0f;
    o.damping = 0.0f;
    parse_mjcf(file, b, o);
    return b;
}
ModelBuilder imported() { return imported(kFile); }

// Kinetic plus potential energy (J) from the builder's mass properties and a state.
double energy(const ModelBuilder& b, const std::vector<Pose>& s) {
    double e = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        const MassProperties& mp = b.body_mass[i];
        const Eigen::Matrix3d R = s[i].q.toRotationMatrix();
        const Eigen::Vector3d com = s[i].p + R * mp.com;
        const Eigen::Matrix3d I = R * mp.inertia * R.transpose();
        e += 0.5 * mp.mass * s[i].v.squaredNorm() + 0.5 * s[i].w.dot(I * s[i].w) - mp.mass * b.gravity.cast<double>().dot(com);
    }
    return e;
}

}  // namespace

TEST(MjcfPendulum, ImportedDoublePendulumKeepsItsEnergy) {
    REQUIRE_CPU();
    ModelBuilder b = imported();
    ASSERT_EQ(b.body_count(), 2);
    ASSERT_EQ(b.joint_count(), 2);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    State s0 = m.state();
    const double e0 = energy(b, poses(s0));
    double worst = 0, swing = 0, kinetic = 0;
    rollout(m, it, kSteps, kDt, [&](int, const State& s) {
        auto p = poses(s);
        double k = 0;
        for (size_t i = 0; i < p.size(); ++i) {
            const Eigen::Matrix3d R = p[i].q.toRotationMatrix();
            k += 0.5 * b.body_mass[i].mass * p[i].v.squaredNorm() +
                 0.5 * p[i].w.dot(R * b.body_mass[i].inertia * R.transpose() * p[i].w);
        }
        kinetic = std::max(kinetic, k);
        const double e = energy(b, p);
        worst = std::isfinite(e) ? std::max(worst, std::abs(e - e0)) : INFINITY;
        swing = std::max(swing, p[1].v.norm());
    });
    // The joints' attachment springs store and damp energy (kd = 1) and the step is explicit: the
    // total changes by 12% of the swing's largest kinetic energy over 1 s (measured 0.163 J of
    // 1.319 J); the bound, 15%, catches a wrong mass, gravity or joint frame and any blow-up. The
    // swing itself is checked against MuJoCo below.
    std::printf("energy: initial %.6f J, largest change %.3e J, largest kinetic energy %.3f J, fastest lower link %.3f m/s\n", e0,
                worst, kinetic, swing);
    EXPECT_GT(swing, 0.5);  // it swings
    EXPECT_LT(worst, 0.15 * kinetic);
}

TEST(MjcfPendulum, SwingMatchesMujoco) {
#if WEFT_HAS_MUJOCO
    REQUIRE_CPU();
    char err[1000] = "";
    mjModel* mj = mj_loadXML(kFile.c_str(), nullptr, err, sizeof err);
    ASSERT_NE(mj, nullptr) << err;
    mj->opt.integrator = mjINT_RK4;
    mj->opt.timestep = kDt;
    mjData* d = mj_makeData(mj);

    ModelBuilder b = imported();
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    double worst = 0;
    rollout(m, it, kSteps, kDt, [&](int step, const State& s) {
        mj_step(mj, d);
        if (step % 50) return;
        auto p = poses(s);
        for (int i = 0; i < 2; ++i) {
            // The tip of each link (0.4 m along its -z) in the world.
            const Eigen::Vector3d tip_w = p[size_t(i)].p + p[size_t(i)].q * Eigen::Vector3d(0, 0, -0.4);
            Eigen::Matrix3d R;
            for (int k = 0; k < 9; ++k) R(k / 3, k % 3) = d->xmat[9 * (i + 1) + k];
            const Eigen::Vector3d x(d->xpos[3 * (i + 1)], d->xpos[3 * (i + 1) + 1], d->xpos[3 * (i + 1) + 2]);
            const Eigen::Vector3d tip_m = x + R * Eigen::Vector3d(0, 0, -0.4);
            const double dist = (tip_w - tip_m).norm();
            worst = std::isfinite(dist) ? std::max(worst, dist) : INFINITY;
        }
    });
    std::printf("double pendulum, 1 s: largest link-tip distance Weft vs MuJoCo %.3e m (angles %.4f rad, %.4f rad at the end)\n",
                worst, d->qpos[0], d->qpos[1]);
    // Penalty joints (m g / ke = 1.2 mm of stretch each) against MuJoCo's exact hinges: the link
    // tips agree within 1.5 cm over the 1 s swing (measured 8.0 mm).
    EXPECT_LT(worst, 1.5e-2);
    mj_deleteData(d);
    mj_deleteModel(mj);
#else
    GTEST_SKIP() << "MuJoCo (libmujoco-dev) was not found when this test was built: no reference to compare with";
#endif
}

// Bodies with two and three hinges become one universal and one compound joint (Warp's mapping);
// MuJoCo composes the hinges of a body in order, R(x, q0) R(y, q1) [R(z, q2)], as those joints
// do. The capsule tips agree with MuJoCo's RK4 over a 1 s conical swing.
TEST(MjcfPendulum, BodiesWithSeveralHingesSwingAsInMujoco) {
#if WEFT_HAS_MUJOCO
    REQUIRE_CPU();
    const std::string file = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/hinge_pair_pendulums.xml";
    char err[1000] = "";
    mjModel* mj = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
    ASSERT_NE(mj, nullptr) << err;
    mj->opt.integrator = mjINT_RK4;
    mj->opt.timestep = kDt;
    mjData* d = mj_makeData(mj);
    ModelBuilder b = imported(file);
    ASSERT_EQ(b.joint_type, (std::vector<int>{JOINT_UNIVERSAL, JOINT_COMPOUND}));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    double worst[2] = {0, 0}, travel[2] = {0, 0};
    std::vector<Pose> start = poses(m.state());
    rollout(m, it, kSteps, kDt, [&](int step, const State& s) {
        mj_step(mj, d);
        if (step % 50) return;
        auto p = poses(s);
        for (int i = 0; i < 2; ++i) {
            const Eigen::Vector3d tip_w = p[size_t(i)].p + p[size_t(i)].q * Eigen::Vector3d(0, 0, -0.4);
            Eigen::Matrix3d R;
            for (int k = 0; k < 9; ++k) R(k / 3, k % 3) = d->xmat[9 * (i + 1) + k];
            const Eigen::Vector3d x(d->xpos[3 * (i + 1)], d->xpos[3 * (i + 1) + 1], d->xpos[3 * (i + 1) + 2]);
            const double dist = (tip_w - (x + R * Eigen::Vector3d(0, 0, -0.4))).norm();
            worst[i] = std::isfinite(dist) ? std::max(worst[i], dist) : INFINITY;
            const Eigen::Vector3d tip0 = start[size_t(i)].p + start[size_t(i)].q * Eigen::Vector3d(0, 0, -0.4);
            travel[i] = std::max(travel[i], (tip_w - tip0).norm());
        }
    });
    std::printf(
        "two hinges (universal): largest tip distance Weft vs MuJoCo %.3e m (tip travel %.3f m); three hinges "
        "(compound): %.3e m (travel %.3f m)\n",
        worst[0], travel[0], worst[1], travel[1]);
    for (int i = 0; i < 2; ++i) {
        EXPECT_GT(travel[i], 0.2);
        EXPECT_LT(worst[i], 1.5e-2);
    }
    mj_deleteData(d);
    mj_deleteModel(mj);
#else
    GTEST_SKIP() << "MuJoCo (libmujoco-dev) was not found when this test was built: no reference to compare with";
#endif
}
