// tests/engine/xpbd_rigid_test.cpp: rigid bodies under the XPBD integrator (kernels/xpbd_joints.py, xpbd_contacts.py,
// xpbd_restitution.py)
// against analytic mechanics: a physical pendulum's period and a chain that keeps its joints, a box
// resting on the ground, a box on an incline that sticks below tan(theta) = mu and slides above it
// with the analytic acceleration, a stack of ten boxes standing, restitution of a bouncing ball, a
// head-on elastic collision that keeps its momentum, drives and limits of hinges and sliders;
// a pyramid of twenty; scenes/box_stack_xpbd.toml; the Tape's gradient against central
// differences; the simulator against the CPU and a CUDA device against the simulator.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "engine/xpbd.h"
#include "runtime/device.h"
#include "runtime/errors.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

namespace {

ShapeParams material(float density, float mu, float restitution = 0.0f) {
    ShapeParams p;
    p.density = density;
    p.mu = mu;
    p.restitution = restitution;
    return p;
}

// The largest distance between a joint's two frame origins over the model's joints.
double joint_gap(const ModelBuilder& b, const State& s) {
    auto bodies = bodies_of(s);
    double worst = 0;
    for (size_t j = 0; j < b.joint_type.size(); ++j) {
        auto origin = [&](int body, const std::array<float, 7>& x) -> Eigen::Vector3d {
            const Eigen::Vector3d p(x[0], x[1], x[2]);
            if (body < 0) return p;
            return bodies[size_t(body)].p + bodies[size_t(body)].q * p;
        };
        worst = std::max(worst, (origin(b.joint_parent[j], b.joint_X_p[j]) - origin(b.joint_child[j], b.joint_X_c[j])).norm());
    }
    return worst;
}

}  // namespace

TEST(XpbdRigid, IsRegisteredWithWarpsDefaults) {
    const IntegratorInfo& info = integrator_info("xpbd");
    auto option = [&](const std::string& name) {
        for (const auto& o : info.options)
            if (o.name == name) return o.default_value;
        ADD_FAILURE() << "no option " << name;
        return -1.0;
    };
    EXPECT_EQ(option("joint_linear_relaxation"), 0.7);
    EXPECT_EQ(option("joint_angular_relaxation"), 0.4);
    EXPECT_EQ(option("rigid_contact_relaxation"), 0.8);
    EXPECT_EQ(option("rigid_contact_con_weighting"), 1.0);
    EXPECT_EQ(option("angular_damping"), 0.0);
    EXPECT_EQ(option("enable_restitution"), 0.0);
    auto it = create_integrator("xpbd", {{"enable_restitution", 1}, {"rigid_contact_margin", 0.05}});
    auto* x = dynamic_cast<XPBDIntegrator*>(it.get());
    ASSERT_NE(x, nullptr);
    EXPECT_TRUE(x->enable_restitution);
    EXPECT_FLOAT_EQ(x->rigid_contact_margin, 0.05f);
}

// A box hung from a hinge swings with the period of a physical pendulum (small angle), and the
// hinge holds: its two frames stay together.
TEST(XpbdRigid, PhysicalPendulumHasItsAnalyticPeriodAndKeepsItsHinge) {
    REQUIRE_CPU();
    const float hx = 0.05f, hy = 0.3f, hz = 0.05f, density = 800.0f;
    const double m = 8.0 * hx * hy * hz * density, d = hy;
    const double I = m * (4.0 * hy * hy + 4.0 * hx * hx) / 12.0 + m * d * d;
    const double period = 2.0 * kPi * std::sqrt(I / (m * kG * d));
    ModelBuilder b;
    b.ground = false;
    const float a0 = 0.05f;
    const Quat r0(Eigen::AngleAxisf(a0, Vec3::UnitZ()));
    const int body = b.add_body(Vec3(hy * std::sin(a0), 1.0f - hy * std::cos(a0), 0), r0);
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), hx, hy, hz, material(density, 0.5f));
    JointAxisDef axis;
    axis.axis = Vec3(0, 0, 1);
    b.add_joint_revolute(-1, body, at(0, 1.0f, 0), at(0, hy, 0), axis);
    Model model = b.finalize("cpu");
    XPBDIntegrator it;
    const float dt = 1.0e-3f;
    double prev = a0, t_prev = 0, gap = 0;
    std::vector<double> crossings;
    rollout(model, it, 6000, dt, [&](int step, const State& s) {
        const BodyState bs = bodies_of(s)[0];
        const double angle = std::atan2(bs.p.x(), 1.0 - bs.p.y());
        const double t = step * double(dt);
        if (prev > 0 && angle <= 0) crossings.push_back(t_prev + (t - t_prev) * prev / (prev - angle));
        prev = angle;
        t_prev = t;
        gap = std::max(gap, joint_gap(b, s));
    });
    ASSERT_GE(crossings.size(), 3u);
    const double measured = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
    std::printf("xpbd pendulum: period %.5f s, analytic %.5f s (%+.3f%%), hinge gap %.2e m\n", measured, period,
                100.0 * (measured / period - 1.0), gap);
    EXPECT_NEAR(measured / period, 1.0, 0.005);
    EXPECT_LT(gap, 1.0e-4);
}

