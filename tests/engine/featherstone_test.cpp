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
#include "engine/scene.h"
#include "runtime/recorder.h"
#include "tape/gradient_check.h"
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

// Kinetic plus potential energy (J) of a state's bodies, with the builder's mass properties.
double energy(const ModelBuilder& b, const State& s) {
    double e = 0;
    auto bodies = bodies_of(s);
    for (size_t i = 0; i < bodies.size(); ++i) {
        const MassProperties& mp = b.body_mass[i];
        const Eigen::Matrix3d R = bodies[i].q.toRotationMatrix();
        e += 0.5 * mp.mass * bodies[i].v.squaredNorm() + 0.5 * bodies[i].w.dot(R * mp.inertia * R.transpose() * bodies[i].w) -
             mp.mass * b.gravity.cast<double>().dot(bodies[i].p + R * mp.com);
    }
    return e;
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
    EXPECT_NE(message_of([] {
                  create_integrator("featherstone", {{"rk5", 1}});
              }).find("has no option 'rk5' (did you mean 'rk4'?)"),
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
                          Case{"double_pendulum.xml", {0.0, 0.0}}, Case{"cartpole.xml", {0.0, 0.5}}}) {
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
    FeatherstoneIntegrator it(true);
    State s0 = m.state();
    State s1 = m.state();
    it.simulate(m, s0, s1, 1.0e-3f);  // body_q, body_qd of the initial joint_q (the state's bodies are the file's pose)
    const double e0 = energy(b, s1);
    double worst = 0, kinetic = 0;
    rollout(m, it, 10000, 1.0e-3f, [&](int, const State& s) {
        const double e = energy(b, s);
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

namespace {

constexpr const char* kTipLoss = R"(
import weft as wp

@wp.kernel
def tip_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    b = wp.tid()
    p = wp.transform_point(body_q[b], wp.vec3(0.0, 0.0, -0.3))
    wp.atomic_add(loss, 0, p[0] - 0.5 * p[1] + 0.3 * p[2])
)";

double tip_loss(const runtime::Kernel& k, const Model& m, const State& s, const runtime::Array& loss) {
    runtime::LaunchOptions o;
    o.device = m.device;
    runtime::launch(k, {m.body_count}, {runtime::LaunchArg::of(s.body_q), runtime::LaunchArg::of(loss)}, o);
    return double(tape::read_scalars(loss)[0]);
}

}  // namespace

// The Tape's gradient of a loss of the 3-link chain's final link poses after 0.3 s with respect to
// its initial joint velocities, against central differences, for both integrators.
TEST(Featherstone, GradientOfAChainSwingMatchesFiniteDifferences) {
    REQUIRE_CPU();
    const int steps = 300;
    const float dt = 1.0e-3f;
    auto loss_module = runtime::Module::compile({{"loss.py", kTipLoss}});
    runtime::Kernel loss_k = loss_module->kernel("tip_loss");
    const std::vector<float> q0 = {0.6f, -0.4f, 0.3f}, qd0 = {0.5f, -1.0f, 2.0f};
    for (bool rk4 : {false, true}) {
        auto forward_loss = [&](const std::vector<float>& qd) {
            ModelBuilder b = imported(data_file("pendulum_chain3.xml"));
            b.joint_q = q0;
            b.joint_qd = qd;
            Model m = b.finalize("cpu");
            FeatherstoneIntegrator it(rk4);
            State s = rollout(m, it, steps, dt);
            runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device);
            return tip_loss(loss_k, m, s, loss);
        };
        ModelBuilder b = imported(data_file("pendulum_chain3.xml"));
        b.joint_q = q0;
        b.joint_qd = qd0;
        Model m = b.finalize("cpu", true);
        FeatherstoneIntegrator it(rk4);
        const State s0 =
            rollout_gradient(m, it, steps, dt, [&](const State& s, const runtime::Array& loss) { tip_loss(loss_k, m, s, loss); });
        const std::vector<double> g = tape::read_scalars(*s0.joint_qd.grad());
        for (size_t k = 0; k < 3; ++k) {
            double best = INFINITY, fd_best = 0;
            for (float eps : {1e-2f, 1e-3f}) {
                std::vector<float> plus = qd0, minus = qd0;
                plus[k] += eps;
                minus[k] -= eps;
                const double fd = (forward_loss(plus) - forward_loss(minus)) / (2 * eps);
                if (std::abs(fd - g[k]) < best) best = std::abs(fd - g[k]), fd_best = fd;
            }
            std::printf("%s: d loss / d qd0[%zu]: adjoint %.6g, central difference %.6g\n", rk4 ? "rk4" : "euler", k, g[k],
                        fd_best);
            EXPECT_NEAR(g[k], fd_best, 0.01 * std::abs(fd_best) + 1e-4);
        }
    }
}

// A box on a free joint dropped on the ground comes to rest where the semi-implicit solver's free
// body does (the same penalty contact, applied through the joint instead of to the body).
TEST(Featherstone, FreeBoxRestsOnTheGroundWhereTheSemiImplicitBodyDoes) {
    REQUIRE_CPU();
    auto build = [](bool jointed) {
        ModelBuilder b;
        const int body = b.add_body(Vec3(0, 0.3f, 0));
        ShapeParams p;
        p.density = 500.0f;
        b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f, p);
        if (jointed) b.add_joint_free(body, at(0, 0.3f, 0));
        return b;
    };
    const float dt = 5.0e-4f;
    Model mf = build(true).finalize("cpu");
    FeatherstoneIntegrator f(false, 0.0f);
    const double y_f = bodies_of(rollout(mf, f, 4000, dt))[0].p.y();
    Model ms = build(false).finalize("cpu");
    SemiImplicitIntegrator si;
    si.angular_damping = 0.0f;
    const double y_s = bodies_of(rollout(ms, si, 4000, dt))[0].p.y();
    std::printf("box at rest: featherstone %.6f m, semi-implicit %.6f m\n", y_f, y_s);
    EXPECT_LT(y_f, 0.1);  // it fell and rests on its face
    EXPECT_GT(y_f, 0.09);
    EXPECT_NEAR(y_f, y_s, 1.0e-4);
}

