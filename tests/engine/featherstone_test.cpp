// tests/engine/featherstone_test.cpp: the Featherstone integrator (engine/featherstone.h) against
// MuJoCo 2.2.2 (RK4 against RK4, joint angles, where libmujoco-dev is installed), against
// analytic mechanics (a physical pendulum's period, a double pendulum's energy, a free box's
// intermediate-axis flip with its angular momentum, a box resting on the ground), its Tape
// gradient against central differences, and its refusals.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cstdio>

#include "engine/featherstone.h"
#include "engine/integrator_registry.h"
#include "engine/mjcf_import.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"

#if WEFT_HAS_MUJOCO
#include <mujoco/mujoco.h>
#endif

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

namespace {

std::string data_file(const std::string& name) { return std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/" + name; }

ModelBuilder imported(const std::string& file) {
    ModelBuilder b;
    b.ground = false;
    ImportOptions o;
    o.up_axis = "Y";  // the file's own frame (gravity along -z, as MuJoCo has it)
    o.stiffness = 0.0f;
    o.damping = 0.0f;
    parse_mjcf(file, b, o);
    return b;
}

std::vector<float> host(const Array& a) {
    std::vector<float> v(size_t(a.size()) * size_t(compiler::type_size(a.dtype()) / 4));
    a.copy_to_host(v.data(), v.size() * sizeof(float));
    return v;
}

// Joint angles of a Featherstone rollout of `file` from `q0` against MuJoCo's RK4 from the same
// qpos, every 10 steps for 1 s; returns the largest difference (rad or m).
double against_mujoco(const std::string& file, const std::vector<double>& q0, float dt, double* travel = nullptr) {
#if WEFT_HAS_MUJOCO
    char err[1000] = "";
    mjModel* mj = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
    EXPECT_NE(mj, nullptr) << err;
    if (!mj) return INFINITY;
    mj->opt.integrator = mjINT_RK4;
    mj->opt.timestep = dt;
    mjData* d = mj_makeData(mj);
    EXPECT_EQ(size_t(mj->nq), q0.size());
    for (size_t k = 0; k < q0.size(); ++k) d->qpos[k] = q0[k];

    ModelBuilder b = imported(file);
    EXPECT_EQ(b.joint_q.size(), q0.size());
    for (size_t k = 0; k < q0.size(); ++k) b.joint_q[k] = float(q0[k]);
    Model m = b.finalize("cpu");
    FeatherstoneIntegrator it(true);
    double worst = 0, far = 0;
    const int steps = int(std::lround(1.0 / dt));
    rollout(m, it, steps, dt, [&](int step, const State& s) {
        mj_step(mj, d);
        if (step % 10) return;
        std::vector<float> q = host(s.joint_q);
        for (size_t k = 0; k < q0.size(); ++k) {
            const double diff = std::abs(double(q[k]) - d->qpos[k]);
            worst = std::isfinite(diff) ? std::max(worst, diff) : INFINITY;
            far = std::max(far, std::abs(d->qpos[k] - q0[k]));
        }
    });
    mj_deleteData(d);
    mj_deleteModel(mj);
    if (travel) *travel = far;
    return worst;
#else
    (void)file, (void)q0, (void)dt, (void)travel;
    return 0;
#endif
}

#if WEFT_HAS_MUJOCO
#define REQUIRE_MUJOCO() (void)0
#else
#define REQUIRE_MUJOCO() GTEST_SKIP() << "MuJoCo (libmujoco-dev) was not found when this test was built: no reference"
#endif

}  // namespace

TEST(Featherstone, IsRegisteredWithItsOptions) {
    auto it = create_integrator("featherstone", {{"rk4", 1}, {"angular_damping", 0.5}});
    auto* f = dynamic_cast<FeatherstoneIntegrator*>(it.get());
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->rk4);
    EXPECT_FLOAT_EQ(f->angular_damping, 0.5f);
    EXPECT_TRUE(it->info().can(IntegratorCaps_Differentiable));
    EXPECT_NE(message_of([] { create_integrator("featherstone", {{"rk5", 1}}); }).find("has no option 'rk5' (did you mean 'rk4'?)"),
              std::string::npos);
}

// The 1e-4 rad bound of issue 17 over 1 s: a 3-link chain swinging out of its plane, a double
// pendulum and a cart-pole, RK4 at 1 ms in both engines.
TEST(Featherstone, ChainsMatchMujocoRk4WithinATenThousandthOfARadian) {
    REQUIRE_CPU();
    REQUIRE_MUJOCO();
    struct Case {
        const char* file;
        std::vector<double> q0;
    };
    for (const Case& c : {Case{"pendulum_chain3.xml", {0.6981317, -0.4363323, 0.2617994}},
                          Case{"double_pendulum.xml", {0.0, 0.0}},
                          Case{"cartpole.xml", {0.0, 0.5}}}) {
        double travel = 0;
        const double worst = against_mujoco(data_file(c.file), c.q0, 1.0e-3f, &travel);
        std::printf("%s: largest joint difference Weft vs MuJoCo RK4 over 1 s: %.3e (joints moved up to %.3f)\n", c.file, worst,
                    travel);
        EXPECT_GT(travel, 0.3) << c.file;  // it moved
        EXPECT_LT(worst, 1.0e-4) << c.file;
    }
}