// A chain of five boxes on hinges, ball and universal joints, dropped from horizontal, keeps its
// joints together and its energy does not grow.
TEST(XpbdRigid, ChainKeepsItsJointsAndDoesNotGainEnergy) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    const float h = 0.1f;
    int parent = -1;
    for (int k = 0; k < 5; ++k) {
        const int body = b.add_body(Vec3(h + 2 * h * float(k), 2.0f, 0));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), h, 0.02f, 0.02f, material(1000.0f, 0.5f));
        const ModelBuilder::Xform xp = parent < 0 ? at(0, 2.0f, 0) : at(h, 0, 0);
        JointAxisDef axis;
        axis.axis = Vec3(0, 0, 1);
        if (k % 3 == 0)
            b.add_joint_revolute(parent, body, xp, at(-h, 0, 0), axis);
        else if (k % 3 == 1)
            b.add_joint_ball(parent, body, xp, at(-h, 0, 0));
        else {
            JointAxisDef a1;
            a1.axis = Vec3(0, 1, 0);
            b.add_joint_universal(parent, body, xp, at(-h, 0, 0), axis, a1);
        }
        parent = body;
    }
    Model model = b.finalize("cpu");
    XPBDIntegrator it(4);
    double gap = 0, e_max = -INFINITY;
    auto energy = [&](const State& s) {
        double e = 0;
        auto bodies = bodies_of(s);
        for (size_t i = 0; i < bodies.size(); ++i) {
            const MassProperties& mp = b.body_mass[i];
            const Eigen::Matrix3d R = bodies[i].q.toRotationMatrix();
            e += 0.5 * mp.mass * bodies[i].v.squaredNorm() + 0.5 * bodies[i].w.dot(R * mp.inertia * R.transpose() * bodies[i].w) +
                 mp.mass * kG * (bodies[i].p + R * mp.com).y();
        }
        return e;
    };
    const double e0 = energy(model.state());
    rollout(model, it, 2000, 5.0e-4f, [&](int, const State& s) {
        gap = std::max(gap, joint_gap(b, s));
        e_max = std::max(e_max, energy(s));
    });
    std::printf("xpbd chain: largest joint gap %.2e m, energy at most %+.3e of the start's %.4f J\n", gap, (e_max - e0) / e0, e0);
    EXPECT_LT(gap, 2.0e-3);
    EXPECT_LT(e_max, e0 + 1.0e-3 * std::abs(e0));
}

// A box dropped on the ground rests on its face: its centre at its half height within 1 mm, still.
TEST(XpbdRigid, BoxRestsOnTheGround) {
    REQUIRE_CPU();
    ModelBuilder b;
    const int body = b.add_body(Vec3(0, 0.3f, 0), Quat(Eigen::AngleAxisf(0.3f, Vec3(1, 0, 1).normalized())));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, material(500.0f, 0.5f));
    Model m = b.finalize("cpu");
    XPBDIntegrator it;
    const BodyState s = bodies_of(rollout(m, it, 1500, 2.0e-3f))[0];
    std::printf("xpbd box at rest: y %.6f m, |v| %.2e m/s, |w| %.2e rad/s\n", s.p.y(), s.v.norm(), s.w.norm());
    EXPECT_NEAR(s.p.y(), 0.1, 1.0e-3);
    EXPECT_LT(s.v.norm(), 1.0e-2);
    EXPECT_LT(s.w.norm(), 1.0e-1);
}

// A box on a slope (gravity tilted by theta against the ground's normal) sticks where tan(theta) <
// mu and slides where tan(theta) > mu with the acceleration g (sin(theta) - mu cos(theta)).
TEST(XpbdRigid, BoxOnAnInclineSticksBelowTheFrictionAngleAndSlidesAbove) {
    REQUIRE_CPU();
    const double mu = 0.5;
    for (double theta_deg : {20.0, 35.0}) {
        const double theta = theta_deg * kPi / 180.0;
        ModelBuilder b;
        b.gravity = Vec3(float(kG * std::sin(theta)), float(-kG * std::cos(theta)), 0);
        b.ground_mu = float(mu);
        const int body = b.add_body(Vec3(0, 0.1f, 0));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, material(500.0f, float(mu)));
        Model m = b.finalize("cpu");
        // Jacobi's static friction leaves a creep of the order of g sin(theta) dt^2 / iterations per
        // step (about 1 mm/s at 1 ms and 2 iterations): 4 iterations at 0.25 ms keep it below 1 mm
        // in the 0.8 s measured (docs/rigid-bodies.md).
        XPBDIntegrator it(4);
        const float dt = 2.5e-4f;
        double x1 = 0, v1 = 0;
        const int n = int(std::lround(1.0 / dt)), n0 = n / 5;
        const State end = rollout(m, it, n, dt, [&](int step, const State& s) {
            if (step == n0) {
                const BodyState bs = bodies_of(s)[0];
                x1 = bs.p.x();
                v1 = bs.v.x();
            }
        });
        const BodyState bs = bodies_of(end)[0];
        const double travel = bs.p.x() - x1, t = 0.8;
        if (std::tan(theta) < mu) {
            std::printf("xpbd incline %.0f deg: travelled %.2e m in %.1f s (sticks)\n", theta_deg, travel, t);
            EXPECT_LT(std::abs(bs.p.x()), 1.0e-3);
        } else {
            const double a = kG * (std::sin(theta) - mu * std::cos(theta));
            const double a_measured = 2.0 * (travel - v1 * t) / (t * t);
            std::printf("xpbd incline %.0f deg: acceleration %.4f m/s^2, analytic %.4f (%+.2f%%)\n", theta_deg, a_measured, a,
                        100.0 * (a_measured / a - 1.0));
            EXPECT_NEAR(a_measured / a, 1.0, 0.05);
        }
    }
}

