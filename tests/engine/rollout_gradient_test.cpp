// engine/rollout_gradient.h with tape/gradient_check.h: a step whose kernel has a wrong custom
// adjoint is caught against finite differences and the right one passes; a forward NaN is traced
// to its step and kernel, a backward Inf to its step; a checkpointed rollout gives the plain
// tape's gradients, and free fall's gradient is the analytic one.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "engine/rollout_gradient.h"
#include "runtime/config.h"
#include "runtime/module.h"
#include "tape/gradient_check.h"

namespace {

using namespace weft;
using namespace weft::engine;

// A one-kernel "solver": q' = q + dt qd, qd' = qd + dt (0, push(q.y), log(q.y) * 0 + z) where
// push's custom adjoint is right (2 v), wrong (v) or infinite; `fall` takes log(q.y) forward.
const char* kModule = R"(import weft as wp

@wp.func
def push(v: float) -> float:
    return v * v

@wp.func_grad(push)
def push_grad(v: float, adj_ret: float) -> float:
    return ADJOINT

@wp.kernel
def drift(q: wp.array(dtype=wp.vec3), qd: wp.array(dtype=wp.vec3), q_out: wp.array(dtype=wp.vec3),
          qd_out: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v = qd[i]
    q_out[i] = q[i] + dt * v
    qd_out[i] = v + dt * wp.vec3(0.0, push(q[i][1]), 0.0)

@wp.kernel
def fall(q: wp.array(dtype=wp.vec3), qd: wp.array(dtype=wp.vec3), q_out: wp.array(dtype=wp.vec3),
         qd_out: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    v = qd[i]
    q_out[i] = q[i] + dt * v
    qd_out[i] = wp.vec3(v[0], v[1], wp.log(q[i][1]))
)";

class TestSolver : public Integrator {
public:
    TestSolver(const std::string& adjoint, std::string kernel) : kernel_name_(std::move(kernel)) {
        std::string src = kModule;
        src.replace(src.find("ADJOINT"), 7, adjoint);
        module_ = runtime::Module::compile({{"test_solver.py", src, 0}});
        info_.name = "test_solver";
        info_.caps = IntegratorCaps_Differentiable;
    }
    const IntegratorInfo& info() const override { return info_; }
    void simulate(const Model& m, const State& in, State& out, float dt, const Control*) override {
        runtime::LaunchOptions o;
        o.device = m.device;
        runtime::launch(
            module_->kernel(kernel_name_), {m.particle_count},
            {runtime::LaunchArg::of(in.particle_q), runtime::LaunchArg::of(in.particle_qd),
             runtime::LaunchArg::of(out.particle_q), runtime::LaunchArg::of(out.particle_qd), runtime::LaunchArg::number_of(dt)},
            o);
    }
    std::vector<Renderable> renderables(const Model&) const override { return {}; }

private:
    std::string kernel_name_;
    std::shared_ptr<runtime::Module> module_;
    IntegratorInfo info_;
};

Model two_particles(float y0 = 1.0f, float vy = 0.5f) {
    ModelBuilder b;
    b.ground = false;
    b.add_particle(Vec3(0, y0, 0), Vec3(0, vy, 0), 1.0f);
    b.add_particle(Vec3(0.5f, 0.5f * y0, 0), Vec3(0.2f, -0.3f, 0), 1.0f);
    return b.finalize("cpu", true);
}

tape::GradientCheckResult check(Integrator& solver, int steps) {
    Model m = two_particles();
    State s0 = m.state();
    Rollout r{&m, &solver, 0.05f, steps};
    LossExpr loss = LossExpr::parse("sum(particle_q.y) + sum(particle_qd.y)");
    RolloutGradient g = rollout_gradient(r, s0, loss);
    tape::CheckedParam p;
    p.name = "particle_q";
    p.array = s0.particle_q;
    p.adjoint = tape::read_scalars(*s0.particle_q.grad());
    tape::GradientCheckOptions o;
    o.eps = 1e-3;
    o.loss_scale = g.loss_scale;
    return tape::check_gradients([&] { return rollout_loss(r, s0, loss); }, g.loss, {p}, o);
}

TEST(RolloutGradient, WrongCustomAdjointInAStepIsCaught) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    TestSolver right("2.0 * v * adj_ret", "drift"), wrong("v * adj_ret", "drift");
    tape::GradientCheckResult good = check(right, 4);
    EXPECT_TRUE(good.passed) << tape::format_gradient_check(good);
    tape::GradientCheckResult bad = check(wrong, 4);
    EXPECT_FALSE(bad.passed) << tape::format_gradient_check(bad);
    // only the y components go through push
    for (const auto& e : bad.params[0].entries)
        EXPECT_EQ(e.passed, e.label.find("[1]") == std::string::npos && e.scalar % 3 != 1) << e.label;
}

TEST(RolloutGradient, NonFiniteForwardNamesTheStepAndTheKernel) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    TestSolver solver("2.0 * v * adj_ret", "fall");
    Model m = two_particles(1.0f, -1.0f);  // q.y = 1, 0.75, ..., 0 after 4 steps of 0.25: log(0) in step 5
    State s0 = m.state();
    Rollout r{&m, &solver, 0.25f, 8};
    EXPECT_FALSE(std::isfinite(rollout_loss(r, s0, LossExpr::parse("sum(particle_qd.z)"))));
    std::string why = diagnose_forward(r, s0);
    EXPECT_EQ(
        why.rfind("step 5 of 8: launch of kernel 'fall' left a non-finite value (-inf) in argument 'qd_out' at scalar 2", 0), 0u)
        << why;
    EXPECT_FALSE(runtime::config().verify_finite) << "the diagnosis restores the setting";
    Rollout shorter{&m, &solver, 0.25f, 4};
    EXPECT_EQ(diagnose_forward(shorter, s0), "");
}

