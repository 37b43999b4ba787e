// Joints of several axes in the semi-implicit integrator (kernels/joints.py; engine/joint_builder.cpp
// add_joint_universal / add_joint_compound / add_joint_d6) against answers computed another way:
// a universal joint with one axis locked swinging with the physical pendulum's period, a D6 joint
// of one linear axis against the prismatic joint, a compound joint's position drives settling on
// their targets (the Eigen composition of the target angles), every axis of a D6 joint resting
// where its drive and its limit balance (Hooke's law per axis), the Tape's gradient with respect
// to a universal joint's drive targets against central differences, one and four CPU threads
// giving the same bits, the simulator against the CPU, and the builder's messages.
#include <Eigen/Dense>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "engine/kinematics.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

using Xform = ModelBuilder::Xform;

JointAxisDef along(const Vec3& a) {
    JointAxisDef d;
    d.axis = a;
    return d;
}

// joint_q of joint j of a state (eval_ik).
std::vector<float> coordinates(const Model& m, const State& s) {
    Array q = Array::zeros(compiler::float32_type(), {std::max(m.joint_coord_count, 1)}, m.device);
    Array qd = Array::zeros(compiler::float32_type(), {std::max(m.joint_dof_count, 1)}, m.device);
    eval_ik(m, s, q, qd);
    std::vector<float> v(size_t(m.joint_coord_count));
    q.copy_to_host(v.data(), v.size() * sizeof(float));
    return v;
}

// A box of half extent h hanging a distance L below a universal joint at the origin whose first
// axis (x) is locked by limits [0, 0] and whose second (z) swings, tilted by theta0 about z and
// pushed out of the swing's plane at angular velocity w_x about x. The rotation about the third
// axis (x cross z = -y) is held by the attachment.
ModelBuilder universal_pendulum(double L, double h, double theta0, double w_x) {
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 1.0e5f;
    b.joint_attach_kd = 1.0e2f;
    Vec3 c(float(L * std::sin(theta0)), float(-L * std::cos(theta0)), 0.0f);
    int body = b.add_body(c, Quat(Eigen::AngleAxisf(float(theta0), Vec3::UnitZ())));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), float(h), float(h), float(h));
    b.set_body_velocity(body, Vec3(float(w_x), 0, 0), Vec3(0, 0, float(-w_x * L * std::cos(theta0))));
    JointAxisDef locked = along(Vec3::UnitX());
    locked.limit_lower = 0.0f;
    locked.limit_upper = 0.0f;
    locked.limit_ke = 1.0e4f;
    locked.limit_kd = 10.0f;
    b.add_joint_universal(-1, body, at(0, 0, 0), at(0, float(L), 0), locked, along(Vec3::UnitZ()));
    return b;
}