// Ten boxes stacked on the ground stand for 10 s: no box drifts sideways or sinks more than 1 mm.
TEST(XpbdRigid, StackOfTenBoxesStandsTenSeconds) {
    REQUIRE_CPU();
    ModelBuilder b;
    const float h = 0.1f;
    for (int k = 0; k < 10; ++k) {
        const int body = b.add_body(Vec3(0, h + 2 * h * float(k), 0));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), h, h, h, material(500.0f, 0.6f));
    }
    Model m = b.finalize("cpu");
    // Warp's defaults but 4 iterations, at 0.5 ms: Jacobi passes carry the weight down a stack
    // slowly, so the boxes settle into each other by 14 mm at 2 ms and 0.6 mm here.
    XPBDIntegrator it(4);
    const float dt = 5.0e-4f;
    double drift = 0;
    rollout(m, it, 20000, dt, [&](int step, const State& s) {
        if (step % 200) return;
        auto bodies = bodies_of(s);
        for (int k = 0; k < 10; ++k) drift = std::max(drift, (bodies[size_t(k)].p - Eigen::Vector3d(0, h + 2 * h * k, 0)).norm());
    });
    std::printf("xpbd stack of 10: largest drift %.2e m over 10 s\n", drift);
    EXPECT_LT(drift, 1.0e-3);
}

// A ball dropped on the ground leaves it at e times its impact speed with restitution e (the mean
// of the ball's and the ground's), and does not bounce without the restitution pass.
TEST(XpbdRigid, RestitutionBouncesABallBack) {
    REQUIRE_CPU();
    for (bool on : {true, false}) {
        const float e = 0.6f;
        ModelBuilder b;
        b.ground_restitution = e;
        const int body = b.add_body(Vec3(0, 1.0f, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.1f, material(1000.0f, 0.5f, e));
        Model m = b.finalize("cpu");
        XPBDIntegrator it;
        it.enable_restitution = on;
        double v_in = 0, v_out = 0;
        rollout(m, it, 800, 1.0e-3f, [&](int, const State& s) {
            const double vy = bodies_of(s)[0].v.y();
            v_in = std::min(v_in, vy);
            if (v_in < -1.0) v_out = std::max(v_out, vy);
        });
        const double impact = std::sqrt(2.0 * kG * 0.9);
        std::printf("xpbd bounce (restitution %s): impact %.4f m/s (free fall %.4f), rebound %.4f m/s, ratio %.4f\n",
                    on ? "on" : "off", -v_in, impact, v_out, v_out / -v_in);
        EXPECT_NEAR(-v_in, impact, 0.02 * impact);
        if (on)
            EXPECT_NEAR(v_out / -v_in, e, 0.05);
        else
            EXPECT_LT(v_out, 0.05 * impact);
    }
}

// Two equal balls meet head-on without gravity: the total momentum stays (1e-5 relative), and with
// restitution 1 they exchange their velocities.
TEST(XpbdRigid, HeadOnCollisionKeepsMomentumAndExchangesVelocities) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.gravity = Vec3::Zero();
    const int a = b.add_body(Vec3(-0.3f, 1, 0)), c = b.add_body(Vec3(0.3f, 1, 0));
    b.add_shape_sphere(a, Vec3::Zero(), Quat::Identity(), 0.1f, material(1000.0f, 0.0f, 1.0f));
    b.add_shape_sphere(c, Vec3::Zero(), Quat::Identity(), 0.1f, material(1000.0f, 0.0f, 1.0f));
    b.set_body_velocity(a, Vec3::Zero(), Vec3(2, 0, 0));
    b.set_body_velocity(c, Vec3::Zero(), Vec3(-1, 0, 0));
    Model m = b.finalize("cpu");
    XPBDIntegrator it;
    it.enable_restitution = true;
    const double mass = b.body_mass[0].mass;
    double worst = 0;
    const State end = rollout(m, it, 400, 1.0e-3f, [&](int, const State& s) {
        auto bs = bodies_of(s);
        worst = std::max(worst, (mass * (bs[0].v + bs[1].v) - Eigen::Vector3d(mass, 0, 0)).norm() / mass);
    });
    auto bs = bodies_of(end);
    std::printf("xpbd head-on: velocities after %.4f, %.4f m/s (exchanged: -1, 2); momentum error %.2e relative\n", bs[0].v.x(),
                bs[1].v.x(), worst);
    EXPECT_LT(worst, 1.0e-5);
    EXPECT_NEAR(bs[0].v.x(), -1.0, 0.05);
    EXPECT_NEAR(bs[1].v.x(), 2.0, 0.05);
}

