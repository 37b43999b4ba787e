// The Tape (tape/tape.h), checkpointing (tape/checkpoint.h) and gradcheck (tape/autograd.h), on
// every device present. References: closed-form derivatives in float64, the plain tape for
// checkpointing, central differences for gradcheck.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/errors.h"
#include "runtime/memory_stats.h"
#include "tape/autograd.h"
#include "tape/checkpoint.h"
#include "tape/tape.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::Array;

compiler::Type f64() { return compiler::float64_type(); }

const char* kChain = R"(
@wp.kernel
def square(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i]

@wp.kernel
def sine(y: wp.array(dtype=wp.float64), z: wp.array(dtype=wp.float64)):
    i = wp.tid()
    z[i] = wp.sin(y[i])

@wp.kernel
def total(z: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, z[i])

@wp.kernel
def scale(x: wp.array(dtype=wp.float64), s: wp.float64, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * s
)";

class TapeTest : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        device_ = runtime::parse_device(GetParam());
        if (!runtime::device_available(device_)) GTEST_SKIP() << "device " << GetParam() << " is not available here";
        m_ = module_of(kChain, "chain.py");
    }
    void launch(const std::string& k, int64_t n, std::vector<runtime::LaunchArg> args) { run(m_, k, {n}, args, device_); }
    Array vec(const std::vector<double>& v, bool grad = true) {
        Array a = array_of(f64(), v, device_);
        a.set_requires_grad(grad);
        return a;
    }
    Array zeros(int64_t n, bool grad = true) { return Array::zeros(f64(), {n}, device_, grad); }

    runtime::Device device_;
    std::shared_ptr<runtime::Module> m_;
};

TEST_P(TapeTest, ChainOfLaunchesGivesTheClosedFormGradient) {
    std::vector<double> x0 = {0.3, -1.1, 2.0, 0.7};
    Array x = vec(x0), y = zeros(4), z = zeros(4), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 4, {arg(x), arg(y)});
        launch("sine", 4, {arg(y), arg(z)});
        launch("total", 4, {arg(z), arg(loss)});
    }
    EXPECT_EQ(tape.records().size(), 3u);
    tape.backward(loss);
    auto g = values_of<double>(*x.grad());
    for (size_t i = 0; i < x0.size(); ++i) EXPECT_NEAR(g[i], std::cos(x0[i] * x0[i]) * 2 * x0[i], 1e-12) << i;

    // A second backward after zero() gives the same (without zero(), every gradient on the tape,
    // intermediate ones included, accumulates: Warp's rule).
    tape.zero();
    EXPECT_EQ(values_of<double>(*x.grad())[0], 0.0);
    tape.backward(loss);
    EXPECT_NEAR(values_of<double>(*x.grad())[0], g[0], 1e-12);

    // gradients(): every array with a gradient, once, in first-use order.
    auto grads = tape.gradients();
    ASSERT_EQ(grads.size(), 4u);
    EXPECT_EQ(grads[0].first.data(), x.data());
    EXPECT_EQ(grads[3].first.data(), loss.data());

    tape.reset();
    EXPECT_TRUE(tape.records().empty());
    EXPECT_EQ(values_of<double>(*x.grad())[0], 0.0);
}

TEST_P(TapeTest, CopiesPassGradientsAndOverwritesStopThem) {
    std::vector<double> x0 = {0.5, 1.5};
    Array x = vec(x0), y = zeros(2), c = zeros(2), z = zeros(2), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 2, {arg(x), arg(y)});
        runtime::copy(c, y);                       // c = x^2
        launch("sine", 2, {arg(c), arg(z)});       // z = sin(x^2)
        launch("total", 2, {arg(z), arg(loss)});
    }
    ASSERT_EQ(tape.records().size(), 4u);
    EXPECT_EQ(tape.records()[1].kind, tape::Record::Copy);
    tape.backward(loss);
    auto g = values_of<double>(*x.grad());
    for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(g[i], std::cos(x0[i] * x0[i]) * 2 * x0[i], 1e-12);
    // Nothing earlier wrote c: its gradient (d loss / d c) stays for the user to read.
    EXPECT_NEAR(values_of<double>(*c.grad())[0], std::cos(x0[0] * x0[0]), 1e-12);

    // A value written by a launch, then replaced by a host write, gets no gradient from what
    // reads the replacement: the overwrite ends its life.
    Array w = vec({1.0, 2.0}), v = zeros(2), u = zeros(2), loss2 = zeros(1);
    tape::Tape t2;
    {
        runtime::ScopedRecorder rec(&t2);
        launch("square", 2, {arg(w), arg(v)});   // v = w^2 ...
        double fresh[2] = {3.0, 4.0};
        v.copy_from_host(fresh, sizeof fresh);  // ... replaced
        launch("sine", 2, {arg(v), arg(u)});
        launch("total", 2, {arg(u), arg(loss2)});
    }
    EXPECT_EQ(t2.records()[1].kind, tape::Record::Overwrite);
    t2.backward(loss2);
    EXPECT_EQ(values_of<double>(*w.grad())[1], 0.0);
    EXPECT_EQ(values_of<double>(*v.grad())[0], 0.0);
}