// The small-angle period T = 2 pi sqrt(I_pivot / (m g L)) (1 + theta0^2 / 16), against the time
// to the first upward zero crossing of the swing (3 T / 4), as the revolute pendulum of joint_test.cpp.
// The locked axis keeps the pendulum near its plane: pushed out of it at 0.2 rad/s, a free axis
// would swing out by w_x / sqrt(g / L) L = 6.4 cm; the limit spring (1e4 N m/rad) allows
// w_x sqrt(I_pivot / limit_ke) L = 5.7 mm.
TEST(JointAxes, UniversalPendulumWithOneAxisLockedSwingsWithThePhysicalPendulumPeriod) {
    REQUIRE_CPU();
    const double L = 1.0, h = 0.1, theta0 = 0.05;
    const double w_x = 0.2;
    Model m = universal_pendulum(L, h, theta0, w_x).finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    const float dt = 2.0e-4f;
    std::vector<double> crossings;
    double prev_x = L * std::sin(theta0), worst_z = 0;
    rollout(m, it, 9000, dt, [&](int step, const State& s) {
        BodyState r = bodies_of(s)[0];
        double x = r.p.x();
        worst_z = std::max(worst_z, std::abs(r.p.z()));
        if (prev_x < 0 && x >= 0) crossings.push_back(dt * (step - 1 + (-prev_x) / (x - prev_x)));
        prev_x = x;
    });
    ASSERT_GE(crossings.size(), 1u);
    const double mass = 1000.0 * 8 * h * h * h;
    const double I_pivot = mass * (2 * h) * (2 * h) / 6.0 + mass * L * L;
    const double T = 2 * kPi * std::sqrt(I_pivot / (mass * kG * L)) * (1 + theta0 * theta0 / 16);
    const double measured = crossings[0] / 0.75;
    printf("universal pendulum period: measured %.5f s, analytic %.5f s (%.3f%%); largest out-of-plane drift %.2e m\n", measured,
           T, 100 * (measured - T) / T, worst_z);
    EXPECT_NEAR(measured, T, 0.005 * T);
    EXPECT_LT(worst_z, 1.2 * w_x * std::sqrt(I_pivot / 1.0e4) * L);
    EXPECT_GT(worst_z, 0.5 * w_x * std::sqrt(I_pivot / 1.0e4) * L);
    State s = rollout(m, it, 100, dt);
    BodyState r = bodies_of(s)[0];
    EXPECT_LT((r.p + r.q * Eigen::Vector3d(0, L, 0)).norm(), 2e-3);  // the pivot stays at the origin
}

// A slider: the same body and axis (tilted, with a position drive and a limit it reaches) built
// once with add_joint_prismatic and once with add_joint_d6(linear_axes = {axis}); the two
// trajectories agree.
TEST(JointAxes, D6WithOneLinearAxisFollowsThePrismaticJoint) {
    REQUIRE_CPU();
    auto build = [](bool d6) {
        ModelBuilder b;
        b.ground = false;
        int body = b.add_body(Vec3(0, 0, 0), Quat(Eigen::AngleAxisf(0.3f, Vec3::UnitZ())));
        b.add_shape_box(body, Vec3(0.05f, 0, 0), Quat::Identity(), 0.1f, 0.05f, 0.05f);
        b.set_body_velocity(body, Vec3(0.5f, -0.2f, 1.0f), Vec3(0.3f, 0.1f, -0.2f));
        JointAxisDef a = along(Vec3(1, 1, 0));
        a.mode = JOINT_MODE_TARGET_POSITION;
        a.target = 0.2f;
        a.target_ke = 500.0f;
        a.target_kd = 10.0f;
        a.limit_lower = -0.3f;
        a.limit_upper = 0.05f;
        const Xform xp{Vec3(0, 0.5f, 0), Quat(Eigen::AngleAxisf(0.2f, Vec3::UnitX()))};
        if (d6)
            b.add_joint_d6(-1, body, xp, at(0.1f, 0, 0), {a}, {});
        else
            b.add_joint_prismatic(-1, body, xp, at(0.1f, 0, 0), a);
        return b;
    };
    Model mp = build(false).finalize("cpu"), md = build(true).finalize("cpu");
    SemiImplicitIntegrator it;
    std::vector<BodyState> prismatic, d6;
    rollout(mp, it, 2000, 5e-4f, [&](int, const State& s) { prismatic.push_back(bodies_of(s)[0]); });
    rollout(md, it, 2000, 5e-4f, [&](int, const State& s) { d6.push_back(bodies_of(s)[0]); });
    double worst = 0, travel = 0;
    for (size_t k = 0; k < d6.size(); ++k) {
        worst = std::max({worst, (d6[k].p - prismatic[k].p).norm(), (d6[k].q.coeffs() - prismatic[k].q.coeffs()).norm()});
        travel = std::max(travel, (prismatic[k].p - prismatic[0].p).norm());
    }
    printf("D6 (one linear axis) vs prismatic over 1 s: largest difference %.2e (travel %.3f m)\n", worst, travel);
    EXPECT_GT(travel, 0.05);
    EXPECT_LT(worst, 1e-6);
}