// A hinge driven to a target position settles on it; a slider falls onto its upper limit and stops
// there.
TEST(XpbdRigid, DrivesAndLimitsHold) {
    REQUIRE_CPU();
    {
        ModelBuilder b;
        b.ground = false;
        b.gravity = Vec3::Zero();
        const int body = b.add_body(Vec3(0.3f, 1, 0));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.3f, 0.05f, 0.05f, material(1000.0f, 0.5f));
        JointAxisDef axis;
        axis.axis = Vec3(0, 1, 0);
        axis.mode = JOINT_MODE_TARGET_POSITION;
        axis.target = 0.8f;
        axis.target_ke = 2000.0f;
        axis.target_kd = 50.0f;
        b.add_joint_revolute(-1, body, at(0, 1, 0), at(-0.3f, 0, 0), axis);
        Model m = b.finalize("cpu");
        XPBDIntegrator it;
        const BodyState bs = bodies_of(rollout(m, it, 4000, 1.0e-3f))[0];
        const double q = std::atan2(-bs.p.z(), bs.p.x());
        std::printf("xpbd driven hinge: %.5f rad (target 0.8)\n", q);
        EXPECT_NEAR(q, 0.8, 2.0e-3);
    }
    {
        ModelBuilder b;
        b.ground = false;
        const int body = b.add_body(Vec3(0, 1, 0));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.05f, 0.05f, 0.05f, material(1000.0f, 0.5f));
        JointAxisDef axis;
        axis.axis = Vec3(0, -1, 0);  // gravity pulls the coordinate up, onto the upper limit
        axis.limit_lower = -0.1f;
        axis.limit_upper = 0.2f;
        b.add_joint_prismatic(-1, body, at(0, 1, 0), at(0, 0, 0), axis);
        Model m = b.finalize("cpu");
        XPBDIntegrator it;
        const BodyState bs = bodies_of(rollout(m, it, 2000, 1.0e-3f))[0];
        std::printf("xpbd slider on its limit: %.5f m below the frame (limit 0.2), off-axis %.2e m\n", 1.0 - bs.p.y(),
                    std::hypot(bs.p.x(), bs.p.z()));
        EXPECT_NEAR(1.0 - bs.p.y(), 0.2, 1.0e-3);
        EXPECT_LT(std::hypot(bs.p.x(), bs.p.z()), 1.0e-5);
        EXPECT_LT(bs.v.norm(), 1.0e-2);
    }
}

// A joint's compliance (Warp's linear_compliance / angular_compliance) lets it give under a steady
// load by what the XPBD step predicts. At rest under a load that changes a coordinate by a = F/m dt^2
// per step (gravity on a ball joint at the centre of mass; a torque on a fixed joint, angular), each
// of the `iterations` passes scales the error by k = 1 - relaxation w / (w + compliance / dt^2)
// (w: the body's inverse mass, or inverse inertia about the axis), so the error e at rest satisfies
// e = (e + a) k^iterations: e = a K / (1 - K), K = k^iterations. Compliance 0 gives the rigid
// joint's residual error, which the same formula predicts.
TEST(XpbdRigid, JointComplianceGivesUnderLoadAsTheXpbdStepPredicts) {
    REQUIRE_CPU();
    const float dt = 1.0e-3f, radius = 0.1f;
    const int steps = 10000;  // the transient decays as (1 - relaxation w / (w + compliance / dt^2))^step: < 3e-4 left
    auto at_rest = [&](double a, double w, double relaxation, double compliance) {
        const double k = 1.0 - relaxation * w / (w + compliance / (double(dt) * dt));
        const double K = k * k;  // two iterations
        return a * K / (1.0 - K);
    };
    for (double compliance : {0.0, 1.0e-4, 2.0e-4}) {  // linear, m/N: a sphere hanging from a ball joint
        ModelBuilder b;
        b.ground = false;
        const int body = b.add_body(Vec3(0, 1, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), radius, material(1000.0f, 0.5f));
        b.set_joint_compliance(b.add_joint_ball(-1, body, at(0, 1, 0), at(0, 0, 0)), float(compliance), 0.0f);
        const double mass = b.body_mass[0].mass;
        Model m = b.finalize("cpu");
        XPBDIntegrator it;
        const BodyState bs = bodies_of(rollout(m, it, steps, dt))[0];
        const double expected = at_rest(kG * dt * dt, 1.0 / mass, 0.7, compliance);
        std::printf("xpbd ball joint, linear compliance %.0e m/N: sags %.4e m, predicted %.4e m (m g compliance / 1.4 = %.4e)\n",
                    compliance, 1.0 - bs.p.y(), expected, mass * kG * compliance / 1.4);
        EXPECT_NEAR(1.0 - bs.p.y(), expected, 0.01 * expected + 2.0e-7);
        EXPECT_LT(std::hypot(bs.p.x(), bs.p.z()), 1.0e-6);
    }
    for (double compliance : {0.0, 0.01}) {  // angular, rad/(N m): a torque on a sphere welded at its centre
        ModelBuilder b;
        b.ground = false;
        b.gravity = Vec3::Zero();
        const int body = b.add_body(Vec3(0, 1, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), radius, material(1000.0f, 0.5f));
        b.set_joint_compliance(b.add_joint_fixed(-1, body, at(0, 1, 0), at(0, 0, 0)), 0.0f, float(compliance));
        const double inertia = b.body_mass[0].inertia(2, 2);
        Model m = b.finalize("cpu");
        Control control = m.control();
        const double torque = 2.0;
        const std::vector<float> wrench = {0, 0, float(torque), 0, 0, 0};
        control.body_f.copy_from_host(wrench.data(), wrench.size() * sizeof(float));
        XPBDIntegrator it;
        State s0 = m.state(), s1 = m.state();
        for (int k = 0; k < steps; ++k) {
            it.simulate(m, s0, s1, dt, &control);
            std::swap(s0, s1);
        }
        const BodyState bs = bodies_of(s0)[0];
        const Eigen::AngleAxisd turned(bs.q);
        const double angle = turned.angle() * turned.axis().z();
        const double expected = at_rest(torque / inertia * dt * dt, 1.0 / inertia, 0.4, compliance);
        std::printf("xpbd fixed joint, angular compliance %.0e rad/(N m): turns %.4e rad, predicted %.4e rad\n", compliance,
                    angle, expected);
        EXPECT_NEAR(angle, expected, 0.01 * std::abs(expected) + 1.0e-6);
        EXPECT_LT((bs.p - Eigen::Vector3d(0, 1, 0)).norm(), 1.0e-6);
    }
}

