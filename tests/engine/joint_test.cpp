// Joints of the semi-implicit integrator (kernels/rigid.py joint_wrench, engine/model_builder.h
// add_joint_*) against answers computed another way: the small-angle period of a physical
// pendulum, momentum and angular momentum of two bodies held by a ball joint, the rest offset of a
// driven slider and of a hinge at its limit (Hooke's law), a velocity drive, a weld that keeps a
// body's pose, collision filtering between jointed bodies, the simulator against the CPU, the
// Tape's gradient against central differences, and every builder message.
#include <cstdlib>
#include <Eigen/Dense>
#include <cmath>

#include "runtime/errors.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

using Xform = ModelBuilder::Xform;

// A box of half extent h (density 1000) hanging from a hinge about z at the origin, its centre a
// distance L below, tilted by theta0.
ModelBuilder pendulum(double L, double h, double theta0) {
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 1.0e5f;
    b.joint_attach_kd = 1.0e2f;
    Vec3 c(float(L * std::sin(theta0)), float(-L * std::cos(theta0)), 0.0f);
    int body = b.add_body(c, Quat(Eigen::AngleAxisf(float(theta0), Vec3::UnitZ())));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), float(h), float(h), float(h));
    JointAxisDef axis;
    axis.axis = Vec3::UnitZ();
    b.add_joint_revolute(-1, body, at(0, 0, 0), at(0, float(L), 0), axis);
    return b;
}

// The period of a physical pendulum of small amplitude theta0, T = 2 pi sqrt(I_pivot / (m g L))
// (1 + theta0^2 / 16), against the time between two upward zero crossings of the swing.
TEST(Joints, HingedPendulumSwingsWithThePhysicalPendulumPeriod) {
    REQUIRE_CPU();
    const double L = 1.0, h = 0.1, theta0 = 0.05;
    Model m = pendulum(L, h, theta0).finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    const float dt = 2.0e-4f;
    std::vector<double> crossings;
    double prev_x = L * std::sin(theta0);
    rollout(m, it, 9000, dt, [&](int step, const State& s) {
        double x = bodies_of(s)[0].p.x();
        if (prev_x < 0 && x >= 0) crossings.push_back(dt * (step - 1 + (-prev_x) / (x - prev_x)));
        prev_x = x;
    });
    ASSERT_GE(crossings.size(), 1u);
    const double mass = 1000.0 * 8 * h * h * h;
    const double I_pivot = mass * (2 * h) * (2 * h) / 6.0 + mass * L * L;
    const double T = 2 * kPi * std::sqrt(I_pivot / (mass * kG * L)) * (1 + theta0 * theta0 / 16);
    // The first upward crossing is at 3T/4 (released at rest on the +x side).
    const double measured = crossings[0] / 0.75;
    printf("period: measured %.5f s, analytic %.5f s (%.3f%%)\n", measured, T, 100 * (measured - T) / T);
    EXPECT_NEAR(measured, T, 0.005 * T);
    // The hinge holds: the body's pivot point stays at the origin.
    State s = rollout(m, it, 100, dt);
    BodyState r = bodies_of(s)[0];
    Eigen::Vector3d pivot = r.p + r.q * Eigen::Vector3d(0, L, 0);
    EXPECT_LT(pivot.norm(), 2e-3);
}