// A hinge driven to a target position settles on it (no gravity): the drive law of the
// semi-implicit joints, applied in joint space.
TEST(Featherstone, DrivenHingeSettlesOnItsTarget) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.gravity = Vec3::Zero();
    const int body = b.add_body(Vec3(0.3f, 1, 0));
    ShapeParams p;
    p.density = 1000.0f;
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.3f, 0.05f, 0.05f, p);
    JointAxisDef axis;
    axis.axis = Vec3(0, 1, 0);
    axis.mode = JOINT_MODE_TARGET_POSITION;
    axis.target = 0.8f;
    axis.target_ke = 20.0f;
    axis.target_kd = 2.0f;
    b.add_joint_revolute(-1, body, at(0, 1, 0), at(-0.3f, 0, 0), axis);
    Model m = b.finalize("cpu");
    FeatherstoneIntegrator it;
    const State s = rollout(m, it, 8000, 1.0e-3f);
    const double q = host(s.joint_q)[0];
    std::printf("driven hinge: %.5f rad (target 0.8)\n", q);
    EXPECT_NEAR(q, 0.8, 1.0e-3);
    // body_q follows joint_q: the box's centre 0.3 m from the pivot, turned by q about y
    const BodyState bs = bodies_of(s)[0];
    EXPECT_NEAR(bs.p.x(), 0.3 * std::cos(q), 1e-4);
    EXPECT_NEAR(bs.p.z(), -0.3 * std::sin(q), 1e-4);
}