// A distance joint (Warp's add_joint_distance) as a rope: a small sphere released with the rope
// slack falls until the rope is taut, then swings on it as a pendulum of the rope's length (its
// period within 0.5% of the physical pendulum's) without stretching it. With a lower bound only, a
// body thrown at the anchor stops at that distance.
TEST(XpbdRigid, DistanceJointHoldsItsLimitsAsARopeAndAStrut) {
    REQUIRE_CPU();
    const float radius = 0.02f, L = 0.5f, dt = 1.0e-3f;
    {
        ModelBuilder b;
        b.ground = false;
        const float a0 = 0.1f;                                                                  // rad from the vertical
        const int body = b.add_body(Vec3(0.3f * std::sin(a0), 1.0f - 0.3f * std::cos(a0), 0));  // slack: 0.3 of 0.5 m
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), radius, material(1000.0f, 0.5f));
        JointAxisDef rope;
        rope.limit_upper = L;
        const int j = b.add_joint_distance(-1, body, at(0, 1, 0), at(0, 0, 0), rope);
        EXPECT_EQ(b.joint_q.size(), 7u);  // coordinates as a free joint's
        const double m = b.body_mass[0].mass, I = m * L * L + 0.4 * m * radius * radius;
        const double period = 2.0 * kPi * std::sqrt(I / (m * kG * L));
        Model model = b.finalize("cpu");
        EXPECT_EQ(model.distance_joint, j);
        XPBDIntegrator it;
        double longest = 0, prev = 0, t_prev = 0;
        std::vector<double> crossings;
        bool taut = false;
        rollout(model, it, 6000, dt, [&](int step, const State& s) {
            const BodyState bs = bodies_of(s)[0];
            const double d = (bs.p - Eigen::Vector3d(0, 1, 0)).norm();
            taut = taut || d > L - 1e-3;
            if (!taut) return;
            longest = std::max(longest, d);
            const double x = bs.p.x(), t = step * double(dt);
            if (prev < 0 && x >= 0) crossings.push_back(t_prev + (t - t_prev) * -prev / (x - prev));
            prev = x;
            t_prev = t;
        });
        ASSERT_TRUE(taut);
        ASSERT_GE(crossings.size(), 3u);
        const double measured = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
        std::printf("xpbd rope (distance joint, max %.2f m): longest %.5f m, period %.5f s, analytic %.5f s (%+.3f%%)\n", L,
                    longest, measured, period, 100.0 * (measured / period - 1.0));
        EXPECT_LT(longest, L + 1.0e-3);
        EXPECT_NEAR(measured / period, 1.0, 0.005);
    }
    {
        ModelBuilder b;
        b.ground = false;
        b.gravity = Vec3::Zero();
        const int body = b.add_body(Vec3(1.0f, 1, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), radius, material(1000.0f, 0.5f));
        b.set_body_velocity(body, Vec3::Zero(), Vec3(-2.0f, 0, 0));  // straight at the anchor
        JointAxisDef strut;
        strut.limit_lower = 0.4f;  // no upper bound (NaN)
        b.add_joint_distance(-1, body, at(0, 1, 0), at(0, 0, 0), strut);
        Model model = b.finalize("cpu");
        XPBDIntegrator it;
        double closest = 10;
        const BodyState end = bodies_of(rollout(model, it, 1000, dt, [&](int, const State& s) {
            closest = std::min(closest, (bodies_of(s)[0].p - Eigen::Vector3d(0, 1, 0)).norm());
        }))[0];
        std::printf("xpbd strut (distance joint, min 0.4 m): closest %.5f m, velocity after %+.3f m/s\n", closest, end.v.x());
        EXPECT_GT(closest, 0.4 - 1.0e-3);
        EXPECT_GT(end.v.x(), -1.0e-3);  // stopped at the limit (a positional limit is inelastic), not pressing on
        EXPECT_GT(end.p.x(), 0.4 - 1.0e-3);
    }
}