// A compound joint (axes z, x, y) with a position drive on each, no gravity: the body settles on
// the rotation AngleAxis(z, t0) AngleAxis(x, t1) AngleAxis(y, t2) (Eigen, double), and eval_ik's
// angles on the targets.
void expect_compound_drives_settle(const std::string& device) {
    ModelBuilder b(0.0f);
    b.ground = false;
    int body = b.add_body();
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);
    const Vec3 axes[3] = {Vec3::UnitZ(), Vec3::UnitX(), Vec3::UnitY()};
    const float targets[3] = {0.6f, -0.4f, 0.9f};
    JointAxisDef d[3];
    for (int k = 0; k < 3; ++k) {
        d[k] = along(axes[k]);
        d[k].mode = JOINT_MODE_TARGET_POSITION;
        d[k].target = targets[k];
        d[k].target_ke = 20.0f;
        d[k].target_kd = 1.0f;
    }
    const Quat frame(Eigen::AngleAxisf(0.5f, Vec3(1, 2, 3).normalized()));
    b.add_joint_compound(-1, body, {Vec3::Zero(), frame}, at(0, 0, 0), d[0], d[1], d[2]);
    Model m = b.finalize(device);
    SemiImplicitIntegrator it;
    State s = rollout(m, it, 6000, 5e-4f);
    const Eigen::Quaterniond want = frame.cast<double>() * Eigen::AngleAxisd(targets[0], axes[0].cast<double>()) *
                                    Eigen::AngleAxisd(targets[1], axes[1].cast<double>()) *
                                    Eigen::AngleAxisd(targets[2], axes[2].cast<double>());
    BodyState r = bodies_of(s)[0];
    const double off = r.q.angularDistance(want);
    std::vector<float> q = coordinates(m, s);
    printf("%s: compound drives after 3 s: angles %.4f %.4f %.4f (targets %.1f %.1f %.1f), %.2e rad from the Eigen rotation\n",
           device.c_str(), q[0], q[1], q[2], targets[0], targets[1], targets[2], off);
    EXPECT_LT(off, 2e-3);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(q[size_t(k)], targets[k], 2e-3) << "angle " << k;
}

// Per-axis limits: a D6 joint with linear axes x, y and angular axes z, x, each driven towards a
// target beyond its limit, no gravity. At rest each axis sits where its drive and its limit spring
// balance, target_ke (target - q) + limit_ke (limit - q) = 0, independently of the others.
void expect_d6_axes_rest_where_drive_and_limit_balance(const std::string& device) {
    ModelBuilder b(0.0f);
    b.ground = false;
    int body = b.add_body();
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);
    struct Case {
        Vec3 axis;
        float target, lower, upper, target_ke, limit_ke, kd;
    };
    const Case lin[2] = {{Vec3::UnitX(), 0.5f, -0.1f, 0.1f, 200.0f, 1.0e4f, 60.0f},
                         {Vec3::UnitY(), -0.4f, -0.05f, 0.2f, 200.0f, 1.0e4f, 60.0f}};
    const Case ang[2] = {{Vec3::UnitZ(), 0.5f, -0.2f, 0.2f, 10.0f, 1000.0f, 2.0f},
                         {Vec3::UnitX(), -0.4f, -0.1f, 0.3f, 10.0f, 1000.0f, 2.0f}};
    auto def = [&](const Case& c) {
        JointAxisDef d = along(c.axis);
        d.mode = JOINT_MODE_TARGET_POSITION;
        d.target = c.target;
        d.target_ke = c.target_ke;
        d.target_kd = c.kd;
        d.limit_lower = c.lower;
        d.limit_upper = c.upper;
        d.limit_ke = c.limit_ke;
        d.limit_kd = c.kd;
        return d;
    };
    b.add_joint_d6(-1, body, at(0, 0, 0), at(0, 0, 0), {def(lin[0]), def(lin[1])}, {def(ang[0]), def(ang[1])});
    Model m = b.finalize(device);
    SemiImplicitIntegrator it;
    State s = rollout(m, it, 8000, 5e-4f);
    std::vector<float> q = coordinates(m, s);
    const Case* all[4] = {&lin[0], &lin[1], &ang[0], &ang[1]};
    for (int k = 0; k < 4; ++k) {
        const Case& c = *all[k];
        const float limit = c.target > c.upper ? c.upper : c.lower;
        const double want = (c.target_ke * c.target + c.limit_ke * limit) / double(c.target_ke + c.limit_ke);
        printf("%s: axis %d: rests at %.5f, Hooke's law %.5f (limit %.2f, target %.2f)\n", device.c_str(), k, q[size_t(k)], want,
               limit, c.target);
        EXPECT_NEAR(q[size_t(k)], want, 5e-4) << "axis " << k;
    }
}