// Two free bodies held by a ball joint, no gravity and no ground: the joint's forces are equal and
// opposite, so the total momentum stays, and the total angular momentum about the origin (each
// body's I w plus r x m v) too, while the joint keeps the two anchor points together.
TEST(Joints, BallJointKeepsMomentumAndAngularMomentum) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    b.joint_attach_ke = 1.0e5f;
    int a = b.add_body(Vec3(0, 0, 0));
    b.add_shape_box(a, Vec3::Zero(), Quat::Identity(), 0.1f, 0.2f, 0.1f);
    int c = b.add_body(Vec3(0.5f, 0, 0));
    b.add_shape_sphere(c, Vec3::Zero(), Quat::Identity(), 0.15f);
    b.add_joint_ball(a, c, at(0.25f, 0, 0), at(-0.25f, 0, 0));
    b.set_body_velocity(a, Vec3(0, 0, 1), Vec3(0, 0.5f, 0));
    b.set_body_velocity(c, Vec3(1, 0, 0), Vec3(0, -0.2f, 0.3f));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    auto totals = [&](const State& s) {
        auto r = bodies_of(s);
        Eigen::Vector3d p = Eigen::Vector3d::Zero(), L = Eigen::Vector3d::Zero();
        for (int k = 0; k < 2; ++k) {
            const MassProperties& mp = b.body_mass[size_t(k)];
            Eigen::Matrix3d R = r[size_t(k)].q.toRotationMatrix();
            Eigen::Vector3d x = r[size_t(k)].p + R * mp.com;
            p += mp.mass * r[size_t(k)].v;
            L += R * mp.inertia * R.transpose() * r[size_t(k)].w + x.cross(mp.mass * r[size_t(k)].v);
        }
        return std::make_pair(p, L);
    };
    auto [p0, L0] = totals(m.state());
    State s = rollout(m, it, 2000, 1e-4f);
    auto [p1, L1] = totals(s);
    printf("momentum %g -> %g, angular momentum %g -> %g\n", p0.norm(), p1.norm(), L0.norm(), L1.norm());
    EXPECT_LT((p1 - p0).norm(), 1e-5 * (1 + p0.norm()));
    // Angular momentum: the joint force acts at two anchor points that are apart by the joint's
    // stretch, so its moment is conserved up to that (small) lever.
    EXPECT_LT((L1 - L0).norm(), 2e-3 * L0.norm());
    auto r = bodies_of(s);
    Eigen::Vector3d anchor_a = r[0].p + r[0].q * Eigen::Vector3d(0.25, 0, 0);
    Eigen::Vector3d anchor_c = r[1].p + r[1].q * Eigen::Vector3d(-0.25, 0, 0);
    EXPECT_LT((anchor_a - anchor_c).norm(), 5e-3);
}

// A slider along y held by a position drive: at rest the drive carries the weight,
// target_ke (target - q) = m g, so q = target - m g / target_ke.
TEST(Joints, PrismaticDriveRestsWhereHookesLawSays) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    int body = b.add_body(Vec3(0, 0, 0));
    b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.1f);
    JointAxisDef axis;
    axis.axis = Vec3::UnitY();
    axis.mode = JOINT_MODE_TARGET_POSITION;
    axis.target = 0.3f;
    axis.target_ke = 2000.0f;
    axis.target_kd = 100.0f;
    b.add_joint_prismatic(-1, body, at(0, 0, 0), at(0, 0, 0), axis);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    State s = rollout(m, it, 6000, 5e-4f);
    const double mass = b.body_mass[0].mass;
    BodyState r = bodies_of(s)[0];
    EXPECT_NEAR(r.p.y(), 0.3 - mass * kG / 2000.0, 1e-3);
    EXPECT_NEAR(r.p.x(), 0.0, 1e-4);  // the other two axes are held
    EXPECT_NEAR(r.p.z(), 0.0, 1e-4);
    EXPECT_LT(r.v.norm(), 1e-3);
}

// A hinge with its upper limit at 0.2 rad and gravity pulling past it: at rest the limit spring
// carries the gravity torque, limit_ke (q - upper) = m g L cos(q).
TEST(Joints, HingeStopsAtItsLimit) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 1.0e5f;
    const float L = 0.5f;
    int body = b.add_body(Vec3(L, 0, 0));  // horizontal: gravity turns it towards -pi/2 about z
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.2f, 0.03f, 0.03f);  // a rod
    JointAxisDef axis;
    axis.axis = Vec3::UnitZ();
    axis.limit_lower = -0.2f;
    axis.limit_upper = 1.0f;
    axis.limit_ke = 200.0f;
    axis.limit_kd = 5.0f;
    b.add_joint_revolute(-1, body, at(0, 0, 0), at(-L, 0, 0), axis);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    State s = rollout(m, it, 20000, 1e-4f);
    BodyState r = bodies_of(s)[0];
    const double q = std::atan2(r.p.y(), r.p.x());
    const double mass = b.body_mass[0].mass;
    // Solve limit_ke (-0.2 - q) = m g L cos(q) for q by Newton's method.
    double x = -0.2;
    for (int k = 0; k < 20; ++k) {
        double f = 200.0 * (-0.2 - x) - mass * kG * L * std::cos(x);
        double df = -200.0 + mass * kG * L * std::sin(x);
        x -= f / df;
    }
    printf("hinge at rest: %.5f rad, Hooke's law %.5f rad\n", q, x);
    EXPECT_NEAR(q, x, 2e-3);
}