// Only XPBD simulates distance joints (as in Warp): the other integrators name the joint and
// refuse; the builder refuses a drive on one.
TEST(XpbdRigid, DistanceJointsAreRefusedWhereTheyAreNotSimulated) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    const int a = b.add_body(Vec3(0, 1, 0));
    b.add_shape_sphere(a, Vec3::Zero(), Quat::Identity(), 0.1f, material(1000.0f, 0.5f));
    const int c = b.add_body(Vec3(0, 0.5f, 0));
    b.add_shape_sphere(c, Vec3::Zero(), Quat::Identity(), 0.1f, material(1000.0f, 0.5f));
    b.add_joint_free(a);
    JointAxisDef driven;
    driven.mode = JOINT_MODE_TARGET_POSITION;
    driven.target = 0.3f;
    try {
        b.add_joint_distance(a, c, at(0, 0, 0), at(0, 0, 0), driven);
        ADD_FAILURE() << "no error";
    } catch (const BuildError& e) {
        EXPECT_STREQ(e.what(),
                     "add_joint_distance: a distance joint has no drive (mode 1, target 0.3); its target_ke / "
                     "target_kd make its limits soft, as in Warp");
    }
    EXPECT_EQ(b.joint_count(), 1);
    JointAxisDef rope;
    rope.limit_lower = 0.2f;
    rope.limit_upper = -1.0f;  // a negative bound is none: not "above" the lower one
    b.add_joint_distance(a, c, at(0, 0, 0), at(0, 0, 0), rope);
    Model m = b.finalize("cpu");
    State s0 = m.state(), s1 = m.state();
    for (const char* name : {"semi_implicit", "featherstone"}) {
        auto it = create_integrator(name);
        try {
            it->simulate(m, s0, s1, 1.0e-3f);
            ADD_FAILURE() << name << ": no error";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_EQ(std::string(e.what()), std::string("simulate: joint 1 is a distance joint, which the ") + name +
                                                 " integrator does not simulate (only xpbd does, as in Warp)");
        }
    }
    create_integrator("xpbd")->simulate(m, s0, s1, 1.0e-3f);
}

// set_joint_compliance names the joint and the value it refuses, and leaves the joint as it was.
TEST(XpbdRigid, JointComplianceErrorsNameTheJointAndTheValue) {
    ModelBuilder b;
    const int body = b.add_body();
    const int j = b.add_joint_ball(-1, body, at(0, 0, 0), at(0, 0, 0));
    try {
        b.set_joint_compliance(3, 0.1f, 0.0f);
        ADD_FAILURE() << "no error";
    } catch (const BuildError& e) {
        EXPECT_STREQ(e.what(), "set_joint_compliance: joint index 3 is out of range (the model has 1 joints)");
    }
    try {
        b.set_joint_compliance(j, 0.1f, -1.0f);
        ADD_FAILURE() << "no error";
    } catch (const BuildError& e) { EXPECT_STREQ(e.what(), "set_joint_compliance: angular_compliance must be >= 0, got -1"); }
    EXPECT_EQ(b.joint_linear_compliance[size_t(j)], 0.0f);
    b.set_joint_compliance(j, 0.25f, 0.5f);
    ModelBuilder two;
    two.add_builder(b, {});
    two.add_builder(b, {});
    ASSERT_EQ(two.joint_linear_compliance.size(), 2u);
    EXPECT_EQ(two.joint_linear_compliance[1], 0.25f);
    EXPECT_EQ(two.joint_angular_compliance[1], 0.5f);
}

namespace {

constexpr const char* kPoseLoss = R"(
import weft as wp

@wp.kernel
def pose_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    b = wp.tid()
    p = wp.transform_point(body_q[b], wp.vec3(0.1, 0.05, 0.0))
    wp.atomic_add(loss, 0, p[0] + 0.7 * p[1] - 0.4 * p[2])
)";

// The scene of the gradient test: a box thrown along the ground (friction, contact) and a hinged
// bar, from initial velocities qd0 (6 per body).
ModelBuilder gradient_scene(const std::vector<float>& qd0) {
    ModelBuilder b;
    const int box = b.add_body(Vec3(0, 0.105f, 0));
    b.add_shape_box(box, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, material(500.0f, 0.3f));
    const int bar = b.add_body(Vec3(1.3f, 1.0f, 0));
    b.add_shape_box(bar, Vec3::Zero(), Quat::Identity(), 0.3f, 0.03f, 0.03f, material(800.0f, 0.5f));
    JointAxisDef axis;
    axis.axis = Vec3(0, 0, 1);
    b.add_joint_revolute(-1, bar, at(1.0f, 1.0f, 0), at(-0.3f, 0, 0), axis);
    b.set_body_velocity(box, Vec3(qd0[0], qd0[1], qd0[2]), Vec3(qd0[3], qd0[4], qd0[5]));
    b.set_body_velocity(bar, Vec3(qd0[6], qd0[7], qd0[8]), Vec3(qd0[9], qd0[10], qd0[11]));
    return b;
}

}  // namespace