TEST_P(TapeTest, FloatParametersAndSeedsByArray) {
    Array x = vec({1.0, -2.0, 3.0}), y = zeros(3);
    Array ds = Array::zeros(f64(), {1}, device_);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        runtime::LaunchOptions o;
        o.device = device_;
        o.adj_args = {Array(), ds, Array()};  // the float parameter's adjoint goes to ds
        runtime::launch(m_->kernel("scale"), {3}, {arg(x), num(2.5), arg(y)}, o);
    }
    Array seed = array_of(f64(), std::vector<double>{1.0, 10.0, 100.0}, device_);
    tape.backward({{y, seed}});
    auto gx = values_of<double>(*x.grad());
    EXPECT_DOUBLE_EQ(gx[0], 2.5);
    EXPECT_DOUBLE_EQ(gx[1], 25.0);
    EXPECT_DOUBLE_EQ(gx[2], 250.0);
    EXPECT_DOUBLE_EQ(values_of<double>(ds)[0], 1.0 - 20.0 + 300.0);  // d/ds sum seed_i x_i s
}

TEST_P(TapeTest, ReadThenOverwrittenArrayIsAnErrorNamingBothLaunches) {
    Array x = vec({0.5, 0.25}), y = zeros(2), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 2, {arg(x), arg(y)});     // reads x
        launch("scale", 2, {arg(y), num(3.0), arg(x)});  // writes x: square's backward would see 3 x^2
        launch("total", 2, {arg(x), arg(loss)});
    }
    try {
        tape.backward(loss);
        FAIL() << "expected an overwrite error";
    } catch (const runtime::RuntimeError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("the tape cannot be differentiated: array(float64, shape=(2,), device=" + device_.str() + ")"), std::string::npos) << m;
        EXPECT_NE(m.find("was read by launch of kernel 'square' (chain.py:4) (argument 'x', record 0)"), std::string::npos) << m;
        EXPECT_NE(m.find("overwritten by launch of kernel 'scale' (chain.py:19) (argument 'y', record 1)"), std::string::npos) << m;
    }
    // Gradients were left alone.
    EXPECT_EQ(values_of<double>(*x.grad())[0], 0.0);
    EXPECT_NE(tape.dot().find("color=red"), std::string::npos);

    // zero(), fill() and host writes are overwrites too.
    Array a = vec({1.0}), b = zeros(1), l2 = zeros(1);
    tape::Tape t2;
    {
        runtime::ScopedRecorder rec(&t2);
        launch("square", 1, {arg(a), arg(b)});
        double v = 4.0;
        a.copy_from_host(&v, sizeof v);
        launch("total", 1, {arg(b), arg(l2)});
    }
    try {
        t2.backward(l2);
        FAIL() << "expected an overwrite error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("overwritten by copy from host of array(float64"), std::string::npos) << e.what();
    }
}

TEST_P(TapeTest, OneStatePerStepIsNotAnOverwrite) {
    // Accumulating into a fresh array, then reading it, then moving on to new arrays: the pattern
    // of a differentiable rollout. Kernels that read and write the same array are not flagged.
    Array x = vec({0.5, 0.25}), loss = zeros(1);
    std::vector<Array> states = {x};
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        for (int s = 0; s < 3; ++s) {
            Array next = zeros(2);
            next.zero();
            launch("scale", 2, {arg(states.back()), num(2.0), arg(next)});
            states.push_back(next);
        }
        launch("total", 2, {arg(states.back()), arg(loss)});
    }
    EXPECT_EQ(tape.check_overwrites(), "");
    tape.backward(loss);
    EXPECT_DOUBLE_EQ(values_of<double>(*x.grad())[1], 8.0);
}

TEST_P(TapeTest, AccumulatingIntoALossAcrossLaunchesIsNotAnOverwrite) {
    // total() only does wp.atomic_add(loss, 0, z[i]): later launches adding into the same loss do
    // not change anything an earlier launch's adjoint reads.
    Array x = vec({0.5, 1.5}), y1 = zeros(2), y2 = zeros(2), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 2, {arg(x), arg(y1)});
        launch("total", 2, {arg(y1), arg(loss)});
        launch("scale", 2, {arg(x), num(3.0), arg(y2)});
        launch("total", 2, {arg(y2), arg(loss)});
    }
    EXPECT_EQ(tape.check_overwrites(), "");
    tape.backward(loss);
    auto g = values_of<double>(*x.grad());
    EXPECT_DOUBLE_EQ(g[0], 2 * 0.5 + 3.0);
    EXPECT_DOUBLE_EQ(g[1], 2 * 1.5 + 3.0);
}