// A wheel on a hinge driven to 3 rad/s (no gravity): w -> target while the drive's damper turns it.
TEST(Joints, VelocityDriveReachesItsTarget) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    int body = b.add_body(Vec3(0, 1, 0));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.2f, 0.2f, 0.05f);
    JointAxisDef axis;
    axis.axis = Vec3::UnitZ();
    axis.mode = JOINT_MODE_TARGET_VELOCITY;
    axis.target = 3.0f;
    axis.target_ke = 5.0f;
    axis.limit_lower = -1e3f;
    axis.limit_upper = 1e3f;
    b.add_joint_revolute(-1, body, at(0, 1, 0), at(0, 0, 0), axis);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    it.angular_damping = 0.0f;
    BodyState r = bodies_of(rollout(m, it, 4000, 5e-4f))[0];
    EXPECT_NEAR(r.w.z(), 3.0, 0.01);
    EXPECT_NEAR(r.w.x(), 0.0, 1e-3);
    EXPECT_NEAR(r.w.y(), 0.0, 1e-3);
    EXPECT_LT((r.p - Eigen::Vector3d(0, 1, 0)).norm(), 1e-3);
}

// A box welded to a kinematic (massless) body above the ground stays where it was put, against
// gravity, to within the weld's sag m g / attach_ke.
TEST(Joints, FixedJointHoldsAPose) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 1.0e5f;
    int anchor = b.add_body(Vec3(0, 1, 0));  // no shape, no mass: kinematic
    int box = b.add_body(Vec3(0.3f, 1, 0), Quat(Eigen::AngleAxisf(0.4f, Vec3::UnitX())));
    b.add_shape_box(box, Vec3::Zero(), Quat::Identity(), 0.05f, 0.05f, 0.05f);
    b.add_joint_fixed(anchor, box, {Vec3(0.3f, 0, 0), Quat(Eigen::AngleAxisf(0.4f, Vec3::UnitX()))}, at(0, 0, 0));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator it;
    BodyState r = bodies_of(rollout(m, it, 4000, 2e-4f))[1];
    const double sag = b.body_mass[1].mass * kG / 1.0e5;
    EXPECT_NEAR(r.p.y(), 1.0, 10 * sag);
    EXPECT_NEAR(r.p.x(), 0.3, 1e-3);
    EXPECT_LT(r.q.angularDistance(Eigen::Quaterniond(Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitX()))), 5e-3);
}

// Two overlapping spheres joined by a hinge: with collision_filter_parent their shapes do not push
// each other apart; without it they do.
TEST(Joints, CollisionFilterOfJointedBodies) {
    REQUIRE_CPU();
    auto gap_after = [](bool filter) {
        ModelBuilder b(0.0f);
        b.ground = false;
        int a = b.add_body(Vec3(0, 0, 0));
        b.add_shape_sphere(a, Vec3::Zero(), Quat::Identity(), 0.1f);
        int c = b.add_body(Vec3(0.15f, 0, 0));
        b.add_shape_sphere(c, Vec3::Zero(), Quat::Identity(), 0.1f);
        JointAxisDef axis;
        axis.axis = Vec3::UnitZ();
        b.add_joint_revolute(a, c, at(0.075f, 0, 0), at(-0.075f, 0, 0), axis, filter);
        Model m = b.finalize("cpu");
        SemiImplicitIntegrator it;
        auto r = bodies_of(rollout(m, it, 200, 1e-4f));
        return (r[1].p - r[0].p).norm();
    };
    EXPECT_NEAR(gap_after(true), 0.15, 1e-4);
    EXPECT_GT(gap_after(false), 0.151);
}

ModelBuilder chain(int links) {
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 2.0e4f;
    int parent = -1;
    for (int k = 0; k < links; ++k) {
        int body = b.add_body(Vec3(0.2f * float(k + 1), 1.0f, 0.0f));
        b.add_shape_capsule(body, Vec3::Zero(), Quat(Eigen::AngleAxisf(float(kPi / 2), Vec3::UnitZ())), 0.03f, 0.1f);
        JointAxisDef axis;
        axis.axis = k % 2 ? Vec3::UnitZ() : Vec3(0, 0.6f, 0.8f);
        if (parent < 0)
            b.add_joint_revolute(-1, body, at(0, 1, 0), at(-0.2f, 0, 0), axis);
        else
            b.add_joint_revolute(parent, body, at(0.1f, 0, 0), at(-0.1f, 0, 0), axis);
        parent = body;
    }
    return b;
}