// The Tape's gradient of a loss of the final poses after 0.15 s, with respect to the initial body
// velocities, against central differences: through the ground contact with friction and the hinge.
TEST(XpbdRigid, GradientThroughContactAndJointsMatchesFiniteDifferences) {
    REQUIRE_CPU();
    auto loss_module = runtime::Module::compile({{"loss.py", kPoseLoss}});
    runtime::Kernel loss_k = loss_module->kernel("pose_loss");
    const int steps = 150;
    const float dt = 1.0e-3f;
    const std::vector<float> qd0 = {0.0f, 0.0f, 0.0f, 1.5f, 0.0f, 0.3f, 0.0f, 0.0f, 0.8f, 0.0f, 0.24f, 0.0f};
    auto run_loss = [&](const Model& m, const State& s, const runtime::Array& loss) {
        launch_body_loss(loss_k, m, s, loss);
        return double(tape::read_scalars(loss)[0]);
    };
    auto forward_loss = [&](const std::vector<float>& qd) {
        Model m = gradient_scene(qd).finalize("cpu");
        XPBDIntegrator it;
        State s = rollout(m, it, steps, dt);
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device);
        return run_loss(m, s, loss);
    };
    Model m = gradient_scene(qd0).finalize("cpu", true);
    XPBDIntegrator it;
    const State s0 =
        rollout_gradient(m, it, steps, dt, [&](const State& s, const runtime::Array& loss) { run_loss(m, s, loss); });
    const std::vector<double> g = tape::read_scalars(*s0.body_qd.grad());
    // the box's linear velocity (sliding with friction) and the bar's angular velocity about z
    for (size_t k : {3u, 5u, 8u}) {
        double best = INFINITY, fd_best = 0;
        for (float eps : {1e-2f, 3e-3f}) {
            std::vector<float> plus = qd0, minus = qd0;
            plus[k] += eps;
            minus[k] -= eps;
            const double fd = (forward_loss(plus) - forward_loss(minus)) / (2 * eps);
            if (std::abs(fd - g[k]) < best) best = std::abs(fd - g[k]), fd_best = fd;
        }
        std::printf("xpbd: d loss / d qd0[%zu]: adjoint %.6g, central difference %.6g\n", k, g[k], fd_best);
        EXPECT_NEAR(g[k], fd_best, 0.02 * std::abs(fd_best) + 2e-3);
    }
}

// A pyramid of 20 boxes (rows of 6, 5, 4, 3 and 2, each box on two below) stands for 10 s: no box
// moves more than 1 mm.
TEST(XpbdRigid, PyramidOfTwentyBoxesStandsTenSeconds) {
    REQUIRE_CPU();
    ModelBuilder b;
    const float h = 0.1f, gap = 0.002f;
    std::vector<Eigen::Vector3d> start;
    for (int row = 0; row < 5; ++row)
        for (int k = 0; k < 6 - row; ++k) {
            const float x = (2 * h + gap) * (float(k) - 0.5f * float(5 - row));
            const Vec3 p(x, h + 2 * h * float(row), 0);
            b.add_shape_box(b.add_body(p), Vec3::Zero(), Quat::Identity(), h, h, h, material(500.0f, 0.6f));
            start.push_back(p.cast<double>());
        }
    ASSERT_EQ(start.size(), 20u);
    Model m = b.finalize("cpu");
    XPBDIntegrator it(4);
    double drift = 0;
    rollout(m, it, 20000, 5.0e-4f, [&](int step, const State& s) {
        if (step % 200) return;
        auto bodies = bodies_of(s);
        for (size_t k = 0; k < start.size(); ++k) drift = std::max(drift, (bodies[k].p - start[k]).norm());
    });
    std::printf("xpbd pyramid of 20: largest drift %.2e m over 10 s\n", drift);
    EXPECT_LT(drift, 1.0e-3);
}

// scenes/box_stack_xpbd.toml runs as `weft run` would: the stack stands within 1 mm over its 3 s,
// the ball bounces (restitution on), and the hinged bar swings while its hinge holds.
TEST(XpbdRigid, BoxStackSceneStandsAndBounces) {
    REQUIRE_CPU();
    Scene scene = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/box_stack_xpbd.toml");
    ASSERT_EQ(scene.solver, "xpbd");
    EXPECT_EQ(scene.solver_options.integer("iterations"), 4);
    Model m = scene.builder.finalize(scene.device);
    auto it = create_integrator(scene.solver, scene.solver_options);
    const float dt = 1.0f / (scene.fps * float(scene.substeps));
    double drift = 0, rebound = 0, gap = 0, swing = 0;
    bool fell = false;
    rollout(m, *it, scene.frames * scene.substeps, dt, [&](int, const State& s) {
        auto bodies = bodies_of(s);
        for (int k = 0; k < 10; ++k) drift = std::max(drift, (bodies[size_t(k)].p - Eigen::Vector3d(0, 0.1 + 0.2 * k, 0)).norm());
        const double vy = bodies[10].v.y();
        if (vy < -1.0) fell = true;
        if (fell) rebound = std::max(rebound, vy);
        gap = std::max(gap, joint_gap(scene.builder, s));
        swing = std::max(swing, 1.2 - bodies[11].p.y());
    });
    std::printf("box_stack_xpbd: stack drift %.2e m, ball rebound %.3f m/s, bar dropped %.3f m, hinge gap %.2e m\n", drift,
                rebound, swing, gap);
    EXPECT_LT(drift, 1.0e-3);
    EXPECT_GT(rebound, 1.0);
    EXPECT_GT(swing, 0.25);
    EXPECT_LT(gap, 1.0e-3);
}