TEST(Featherstone, RefusesWhatItDoesNotStep) {
    REQUIRE_CPU();
    FeatherstoneIntegrator it;
    {  // particles
        ModelBuilder b;
        b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f);
        Model m = b.finalize("cpu");
        State s0 = m.state(), s1 = m.state();
        EXPECT_EQ(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }),
                  "simulate: the featherstone integrator steps articulations only, and the model has 1 particles; use "
                  "semi_implicit or xpbd for them");
    }
    {  // a body without a joint
        ModelBuilder b;
        const int body = b.add_body(Vec3(0, 1, 0));
        ShapeParams p;
        p.density = 1000.0f;
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.1f, p);
        const int other = b.add_body(Vec3(1, 1, 0));
        b.add_shape_sphere(other, Vec3::Zero(), Quat::Identity(), 0.1f, p);
        b.add_joint_free(body);
        Model m = b.finalize("cpu");
        State s0 = m.state(), s1 = m.state();
        EXPECT_EQ(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }),
                  "simulate: body 1 is the child of no joint; the featherstone integrator moves bodies through their joints: "
                  "give a floating body a free joint (add_joint_free)");
        s1.joint_q = Array();
        EXPECT_EQ(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }),
                  "simulate: state_out has no joint_q / joint_qd; the featherstone integrator steps reduced coordinates: make "
                  "states with model.state()");
    }
}

// scenes/pendulum_chain_rk4.toml: the imported chain under the Featherstone solver, read from the
// scene file with its options, keeps its energy (no joint springs to store or lose any).
TEST(Featherstone, PendulumChainSceneKeepsItsEnergy) {
    REQUIRE_CPU();
    Scene scene = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/pendulum_chain_rk4.toml");
    ASSERT_EQ(scene.solver, "featherstone");
    EXPECT_EQ(scene.solver_options.integer("rk4"), 1);
    Model m = scene.builder.finalize(scene.device);
    auto it = create_integrator(scene.solver, scene.solver_options);
    const float dt = 1.0f / (scene.fps * float(scene.substeps));
    const ModelBuilder& b = scene.builder;
    const double e0 = energy(b, m.state());
    double worst = 0, fastest = 0, scale = 0;
    for (const auto& mp : b.body_mass) scale += mp.mass * kG * 1.2;  // the links' largest drop (3 x 0.4 m)
    rollout(m, *it, scene.frames * scene.substeps, dt, [&](int, const State& s) {
        const double e = energy(b, s);
        worst = std::isfinite(e) ? std::max(worst, std::abs(e - e0)) : INFINITY;
        for (const auto& body : bodies_of(s)) fastest = std::max(fastest, body.v.norm());
    });
    std::printf(
        "pendulum_chain_rk4: %d steps of %.2f ms, largest energy change %.3e J (%.2e of the drop), fastest link %.2f m/s\n",
        scene.frames * scene.substeps, 1e3 * dt, worst, worst / scale, fastest);
    EXPECT_GT(fastest, 2.0);
    EXPECT_LT(worst / scale, 1.0e-4);
}

// Gradients through ground contact: a sphere on a free joint thrown down and sideways onto the
// ground (penalty contact with friction), the Tape gradient of the tip loss with respect to its
// initial joint velocities against central differences.
TEST(Featherstone, GradientThroughGroundContactMatchesFiniteDifferences) {
    REQUIRE_CPU();
    const int steps = 400;
    const float dt = 5.0e-4f;
    auto loss_module = runtime::Module::compile({{"loss.py", kTipLoss}});
    runtime::Kernel loss_k = loss_module->kernel("tip_loss");
    const std::vector<float> qd0 = {0.0f, 0.0f, 1.0f, 0.8f, -1.5f, 0.0f};
    auto build = [](const std::vector<float>& qd) {
        ModelBuilder b;
        ShapeParams p;
        p.density = 1000.0f;
        const int body = b.add_body(Vec3(0, 0.2f, 0));
        b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.1f, p);
        b.add_joint_free(body, at(0, 0.2f, 0));
        b.joint_qd = qd;
        return b;
    };
    auto forward_loss = [&](const std::vector<float>& qd) {
        Model m = build(qd).finalize("cpu");
        FeatherstoneIntegrator it;
        State s = rollout(m, it, steps, dt);
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device);
        return tip_loss(loss_k, m, s, loss);
    };
    Model m = build(qd0).finalize("cpu", true);
    FeatherstoneIntegrator it;
    tape::Tape tape;
    State s0 = m.state();
    runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, true);
    std::vector<State> states{s0};
    {
        runtime::ScopedRecorder rec(&tape);
        for (int k = 0; k < steps; ++k) {
            states.push_back(m.state());
            it.simulate(m, states[size_t(k)], states[size_t(k) + 1], dt);
        }
        tip_loss(loss_k, m, states.back(), loss);
    }
    double lowest = INFINITY;
    for (const State& s : states) lowest = std::min(lowest, bodies_of(s)[0].p.y());
    std::printf("contact: lowest centre %.4f m (radius 0.1), final %.4f m\n", lowest, bodies_of(states.back())[0].p.y());
    EXPECT_LT(lowest, 0.1);  // it pressed into the ground
    tape.backward(loss);
    const std::vector<double> g = tape::read_scalars(*s0.joint_qd.grad());
    for (size_t k : {2u, 3u, 4u}) {
        double best = INFINITY, fd_best = 0;
        for (float eps : {1e-2f, 1e-3f}) {
            std::vector<float> plus = qd0, minus = qd0;
            plus[k] += eps;
            minus[k] -= eps;
            const double fd = (forward_loss(plus) - forward_loss(minus)) / (2 * eps);
            if (std::abs(fd - g[k]) < best) best = std::abs(fd - g[k]), fd_best = fd;
        }
        std::printf("contact: d loss / d qd0[%zu]: adjoint %.6g, central difference %.6g\n", k, g[k], fd_best);
        EXPECT_NEAR(g[k], fd_best, 0.02 * std::abs(fd_best) + 1e-3);
    }
}