TEST(RolloutGradient, NonFiniteBackwardNamesTheStep) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    TestSolver solver("adj_ret / (v - v)", "drift");
    Model m = two_particles();
    State s0 = m.state();
    Rollout r{&m, &solver, 0.05f, 3};
    LossExpr loss = LossExpr::parse("sum(particle_qd.y)");
    rollout_gradient(r, s0, loss);
    EXPECT_FALSE(std::isfinite(tape::read_scalars(*s0.particle_q.grad())[1]));
    std::string why = diagnose_backward(r, s0, loss);
    EXPECT_EQ(why.rfind("step 3 of 3 (the backward of the launch of kernel 'drift'", 0), 0u) << why;
    EXPECT_NE(why.find("): non-finite gradient of particle_q at scalar 1"), std::string::npos) << why;
    TestSolver fine("2.0 * v * adj_ret", "drift");
    Rollout ok{&m, &fine, 0.05f, 3};
    EXPECT_EQ(diagnose_backward(ok, s0, loss), "");
}

// Free fall under the semi-implicit solver: final q.y = y0 + n dt vy - g dt^2 n (n + 1) / 2, so
// d q.y / d vy = n dt exactly, plain and checkpointed.
TEST(RolloutGradient, CheckpointedEqualsPlainAndFreeFallIsAnalytic) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "no CPU JIT";
    auto solver = create_integrator("semi_implicit");
    Model m = two_particles();
    LossExpr loss = LossExpr::parse("final(particle_q[0].y) + 2 * final(particle_q[1].y)");
    for (int steps : {20, 150}) {
        State s0 = m.state();
        Rollout r{&m, solver.get(), 1e-3f, steps};
        RolloutGradient g = rollout_gradient(r, s0, loss);
        EXPECT_EQ(g.checkpointed, steps > r.checkpoint_above);
        std::vector<double> gv = tape::read_scalars(*s0.particle_qd.grad());
        EXPECT_NEAR(gv[1], steps * 1e-3, 1e-5) << steps;
        EXPECT_NEAR(gv[4], 2 * steps * 1e-3, 2e-5) << steps;
        EXPECT_NEAR(gv[0], 0.0, 1e-9);
        double y0 = 1.0, vy = 0.5, n = steps, dt = 1e-3, gy = 9.80665;
        EXPECT_NEAR(rollout_loss(r, s0, LossExpr::parse("final(particle_q[0].y)")),
                    y0 + n * dt * vy - gy * dt * dt * n * (n + 1) / 2, 1e-5);
    }
}

}  // namespace