namespace {

// Two boxes stacked on the ground, sliding and spinning (contacts and friction closed from the
// first step), and a hinged bar with a drive: the devices' comparison model.
ModelBuilder device_scene() {
    ModelBuilder b;
    const int lower = b.add_body(Vec3(0, 0.1f, 0)), upper = b.add_body(Vec3(0.02f, 0.3f, 0));
    b.add_shape_box(lower, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, material(500.0f, 0.5f));
    b.add_shape_box(upper, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, material(500.0f, 0.5f));
    b.set_body_velocity(lower, Vec3::Zero(), Vec3(1.0f, 0, 0.2f));
    b.set_body_velocity(upper, Vec3(0, 2.0f, 0), Vec3::Zero());
    const int bar = b.add_body(Vec3(1.3f, 1.0f, 0));
    b.add_shape_box(bar, Vec3::Zero(), Quat::Identity(), 0.3f, 0.03f, 0.03f, material(800.0f, 0.5f));
    JointAxisDef axis;
    axis.axis = Vec3(0, 0, 1);
    axis.mode = JOINT_MODE_TARGET_POSITION;
    axis.target = 0.5f;
    axis.target_ke = 500.0f;
    axis.target_kd = 5.0f;
    b.add_joint_revolute(-1, bar, at(1.0f, 1.0f, 0), at(-0.3f, 0, 0), axis);
    return b;
}

void expect_same_bodies(const std::vector<BodyState>& a, const std::vector<BodyState>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t k = 0; k < a.size(); ++k) {
        EXPECT_LT((a[k].p - b[k].p).norm(), 1e-5) << k;
        EXPECT_LT((a[k].v - b[k].v).norm(), 1e-4 * (1 + a[k].v.norm())) << k;
        EXPECT_LT((a[k].w - b[k].w).norm(), 1e-4 * (1 + a[k].w.norm())) << k;
    }
}

// Golden poses: the CPU's after 50 steps of the device scene (restitution on), recorded on this
// project's machine (x86-64, clang -O3). The CPU must keep them (a change to the solver shows up
// here first) and a CUDA device must reproduce them (the GPU machine has no CPU JIT to compare with).
const double kGolden[3][7] = {{0.0397813, 0.0999724, 0.0081519, -0.0000007, 0.0027696, -0.0000578, 0.9999962},
                              {0.0257824, 0.2999226, 0.0005798, -0.0002101, 0.0438431, -0.0000791, 0.9990385},
                              {1.2539194, 1.1598952, 0.0000000, 0.0000000, 0.0000000, 0.2769244, 0.9608917}};

std::vector<BodyState> device_rollout(const char* device) {
    Model m = device_scene().finalize(device);
    XPBDIntegrator it;
    it.enable_restitution = true;
    return bodies_of(rollout(m, it, 50, 1e-3f));
}

void expect_golden(const std::vector<BodyState>& r, double tol) {
    ASSERT_EQ(r.size(), 3u);
    for (size_t k = 0; k < 3; ++k) {
        if (std::getenv("WEFT_PRINT_GOLDEN"))
            std::printf("{%.7f, %.7f, %.7f, %.7f, %.7f, %.7f, %.7f},\n", r[k].p.x(), r[k].p.y(), r[k].p.z(), r[k].q.x(),
                        r[k].q.y(), r[k].q.z(), r[k].q.w());
        EXPECT_LT((r[k].p - Eigen::Vector3d(kGolden[k][0], kGolden[k][1], kGolden[k][2])).norm(), tol) << k;
        const Eigen::Quaterniond g(kGolden[k][6], kGolden[k][3], kGolden[k][4], kGolden[k][5]);
        EXPECT_LT(r[k].q.angularDistance(g), 10 * tol) << k;
    }
}

}  // namespace

TEST(XpbdRigid, CpuKeepsTheGoldenPoses) {
    REQUIRE_CPU();
    expect_golden(device_rollout("cpu"), 1e-5);
}

// Slow on the simulator (minutes a step on this machine's 2 cores: every launch's PTX is
// simulated): WEFT_SLOW_TESTS=1 runs it, as the other simulator-vs-CPU checks of big modules.
TEST(XpbdRigid, SimulatorStepsMatchTheCpu) {
    REQUIRE_CPU();
    if (!std::getenv("WEFT_SLOW_TESTS")) GTEST_SKIP() << "slow (set WEFT_SLOW_TESTS=1 to run it)";
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    Model mc = device_scene().finalize("cpu"), ms = device_scene().finalize("sim:h200");
    XPBDIntegrator a, z;
    a.enable_restitution = z.enable_restitution = true;
    expect_same_bodies(bodies_of(rollout(mc, a, 2, 1e-3f)), bodies_of(rollout(ms, z, 2, 1e-3f)));
}

// A CUDA device reproduces the golden poses. Skipped without a GPU.
TEST(XpbdRigid, CudaReproducesTheGoldenPoses) {
    if (!runtime::device_available(runtime::parse_device("cuda:0"))) GTEST_SKIP() << "no CUDA device";
    expect_golden(device_rollout("cuda:0"), 1e-4);
}