TEST_P(TapeTest, BackwardErrorsNameWhatIsWrong) {
    Array x = vec({1.0, 2.0}), nograd = zeros(1, false);
    tape::Tape tape;
    auto message = [&](auto&& f) {
        try {
            f();
        } catch (const runtime::RuntimeError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { tape.backward(x); }),
              "tape.backward: the loss must be one float element; got array(float64, shape=(2,), device=" + device_.str() +
                  ") (seed other outputs with backward(grads={array: gradient}))");
    EXPECT_EQ(message([&] { tape.backward(nograd); }),
              "tape.backward: the loss array(float64, shape=(1,), device=" + device_.str() +
                  ") has no gradient; create it with requires_grad=True");
    Array wrong = zeros(3, false);
    EXPECT_EQ(message([&] { tape.backward({{x, wrong}}); }),
              "tape.backward: the seed array(float64, shape=(3,), device=" + device_.str() +
                  ") does not match array(float64, shape=(2,), device=" + device_.str() + ") (same dtype and shape expected)");
    EXPECT_EQ(message([&] { tape.visualize("/nonexistent-dir/tape.dot"); }), "tape.visualize: cannot write '/nonexistent-dir/tape.dot'");
}

TEST_P(TapeTest, VisualizeWritesAGraphOfLaunchesAndArrays) {
    Array x = vec({1.0}), y = zeros(1), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 1, {arg(x), arg(y)});
        launch("total", 1, {arg(y), arg(loss)});
    }
    auto path = std::filesystem::temp_directory_path() / ("weft_tape_" + device_.str().substr(0, 3) + ".dot");
    tape.visualize(path.string());
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    std::string dot = ss.str();
    EXPECT_EQ(dot.rfind("digraph tape {", 0), 0u);
    EXPECT_NE(dot.find("r0 [shape=box, label=\"0: launch of kernel 'square' (chain.py:4)\\ndim=(1)\"]"), std::string::npos) << dot;
    EXPECT_NE(dot.find("a0 -> r0"), std::string::npos);  // x read by square
    EXPECT_NE(dot.find("r0 -> a1"), std::string::npos);  // y written by square
    EXPECT_NE(dot.find("a1 -> r1"), std::string::npos);  // y read by total
    EXPECT_EQ(dot.find("color=red"), std::string::npos);
    std::filesystem::remove(path);
}

// Backward launches under a Tape do not read their per-thread-tape status back one by one: the
// pass reads them all once at its end and raises the error of the first that overflowed, with
// the message a lone backward launch gives (tests/tape/adjoint_test.cpp).
TEST_P(TapeTest, PerThreadTapeOverflowInAPassIsReportedAtItsEnd) {
    auto m = module_of(R"(
@wp.kernel
def power(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    v = x[0]
    for j in range(n):
        v = v * x[1] + 1.0
    y[0] = v
)", "overflow_pass.py");
    for (int n : {3, 100000}) {
        Array x = vec({1.0, 0.5}), y = zeros(1), z = zeros(1);
        tape::Tape tape;
        {
            runtime::ScopedRecorder rec(&tape);
            run(m, "power", {1}, {arg(x), arg(y), integer(n)}, device_);
            launch("scale", 1, {arg(y), num(2.0), arg(z)});
        }
        if (n == 3) {  // v = ((x0 b + 1) b + 1) b + 1, b = x1 = 0.5: dz/dx0 = 2 b^3
            tape.backward(z);
            EXPECT_DOUBLE_EQ(values_of<double>(*x.grad())[0], 2 * 0.125);
            continue;
        }
        try {
            tape.backward(z);
            FAIL() << "expected the per-thread tape to overflow";
        } catch (const runtime::RuntimeError& e) {
            std::string msg = e.what();
            EXPECT_NE(msg.find("backward launch of kernel 'power' (overflow_pass.py:"), std::string::npos) << msg;
            EXPECT_NE(msg.find("more than the 4096 bytes of its per-thread tape"), std::string::npos) << msg;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, TapeTest, ::testing::Values("cpu", "sim:h200", "cuda:0"),
                         [](const auto& info) { return info.param == "cpu" ? std::string("cpu") : info.param == "cuda:0" ? std::string("cuda") : std::string("sim"); });

// ---------------------------------------------------------------------------------------------
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
            tape::checkpoint([&](int, const tape::StateArrays& in, tape::StateArrays& o2) { do_step(in, o2); }, steps, {x, v}, out);
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
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6 * std::max(1e-3, std::abs(b[i]))) << what << "[" << i << "]";
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
        EXPECT_STREQ(e.what(), "checkpoint: state array 0 is array(float64, shape=(4,), device=cpu) in state_in but "
                               "array(float64, shape=(5,), device=cpu) in state_out");
    }
    tape::StateArrays out2 = {a};
    try {
        tape::checkpoint(noop, 0, {a}, out2);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "checkpoint: n_steps must be at least 1; got 0");
    }
}