// scenes/ant.toml: the ant (scenes/ant.xml) on its free joint stands on its four legs under the
// Featherstone integrator, and its torso rests where MuJoCo 2.2.2's does (same file, same position
// actuators; the contact models differ by design: the feet slide outwards until friction holds
// them, MuJoCo's soft friction cones against Weft's penalty friction, so the knees settle
// differently: 1.1 cm apart of 0.48 m measured, 2 cm allowed).
TEST(Featherstone, AntStandsWhereMujocosAntStands) {
    REQUIRE_CPU();
    Scene scene = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/ant.toml");
    ASSERT_EQ(scene.solver, "featherstone");
    ASSERT_EQ(scene.builder.body_count(), 9);
    Model m = scene.builder.finalize(scene.device);
    ASSERT_EQ(m.articulation_count, 1);
    ASSERT_EQ(m.joint_dof_count, 14);
    auto it = create_integrator(scene.solver, scene.solver_options);
    const float dt = 1.0f / (scene.fps * float(scene.substeps));
    double lowest = INFINITY, tilt = 0;
    State s = rollout(m, *it, 2 * int(scene.fps) * scene.substeps, dt, [&](int step, const State& st) {
        if (step < int(scene.fps) * scene.substeps) return;  // the second second: settled
        const BodyState torso = bodies_of(st)[0];
        lowest = std::min(lowest, torso.p.y());
        tilt = std::max(tilt, std::abs((torso.q * Eigen::Vector3d::UnitZ()).y() - 1.0));  // its z (MJCF up) along world y
    });
    const double weft_y = bodies_of(s)[0].p.y();
    std::printf("ant: torso at %.4f m after 2 s (lowest in the second second %.4f m), tilt %.2e\n", weft_y, lowest, tilt);
    EXPECT_GT(lowest, 0.4);  // standing, not folded onto the ground
    EXPECT_LT(tilt, 1e-3);
#if WEFT_HAS_MUJOCO
    char err[1000] = "";
    mjModel* mj = mj_loadXML(data_file("ant_on_floor.xml").c_str(), nullptr, err, sizeof err);
    ASSERT_NE(mj, nullptr) << err;
    mj->opt.timestep = dt;
    mjData* d = mj_makeData(mj);
    for (int k = 0; k < 2 * int(scene.fps) * scene.substeps; ++k) mj_step(mj, d);
    const double mujoco_z = d->qpos[2];
    std::printf("ant: MuJoCo's torso at %.4f m after 2 s\n", mujoco_z);
    EXPECT_NEAR(weft_y, mujoco_z, 0.02);
    mj_deleteData(d);
    mj_deleteModel(mj);
#endif
}
