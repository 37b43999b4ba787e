// Checkpointed rollouts (tape/checkpoint.h): the same gradients as the plain Tape, with memory
// that grows as the square root of the steps; errors that name the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "runtime/errors.h"
#include "runtime/memory_stats.h"
#include "tape/checkpoint.h"
#include "tape/tape.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::Array;

compiler::Type f64() { return compiler::float64_type(); }

// Checkpointing: a damped spring system x' = v, v' = -k x - c v, explicit Euler, with a stiffness
// per element that receives a gradient.

const char* kSpring = R"(
@wp.kernel
def step(x: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.float64), k: wp.array(dtype=wp.float64),
         dt: wp.float64, x1: wp.array(dtype=wp.float64), v1: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = -k[i] * x[i] - 0.1 * v[i]
    v1[i] = v[i] + dt * a
    x1[i] = x[i] + dt * v1[i]

@wp.kernel
def energy(x: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])
)";

struct Rollout {
    std::vector<double> gx, gv, gk;
    double loss = 0;
    size_t peak_bytes = 0;
};

Rollout rollout(const runtime::Device& d, int n, int steps, bool use_checkpoint) {
    auto m = module_of(kSpring, "spring.py");
    runtime::Kernel step = m->kernel("step"), energy = m->kernel("energy");
    std::vector<double> x0(static_cast<size_t>(n)), v0(static_cast<size_t>(n)), k0(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        x0[static_cast<size_t>(i)] = std::sin(0.1 * i);
        v0[static_cast<size_t>(i)] = 0.2 * std::cos(0.3 * i);
        k0[static_cast<size_t>(i)] = 2.0 + 0.01 * i;
    }
    Array x = array_of(f64(), x0, d), v = array_of(f64(), v0, d), k = array_of(f64(), k0, d);
    x.set_requires_grad(true);
    v.set_requires_grad(true);
    k.set_requires_grad(true);
    Array loss = Array::zeros(f64(), {1}, d, true);
    runtime::LaunchOptions o;
    o.device = d;
    auto do_step = [&](const tape::StateArrays& in, tape::StateArrays& out) {
        runtime::launch(step, {n}, {arg(in[0]), arg(in[1]), arg(k), num(0.01), arg(out[0]), arg(out[1])}, o);
    };
    runtime::reset_peak_memory();
    size_t base = runtime::memory_stats().live_bytes;
    tape::Tape tape;
    Rollout r;
    {
        runtime::ScopedRecorder rec(&tape);
        tape::StateArrays out = {Array::zeros(f64(), {n}, d, true), Array::zeros(f64(), {n}, d, true)};
        if (use_checkpoint) {
            tape::checkpoint([&](int, const tape::StateArrays& in, tape::StateArrays& o2) { do_step(in, o2); }, steps, {x, v},
                             out);
        } else {
            std::vector<tape::StateArrays> states = {{x, v}};
            for (int s = 0; s < steps; ++s) {
                tape::StateArrays next = {Array::zeros(f64(), {n}, d, true), Array::zeros(f64(), {n}, d, true)};
                do_step(states.back(), next);
                states.push_back(next);
            }
            out = states.back();
            // The tape keeps every state alive (its records hold them) until it is reset.
        }
        runtime::launch(energy, {n}, {arg(out[0]), arg(loss)}, o);
    }
    tape.backward(loss);
    r.peak_bytes = runtime::memory_stats().peak_bytes - base;
    r.gx = values_of<double>(*x.grad());
    r.gv = values_of<double>(*v.grad());
    r.gk = values_of<double>(*k.grad());
    r.loss = values_of<double>(loss)[0];
    return r;
}

void expect_close(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], 1e-6 * std::max(1e-3, std::abs(b[i]))) << what << "[" << i << "]";
}

TEST(Checkpoint, GradientsEqualThePlainTapes) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    for (int steps : {1, 7, 50}) {
        SCOPED_TRACE(steps);
        Rollout full = rollout(cpu, 64, steps, false), ck = rollout(cpu, 64, steps, true);
        EXPECT_NEAR(full.loss, ck.loss, 1e-12 * std::abs(full.loss));
        expect_close(ck.gx, full.gx, "dx0");
        expect_close(ck.gv, full.gv, "dv0");
        expect_close(ck.gk, full.gk, "dk");
    }
}

TEST(Checkpoint, PeakMemoryGrowsAsTheSquareRootOfTheSteps) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    const int n = 2048;  // 16 KiB per array: the states dominate what is allocated
    Rollout full16 = rollout(cpu, n, 16, false), full256 = rollout(cpu, n, 256, false);
    Rollout ck16 = rollout(cpu, n, 16, true), ck256 = rollout(cpu, n, 256, true);
    double state = 2.0 * n * sizeof(double);
    std::printf("peak memory in states (x, v): plain tape %.1f (16 steps), %.1f (256 steps); checkpointed %.1f, %.1f\n",
                full16.peak_bytes / state, full256.peak_bytes / state, ck16.peak_bytes / state, ck256.peak_bytes / state);
    // The plain tape keeps every state (with its gradient): about 16x more for 16x the steps.
    EXPECT_GT(static_cast<double>(full256.peak_bytes) / full16.peak_bytes, 12.0);
    // Checkpointed: about sqrt(16) = 4x more; allow for the constant part.
    EXPECT_LT(static_cast<double>(ck256.peak_bytes) / ck16.peak_bytes, 5.0);
    EXPECT_LT(ck256.peak_bytes, full256.peak_bytes / 6);
}

TEST(Checkpoint, ErrorsNameTheProblem) {
    runtime::Device cpu;
    Array a = Array::zeros(f64(), {4}, cpu), b = Array::zeros(f64(), {5}, cpu);
    auto noop = [](int, const tape::StateArrays&, tape::StateArrays&) {};
    tape::StateArrays out = {b};
    try {
        tape::checkpoint(noop, 3, {a}, out);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(),
                     "checkpoint: state array 0 is array(float64, shape=(4,), device=cpu) in state_in but "
                     "array(float64, shape=(5,), device=cpu) in state_out");
    }
    tape::StateArrays out2 = {a};
    try {
        tape::checkpoint(noop, 0, {a}, out2);
        FAIL();
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "checkpoint: n_steps must be at least 1; got 0"); }
}

}  // namespace