// ---------------------------------------------------------------------------------------------
// Jacobians and gradcheck.

const char* kLinear = R"(
@wp.kernel
def matvec(a: wp.array(dtype=wp.float64, ndim=2), x: wp.array(dtype=wp.vec2d), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = a[i, 0] * x[0][0] + a[i, 1] * x[0][1] + a[i, 2] * x[1][0] * x[1][1]

@wp.func
def cube(v: wp.float64) -> wp.float64:
    return v * v * v

@wp.func_grad(cube)
def cube_grad(v: wp.float64, adj_ret: wp.float64) -> wp.float64:
    return 2.0 * v * v * adj_ret

@wp.kernel
def wrong(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = cube(x[i])
)";

TEST(Autograd, JacobianOfALinearKernelIsItsMatrix) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    std::vector<double> av = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    Array a = array_of(f64(), av, cpu, {3, 3});
    Array x = array_of(compiler::vector_type(2, compiler::ScalarKind::Float64), std::vector<double>{0.5, -1.0, 2.0, 3.0}, cpu);
    Array y = Array::zeros(f64(), {3}, cpu);
    tape::JacobianOptions o;
    o.device = cpu;
    auto jac = tape::jacobian(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, o);
    ASSERT_EQ(jac.size(), 2u);  // (a, y) and (x, y)
    const auto& jx = jac[1];
    EXPECT_EQ(jx.input_name, "x");
    EXPECT_EQ(jx.output_name, "y");
    ASSERT_EQ(jx.matrix.rows(), 3);
    ASSERT_EQ(jx.matrix.cols(), 4);
    for (int i = 0; i < 3; ++i) {
        EXPECT_DOUBLE_EQ(jx.matrix(i, 0), av[3 * i]);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 1), av[3 * i + 1]);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 2), av[3 * i + 2] * 3.0);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 3), av[3 * i + 2] * 2.0);
    }
    auto fd = tape::jacobian_fd(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, o);
    EXPECT_LT((fd[1].matrix - jx.matrix).cwiseAbs().maxCoeff(), 1e-8);
    EXPECT_LT((fd[0].matrix - jac[0].matrix).cwiseAbs().maxCoeff(), 1e-8);

    tape::GradcheckOptions g;
    g.jacobian = o;
    auto res = tape::gradcheck(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, g);
    EXPECT_TRUE(res.passed) << res.report;
    EXPECT_NE(res.report.find("x -> y"), std::string::npos);
}

TEST(Autograd, GradcheckNamesTheEntriesOfAWrongAdjoint) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    Array x = array_of(f64(), std::vector<double>{1.0, 2.0}, cpu), y = Array::zeros(f64(), {2}, cpu);
    tape::GradcheckOptions g;
    g.jacobian.device = cpu;
    auto res = tape::gradcheck(m->kernel("wrong"), {2}, {arg(x)}, {arg(y)}, g);
    EXPECT_FALSE(res.passed);
    // d cube / dx = 3 x^2 = 3 and 12; the custom gradient says 2 x^2 = 2 and 8.
    EXPECT_NE(res.report.find("x -> y"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("FAIL (2 entries)"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("d y[1] / d x[1]: adjoint 8, finite difference 12"), std::string::npos) << res.report;
    EXPECT_NEAR(res.max_abs_error, 4.0, 1e-6);
}

TEST(Autograd, ErrorsNameTheKernel) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    Array x = array_of(f64(), std::vector<double>{1.0}, cpu);
    tape::JacobianOptions o;
    o.device = cpu;
    try {
        tape::jacobian(m->kernel("wrong"), {1}, {arg(x)}, {}, o);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "kernel 'wrong' takes 2 arguments; 1 inputs and 0 outputs given");
    }
    try {
        tape::jacobian(m->kernel("wrong"), {1}, {arg(x)}, {arg(x)}, o);
        tape::jacobian_fd(m->kernel("wrong"), {1}, {arg(x)}, {arg(x)}, {cpu, 0, -1, -1.0});
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "jacobian_fd: eps must be positive");
    }
}

}  // namespace