TEST(JointAxes, CompoundPositionDrivesSettleOnTheirTargets) {
    REQUIRE_CPU();
    expect_compound_drives_settle("cpu");
}

TEST(JointAxes, EveryAxisOfAD6JointRestsWhereItsDriveAndLimitBalance) {
    REQUIRE_CPU();
    expect_d6_axes_rest_where_drive_and_limit_balance("cpu");
}

// The same two on the GPU, against the same analytic answers (the GPU machine has no CPU device).
TEST(JointAxes, CudaDrivesAndLimitsSettleWhereTheyShould) {
    if (!runtime::device_available(runtime::parse_device("cuda:0"))) GTEST_SKIP() << "no CUDA device";
    expect_compound_drives_settle("cuda:0");
    expect_d6_axes_rest_where_drive_and_limit_balance("cuda:0");
}

const char* kTipLoss = R"(
import weft as wp

@wp.kernel
def tip_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    b = wp.tid()
    p = wp.transform_point(body_q[b], wp.vec3(0.0, -0.5, 0.0))
    wp.atomic_add(loss, 0, p[0] - 0.5 * p[1] + 0.3 * p[2])
)";

// The Tape's gradient of a loss of a universal pendulum's final pose with respect to its two
// drive targets (Control::joint_act), after 0.2 s, against central differences of the rollout.
TEST(JointAxes, GradientWithRespectToUniversalDriveTargetsMatchesFiniteDifferences) {
    REQUIRE_CPU();
    const int steps = 2000;
    const float dt = 1e-4f;
    auto loss_module = runtime::Module::compile({{"loss.py", kTipLoss}});
    runtime::Kernel loss_k = loss_module->kernel("tip_loss");
    auto build = [] {
        ModelBuilder b;
        b.ground = false;
        b.joint_attach_ke = 2.0e4f;
        int body = b.add_body(Vec3(0, -0.5f, 0));
        b.add_shape_capsule(body, Vec3::Zero(), Quat::Identity(), 0.05f, 0.4f);
        b.set_body_velocity(body, Vec3(0.3f, 0.2f, -0.5f), Vec3::Zero());
        JointAxisDef a0 = along(Vec3(0, 0.6f, 0.8f)), a1 = along(Vec3(1, 0, 0));
        for (JointAxisDef* a : {&a0, &a1}) {
            a->mode = JOINT_MODE_TARGET_POSITION;
            a->target_ke = 30.0f;
            a->target_kd = 1.0f;
        }
        b.add_joint_universal(-1, body, at(0, 0, 0), at(0, 0.5f, 0), a0, a1);
        return b;
    };
    const std::vector<float> act0 = {0.3f, -0.2f};
    auto run = [&](const std::vector<float>& act, tape::Tape* tape, State* first, Control* control_out) {
        Model m = build().finalize("cpu", tape != nullptr);
        Control c = m.control();
        c.joint_act.copy_from_host(act.data(), act.size() * sizeof(float));
        SemiImplicitIntegrator it;
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, tape != nullptr);
        std::vector<State> states{m.state()};
        {
            runtime::ScopedRecorder rec(tape);
            for (int k = 0; k < steps; ++k) {
                states.push_back(m.state());
                it.simulate(m, states[size_t(k)], states[size_t(k) + 1], dt, &c);
            }
            runtime::LaunchOptions o;
            o.device = m.device;
            runtime::launch(loss_k, {m.body_count}, {runtime::LaunchArg::of(states.back().body_q), runtime::LaunchArg::of(loss)},
                            o);
        }
        if (tape) tape->backward(loss);
        if (first) *first = states[0];
        if (control_out) *control_out = c;
        return double(tape::read_scalars(loss)[0]);
    };
    tape::Tape tape;
    Control c;
    run(act0, &tape, nullptr, &c);
    std::vector<double> g = tape::read_scalars(*c.joint_act.grad());
    for (int k = 0; k < 2; ++k) {
        double best = INFINITY, fd_best = 0;
        for (float eps : {1e-2f, 2e-3f}) {
            std::vector<float> plus = act0, minus = act0;
            plus[size_t(k)] += eps;
            minus[size_t(k)] -= eps;
            const double fd = (run(plus, nullptr, nullptr, nullptr) - run(minus, nullptr, nullptr, nullptr)) / (2 * eps);
            printf("d loss / d joint_act[%d]: adjoint %.6g, central difference (eps %.0e) %.6g\n", k, g[size_t(k)], eps, fd);
            if (std::abs(fd - g[size_t(k)]) < best) best = std::abs(fd - g[size_t(k)]), fd_best = fd;
        }
        ASSERT_GT(std::abs(fd_best), 1e-3);
        EXPECT_NEAR(g[size_t(k)], fd_best, 0.03 * std::abs(fd_best)) << "axis " << k;
    }
}