// Slow for the same reason as RigidBodies.SimulatorStepsMatchTheCpu: WEFT_SLOW_TESTS=1 runs it.
TEST(Joints, SimulatorStepsMatchTheCpu) {
    REQUIRE_CPU();
    if (!std::getenv("WEFT_SLOW_TESTS")) GTEST_SKIP() << "slow (set WEFT_SLOW_TESTS=1 to run it)";
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    Model mc = chain(3).finalize("cpu"), ms = chain(3).finalize("sim:h200");
    SemiImplicitIntegrator a, z;
    auto rc = bodies_of(rollout(mc, a, 20, 1e-4f));
    auto rs = bodies_of(rollout(ms, z, 20, 1e-4f));
    for (size_t k = 0; k < rc.size(); ++k) {
        EXPECT_LT((rc[k].p - rs[k].p).norm(), 1e-5);
        EXPECT_LT((rc[k].v - rs[k].v).norm(), 1e-4 * (1 + rc[k].v.norm()));
        EXPECT_LT((rc[k].w - rs[k].w).norm(), 1e-4 * (1 + rc[k].w.norm()));
    }
}

// The same chain on the GPU and on the simulator running the same PTX (the GPU machine's build
// has no CPU device): poses within float rounding after 20 steps.
TEST(Joints, CudaStepsMatchTheSimulator) {
    if (!runtime::device_available(runtime::parse_device("cuda:0"))) GTEST_SKIP() << "no CUDA device";
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    Model mc = chain(3).finalize("cuda:0"), ms = chain(3).finalize("sim:h200");
    SemiImplicitIntegrator a, z;
    auto rc = bodies_of(rollout(mc, a, 20, 1e-4f));
    auto rs = bodies_of(rollout(ms, z, 20, 1e-4f));
    for (size_t k = 0; k < rc.size(); ++k) {
        EXPECT_LT((rc[k].p - rs[k].p).norm(), 1e-5);
        EXPECT_LT((rc[k].w - rs[k].w).norm(), 1e-4 * (1 + rc[k].w.norm()));
    }
}

const char* kTipLoss = R"(
import weft as wp

@wp.kernel
def tip_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    b = wp.tid()
    p = wp.transform_get_translation(body_q[b])
    wp.atomic_add(loss, 0, p[0] - 0.5 * p[1] + 0.3 * p[2])
)";

// The Tape's gradient of a loss of a swinging 2-link chain's final poses with respect to the first
// link's initial angular velocity about its hinge axis (the free direction; off-axis velocities the
// stiff joint removes at once), after 0.3 s, against central differences of the rollout.
TEST(Joints, GradientOfAChainSwingMatchesFiniteDifferences) {
    REQUIRE_CPU();
    const int steps = 3000;
    const float dt = 1e-4f;
    auto loss_module = runtime::Module::compile({{"loss.py", kTipLoss}});
    runtime::Kernel loss_k = loss_module->kernel("tip_loss");
    const Eigen::Vector3f axis(0.0f, 0.6f, 0.8f);  // chain()'s first hinge
    const Eigen::Vector3f w0(0.5f, -1.0f, 2.0f);
    auto build = [](const Eigen::Vector3f& w) {
        ModelBuilder b = chain(2);
        b.set_body_velocity(0, w, Vec3::Zero());
        return b;
    };
    auto forward_loss = [&](const Eigen::Vector3f& w) {
        Model m = build(w).finalize("cpu");
        SemiImplicitIntegrator it;
        State s = rollout(m, it, steps, dt);
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device);
        launch_body_loss(loss_k, m, s, loss);
        return double(tape::read_scalars(loss)[0]);
    };
    Model m = build(w0).finalize("cpu", true);
    SemiImplicitIntegrator it;
    const State s0 = rollout_gradient(m, it, steps, dt,
                                      [&](const State& s, const runtime::Array& loss) { launch_body_loss(loss_k, m, s, loss); });
    std::vector<double> g = tape::read_scalars(*s0.body_qd.grad());
    const double adjoint = g[0] * axis.x() + g[1] * axis.y() + g[2] * axis.z();
    ASSERT_NE(adjoint, 0.0);
    double best = INFINITY, fd_best = 0;
    for (float eps : {1e-2f, 1e-3f}) {
        const double fd = (forward_loss(w0 + eps * axis) - forward_loss(w0 - eps * axis)) / (2 * eps);
        printf("d loss / d w0 along the hinge: adjoint %.6g, central difference (eps %.0e) %.6g\n", adjoint, eps, fd);
        if (std::abs(fd - adjoint) < best) best = std::abs(fd - adjoint), fd_best = fd;
    }
    EXPECT_NEAR(adjoint, fd_best, 0.03 * std::abs(fd_best));
}

