// A recorded cloth rollout as Warp's optim examples write it (clear_forces and simulate into a new
// State per step, a loss, tape.backward) under the rules of a CUDA graph capture, on the cpu device
// (runtime/capture_check.h): nothing in the forward recording or the backward pass synchronises,
// reads device memory back, allocates memory that outlives the capture or loads a module, and the
// gradient equals the unchecked pass's. The same rollout captured into a real graph and replayed
// is tests/tape/tape_capture_test.cpp (GPU).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "runtime/capture_check.h"
#include "runtime/module.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace {

using namespace weft;
using runtime::Array;

const char* kLoss = R"(import weft as wp

@wp.kernel
def rollout_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, q[i][0] + 0.5 * q[i][1])
)";

struct Rollout {
    static constexpr int kSteps = 12;
    engine::Model model;
    std::unique_ptr<engine::Integrator> integ = engine::create_integrator("semi_implicit");
    runtime::Kernel loss_k;
    std::vector<engine::State> states;
    Array loss;

    Rollout(const runtime::Device& d, const runtime::Kernel& k) : loss_k(k) {
        engine::ModelBuilder b(-9.81f);
        b.ground = true;
        engine::ClothGridDef c;
        c.dim_x = c.dim_y = 6;
        c.cell_x = c.cell_y = 0.05f;
        c.mass = 0.1f;
        c.tri_ke = c.tri_ka = 1.0e4f;
        c.tri_kd = 5.0f;
        c.pos = engine::Vec3(0.0f, 0.2f, 0.0f);
        c.vel = engine::Vec3(1.0f, 0.0f, 0.0f);
        b.add_cloth_grid(c);
        model = b.finalize(d.str(), /*requires_grad=*/true);
        for (int s = 0; s <= kSteps; ++s) states.push_back(model.state());
        loss = Array::zeros(compiler::float32_type(), {1}, d, true);
    }
    void run(tape::Tape& tape) {
        {
            runtime::ScopedRecorder rec(&tape);
            for (int s = 0; s < kSteps; ++s) {
                states[size_t(s)].clear_forces();
                integ->simulate(model, states[size_t(s)], states[size_t(s) + 1], 1.0f / 960.0f);
            }
            runtime::LaunchOptions o;
            o.device = model.device;
            runtime::launch(loss_k, {model.particle_count},
                            {runtime::LaunchArg::of(states.back().particle_q), runtime::LaunchArg::of(loss)}, o);
        }
        tape.backward(loss);
    }
    std::vector<float> grad_qd() const {
        std::vector<float> g(size_t(model.particle_count) * 3);
        states[0].particle_qd.grad()->copy_to_host(g.data(), g.size() * sizeof(float));
        return g;
    }
};

TEST(RolloutCapture, ARecordedClothRolloutFollowsTheCaptureRulesOnTheCpu) {
    const runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "no cpu device in this build";
    auto m = runtime::Module::compile({{"rollout_loss.py", kLoss}});
    const runtime::Kernel loss_k = m->kernel("rollout_loss");
    Rollout eager(cpu, loss_k);
    tape::Tape eager_tape;
    eager.run(eager_tape);  // loads every module: a capture cannot
    const std::vector<float> expected = eager.grad_qd();

    Rollout checked(cpu, loss_k);  // a new integrator: its scratch is made during the capture, outside it
    tape::Tape tape;
    {
        runtime::CaptureCheck check(cpu);
        checked.run(tape);  // raises, naming the operation, if anything could not be captured
        check.end();
    }
    const std::vector<float> got = checked.grad_qd();
    // The same launches in the same order; the adjoints' float atomics may add in another order
    // across the pool's threads, so equal to 1e-6 of the largest gradient, not bit for bit.
    double scale = 0, diff = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        scale = std::max(scale, double(std::abs(expected[i])));
        diff = std::max(diff, double(std::abs(got[i] - expected[i])));
    }
    ASSERT_TRUE(std::isfinite(scale));
    ASSERT_GT(scale, 0.0);
    EXPECT_LE(diff, 1e-6 * scale);
}

}  // namespace