// A chain of universal, compound and D6 joints with drives and limits, falling under gravity onto
// the ground.
ModelBuilder axes_chain() {
    ModelBuilder b;
    b.joint_attach_ke = 2.0e4f;
    for (int k = 0; k < 6; ++k) {
        int body = b.add_body(Vec3(0.25f * float(k + 1), 0.6f, 0.05f * float(k)));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.04f, 0.04f);
        b.set_body_velocity(body, Vec3(0.2f * float(k), -0.5f, 0.3f), Vec3(0, 0.1f, -0.2f));
        JointAxisDef x = along(Vec3::UnitX()), y = along(Vec3::UnitY()), z = along(Vec3::UnitZ());
        x.mode = JOINT_MODE_TARGET_POSITION;
        x.target = 0.2f;
        x.target_ke = 5.0f;
        y.limit_lower = -0.3f;
        y.limit_upper = 0.3f;
        z.mode = JOINT_MODE_TARGET_VELOCITY;
        z.target = 1.0f;
        z.target_ke = 0.5f;
        const Xform xp = k == 0 ? at(0, 0.6f, 0) : at(0.125f, 0, 0), xc = at(-0.125f, 0, 0);
        if (k % 3 == 0) b.add_joint_universal(k - 1, body, xp, xc, x, y);
        if (k % 3 == 1) b.add_joint_compound(k - 1, body, xp, xc, z, x, y);
        if (k % 3 == 2) b.add_joint_d6(k - 1, body, xp, xc, {along(Vec3::UnitY())}, {y, z});
    }
    return b;
}