// Three jointed boxes: the backward pass of their contact and joint loops fits the rigid kernels'
// per-thread tape (it overflowed the default 4 KiB), and the gradient is finite.
TEST(Joints, BackwardOfJointedBoxesFitsThePerThreadTape) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.joint_attach_ke = 2.0e4f;
    for (int k = 0; k < 3; ++k) {
        int body = b.add_body(Vec3(0.2f * float(k + 1), 1.0f, 0.0f));
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.04f, 0.04f);
        JointAxisDef z;
        z.axis = Vec3::UnitZ();
        b.add_joint_revolute(k - 1, body, {Vec3(k == 0 ? 0.0f : 0.1f, k == 0 ? 1.0f : 0.0f, 0), Quat::Identity()},
                             {Vec3(-0.1f, 0, 0), Quat::Identity()}, z);
    }
    Model m = b.finalize("cpu", true);
    SemiImplicitIntegrator it;
    auto loss_module = runtime::Module::compile({{"loss.py", kTipLoss}});
    const State s0 = rollout_gradient(m, it, 50, 1e-4f, [&](const State& s, const runtime::Array& loss) {
        launch_body_loss(loss_module->kernel("tip_loss"), m, s, loss);
    });
    for (double v : tape::read_scalars(*s0.body_qd.grad())) EXPECT_TRUE(std::isfinite(v));
}

TEST(JointBuilder, MistakesNameTheCallAndValue) {
    ModelBuilder b;
    int a = b.add_body();
    int c = b.add_body();
    JointAxisDef axis;
    EXPECT_EQ(message_of([&] { b.add_joint_revolute(a, 5, {}, {}, axis); }),
              "add_joint_revolute: child body 5 is out of range (the model has 2 bodies)");
    EXPECT_EQ(message_of([&] { b.add_joint_ball(-2, c, {}, {}); }),
              "add_joint_ball: parent body -2 is out of range (the model has 2 bodies; -1 is the world)");
    EXPECT_EQ(message_of([&] { b.add_joint_fixed(c, c, {}, {}); }), "add_joint_fixed: parent and child are both body 1");
    JointAxisDef zero;
    zero.axis = Vec3::Zero();
    EXPECT_EQ(message_of([&] { b.add_joint_prismatic(a, c, {}, {}, zero); }),
              "add_joint_prismatic: axis must be a nonzero vector");
    JointAxisDef crossed;
    crossed.limit_lower = 1.0f;
    crossed.limit_upper = -1.0f;
    EXPECT_EQ(message_of([&] { b.add_joint_revolute(a, c, {}, {}, crossed); }),
              "add_joint_revolute: limit_lower (1) is above limit_upper (-1)");
    JointAxisDef mode;
    mode.mode = 7;
    EXPECT_EQ(message_of([&] { b.add_joint_revolute(a, c, {}, {}, mode); }),
              "add_joint_revolute: mode 7 is not a joint mode (0 force, 1 target position, 2 target velocity)");
    JointAxisDef bad;
    bad.target_ke = -1.0f;
    EXPECT_EQ(message_of([&] { b.add_joint_revolute(a, c, {}, {}, bad); }), "add_joint_revolute: target_ke must be >= 0, got -1");
    EXPECT_EQ(message_of([&] {
                  b.add_joint_ball(a, c, {Vec3(NAN, 0, 0), Quat::Identity()}, {});
              }),
              "add_joint_ball: parent_xform position must be finite, got (nan, 0, 0)");
    b.add_joint_revolute(a, c, {}, {}, axis, true, 0.01f, "elbow");
    EXPECT_EQ(message_of([&] { b.add_joint_ball(-1, c, {}, {}); }),
              "add_joint_ball: body 1 is already the child of joint 'elbow' (a body has one parent joint)");
    EXPECT_EQ(b.joint_count(), 1);
    // Warp's default limits: +-2 pi rad for a hinge, +-1e4 m for a slider.
    EXPECT_FLOAT_EQ(b.joint_limit_upper[0], 6.283185307f);
    ModelBuilder p;
    int x = p.add_body();
    p.add_joint_prismatic(-1, x, {}, {});
    EXPECT_FLOAT_EQ(p.joint_limit_lower[0], -1.0e4f);
    EXPECT_FLOAT_EQ(p.joint_limit_ke[0], p.default_joint_limit_ke);
}

}  // namespace