// A box hinged at one end: small-angle period 2 pi sqrt(I_pivot / (m g d)) within 0.5%, by both
// integrators.
TEST(Featherstone, PhysicalPendulumHasItsAnalyticPeriod) {
    REQUIRE_CPU();
    const float hx = 0.05f, hy = 0.3f, hz = 0.05f, density = 800.0f;
    const double m = 8.0 * hx * hy * hz * density, d = hy;
    const double I = m * (4.0 * hy * hy + 4.0 * hx * hx) / 12.0 + m * d * d;  // about z through the pivot
    const double period = 2.0 * kPi * std::sqrt(I / (m * kG * d));
    for (bool rk4 : {false, true}) {
        ModelBuilder b;
        b.ground = false;
        const int body = b.add_body(Vec3(0, 1.0f - hy, 0));
        ShapeParams p;
        p.density = density;
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), hx, hy, hz, p);
        JointAxisDef axis;
        axis.axis = Vec3(0, 0, 1);
        b.add_joint_revolute(-1, body, at(0, 1.0f, 0), at(0, hy, 0), axis, true, 0.0f);
        b.joint_q[0] = 0.05f;
        Model model = b.finalize("cpu");
        FeatherstoneIntegrator it(rk4);
        const float dt = 1.0e-3f;
        double prev = 0.05, t_prev = 0;
        std::vector<double> crossings;  // downward zero crossings of the angle
        rollout(model, it, 6000, dt, [&](int step, const State& s) {
            const double q = host(s.joint_q)[0], t = step * double(dt);
            if (prev > 0 && q <= 0) crossings.push_back(t_prev + (t - t_prev) * prev / (prev - q));
            prev = q;
            t_prev = t;
        });
        ASSERT_GE(crossings.size(), 3u);
        const double measured = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
        std::printf("%s: period %.5f s, analytic %.5f s (%+.3f%%)\n", rk4 ? "rk4" : "euler", measured, period,
                    100.0 * (measured / period - 1.0));
        EXPECT_NEAR(measured / period, 1.0, 0.005);
    }
}

// A frictionless double pendulum conserves its energy: within 1e-3 of it (relative) over 10 s at
// RK4, 1 ms.
TEST(Featherstone, DoublePendulumKeepsItsEnergyUnderRk4) {
    REQUIRE_CPU();
    ModelBuilder b = imported(data_file("double_pendulum.xml"));
    b.joint_q[0] = 1.2f;
    b.joint_q[1] = -0.7f;
    Model m = b.finalize("cpu");
    auto energy = [&](const State& s) {
        double e = 0;
        auto bodies = bodies_of(s);
        for (size_t i = 0; i < bodies.size(); ++i) {
            const MassProperties& mp = b.body_mass[i];
            const Eigen::Matrix3d R = bodies[i].q.toRotationMatrix();
            const Eigen::Vector3d com = bodies[i].p + R * mp.com;
            e += 0.5 * mp.mass * bodies[i].v.squaredNorm() +
                 0.5 * bodies[i].w.dot(R * mp.inertia * R.transpose() * bodies[i].w) - mp.mass * b.gravity.cast<double>().dot(com);
        }
        return e;
    };
    FeatherstoneIntegrator it(true);
    State s0 = m.state();
    State s1 = m.state();
    it.simulate(m, s0, s1, 1.0e-3f);  // body_q, body_qd of the initial joint_q (the state's bodies are the file's pose)
    const double e0 = energy(s1);
    double worst = 0, kinetic = 0;
    rollout(m, it, 10000, 1.0e-3f, [&](int, const State& s) {
        const double e = energy(s);
        worst = std::isfinite(e) ? std::max(worst, std::abs(e - e0)) : INFINITY;
        for (const auto& body : bodies_of(s)) kinetic = std::max(kinetic, body.v.norm());
    });
    // Relative to the energy scale of the motion: the potential drop from the release.
    double scale = 0;
    for (size_t i = 0; i < 2; ++i) scale += b.body_mass[i].mass * kG * 0.4;
    std::printf("double pendulum, 10 s RK4: largest energy change %.3e J of scale %.3f J (%.2e), fastest link %.2f m/s\n", worst,
                scale, worst / scale, kinetic);
    EXPECT_GT(kinetic, 1.0);
    EXPECT_LT(worst / scale, 1.0e-3);
}

// A free box spun about its intermediate axis with a small perturbation flips (Dzhanibekov)
// while its angular momentum, world frame, stays put.
TEST(Featherstone, FreeBoxFlipsAboutItsIntermediateAxisKeepingItsAngularMomentum) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.gravity = Vec3::Zero();
    const int body = b.add_body(Vec3(0, 2, 0));
    ShapeParams p;
    p.density = 1000.0f;
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.3f, 0.15f, 0.05f, p);  // intermediate axis: y
    b.add_joint_free(body, at(0, 2, 0));
    // qd = (angular velocity in the parent's joint frame, linear velocity)
    b.joint_qd = {0.02f, 6.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    Model m = b.finalize("cpu");
    const Eigen::Matrix3d I_body = b.body_mass[0].inertia;
    FeatherstoneIntegrator it(true);
    auto momentum = [&](const State& s) {
        const BodyState bs = bodies_of(s)[0];
        const Eigen::Matrix3d R = bs.q.toRotationMatrix();
        return Eigen::Vector3d(R * I_body * R.transpose() * bs.w);
    };
    State s0 = m.state(), s1 = m.state();
    it.simulate(m, s0, s1, 1.0e-3f);
    const Eigen::Vector3d L0 = momentum(s1);
    double drift = 0, lowest = 1;
    rollout(m, it, 4000, 1.0e-3f, [&](int, const State& s) {
        drift = std::max(drift, (momentum(s) - L0).norm() / L0.norm());
        const BodyState bs = bodies_of(s)[0];
        lowest = std::min(lowest, (bs.q * Eigen::Vector3d::UnitY()).dot(L0.normalized()));
    });
    std::printf("Dzhanibekov: body y against L: lowest cosine %.3f; angular momentum drift %.2e (relative)\n", lowest, drift);
    EXPECT_LT(lowest, -0.9);  // it flipped
    EXPECT_LT(drift, 1.0e-5);
}