// Each body sums its joints' and contacts' wrenches in its own thread, so one and four CPU threads
// give the same bits.
TEST(JointAxes, OneAndFourThreadsGiveTheSameBits) {
    REQUIRE_CPU();
    Model m = axes_chain().finalize("cpu");
    std::vector<float> q[2], qd[2];
    for (int t = 0; t < 2; ++t) {
        runtime::set_cpu_threads(t == 0 ? 1 : 4);
        SemiImplicitIntegrator it;
        State s = rollout(m, it, 600, 2.5e-4f);
        q[t].resize(size_t(7 * m.body_count));
        qd[t].resize(size_t(6 * m.body_count));
        s.body_q.copy_to_host(q[t].data(), q[t].size() * sizeof(float));
        s.body_qd.copy_to_host(qd[t].data(), qd[t].size() * sizeof(float));
    }
    runtime::set_cpu_threads(0);
    EXPECT_EQ(std::memcmp(q[0].data(), q[1].data(), q[0].size() * sizeof(float)), 0);
    EXPECT_EQ(std::memcmp(qd[0].data(), qd[1].data(), qd[0].size() * sizeof(float)), 0);
    for (float v : q[0]) ASSERT_TRUE(std::isfinite(v));
    EXPECT_NE(q[0][1], 0.6f);  // it moved
}

// The same chain on the simulator (the PTX the GPU runs) against the CPU; slow for the same reason
// as Joints.SimulatorStepsMatchTheCpu: WEFT_SLOW_TESTS=1 runs it.
TEST(JointAxes, SimulatorStepsMatchTheCpu) {
    REQUIRE_CPU();
    if (!std::getenv("WEFT_SLOW_TESTS")) GTEST_SKIP() << "slow (set WEFT_SLOW_TESTS=1 to run it)";
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    Model mc = axes_chain().finalize("cpu"), ms = axes_chain().finalize("sim:h200");
    SemiImplicitIntegrator a, z;
    auto rc = bodies_of(rollout(mc, a, 20, 2.5e-4f));
    auto rs = bodies_of(rollout(ms, z, 20, 2.5e-4f));
    for (size_t k = 0; k < rc.size(); ++k) {
        EXPECT_LT((rc[k].p - rs[k].p).norm(), 1e-5) << "body " << k;
        EXPECT_LT((rc[k].w - rs[k].w).norm(), 1e-4 * (1 + rc[k].w.norm())) << "body " << k;
    }
}

TEST(JointAxesBuilder, SlotsCoordinatesAndDefaults) {
    ModelBuilder b;
    for (int k = 0; k < 4; ++k) b.add_body();
    b.add_joint_revolute(-1, 0, {}, {}, along(Vec3(0, 0, 2)));
    b.add_joint_universal(0, 1, {}, {}, along(Vec3(1, 0, 0)), along(Vec3(0, 3, 0)));
    b.add_joint_ball(1, 2, {}, {});
    b.add_joint_d6(2, 3, {}, {}, {along(Vec3::UnitX()), along(Vec3::UnitZ())}, {along(Vec3(0, 0.001f, 1))});
    EXPECT_EQ(b.joint_axis_start, (std::vector<int>{0, 1, 3, 4}));
    EXPECT_EQ(b.joint_axis_count(), 7);
    EXPECT_EQ(b.joint_axis_dim[1], (std::array<int, 2>{0, 2}));
    EXPECT_EQ(b.joint_axis_dim[2], (std::array<int, 2>{0, 0}));
    EXPECT_EQ(b.joint_axis_dim[3], (std::array<int, 2>{2, 1}));
    EXPECT_EQ(b.joint_q_start(3), 1 + 2 + 4);
    EXPECT_EQ(b.joint_qd_start(3), 1 + 2 + 3);
    EXPECT_EQ(b.joint_q.size(), size_t(1 + 2 + 4 + 3));
    EXPECT_LT((b.joint_axis[2] - Vec3(0, 1, 0)).norm(), 1e-7);  // normalised
    EXPECT_FLOAT_EQ(b.joint_limit_upper[1], 6.283185307f);      // angular: +-2 pi
    EXPECT_FLOAT_EQ(b.joint_limit_lower[4], -1.0e4f);           // linear: +-1e4 m
    EXPECT_FLOAT_EQ(b.joint_axis[6].norm(), 1.0f);
    Model m = b.finalize("cpu");
    EXPECT_EQ(m.joint_axis_count, 7);
    EXPECT_EQ(m.joint_coord_count, 10);
    EXPECT_EQ(m.joint_dof_count, 9);
    EXPECT_EQ(m.control().joint_act.size(), 7);
    // Copies (add_builder) keep each joint's slots, offset by the slots before them.
    ModelBuilder two;
    two.add_builder(b);
    two.add_builder(b);
    EXPECT_EQ(two.joint_axis_start, (std::vector<int>{0, 1, 3, 4, 7, 8, 10, 11}));
    EXPECT_EQ(two.joint_axis_dim[7], (std::array<int, 2>{2, 1}));
    EXPECT_EQ(two.joint_axis_count(), 14);
    EXPECT_EQ(two.joint_q_start(7), 10 + 7);
    EXPECT_EQ(two.finalize("cpu").joint_coord_count, 20);
}

TEST(JointAxesBuilder, MistakesNameTheCallTheAxisAndTheValue) {
    ModelBuilder b;
    int a = b.add_body();
    int c = b.add_body();
    JointAxisDef x = along(Vec3::UnitX()), y = along(Vec3::UnitY()), z = along(Vec3::UnitZ());
    EXPECT_EQ(message_of([&] {
                  b.add_joint_d6(a, c, {}, {}, {x, along(Vec3::Zero())}, {});
              }),
              "add_joint_d6: linear_axes[1]: axis must be a nonzero vector, got (0, 0, 0)");
    EXPECT_EQ(message_of([&] { b.add_joint_universal(a, c, {}, {}, x, along(Vec3::Zero())); }),
              "add_joint_universal: axis_1: axis must be a nonzero vector, got (0, 0, 0)");
    EXPECT_EQ(message_of([&] {
                  b.add_joint_d6(a, c, {}, {}, {x, y, z, x}, {});
              }),
              "add_joint_d6: 4 linear axes given; a joint has at most 3 of each");
    EXPECT_EQ(message_of([&] {
                  b.add_joint_d6(a, c, {}, {}, {}, {x, y, z, x});
              }),
              "add_joint_d6: 4 angular axes given; a joint has at most 3 of each");
    EXPECT_EQ(message_of([&] { b.add_joint_compound(a, c, {}, {}, x, along(Vec3(1, 1, 0)), z); }),
              "add_joint_compound: axis_0 and axis_1 must be perpendicular, got 45 degrees apart");
    EXPECT_EQ(message_of([&] {
                  b.add_joint_d6(a, c, {}, {}, {x, y}, {z, along(Vec3(0, 0.1f, -1))});
              }),
              "add_joint_d6: angular_axes[0] and angular_axes[1] must be perpendicular, got 174.289 degrees apart");
    JointAxisDef crossed = y;
    crossed.limit_lower = 1.0f;
    crossed.limit_upper = -1.0f;
    EXPECT_EQ(message_of([&] { b.add_joint_universal(a, c, {}, {}, x, crossed); }),
              "add_joint_universal: axis_1: limit_lower (1) is above limit_upper (-1)");
    JointAxisDef mode = z;
    mode.mode = 5;
    EXPECT_EQ(message_of([&] { b.add_joint_compound(a, c, {}, {}, x, y, mode); }),
              "add_joint_compound: axis_2: mode 5 is not a joint mode (0 force, 1 target position, 2 target velocity)");
    JointAxisDef neg = x;
    neg.limit_kd = -2.0f;
    EXPECT_EQ(message_of([&] { b.add_joint_d6(a, c, {}, {}, {}, {neg}); }),
              "add_joint_d6: angular_axes[0]: limit_kd must be >= 0, got -2");
    EXPECT_EQ(b.joint_count(), 0);
    EXPECT_EQ(b.joint_axis_count(), 0);
}

}  // namespace
