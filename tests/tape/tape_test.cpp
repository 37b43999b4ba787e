// The Tape (tape/tape.h) on every device present: gradients of chains of launches and copies
// against closed-form derivatives in float64, the overwrite check, backward's errors, the DOT
// picture.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/capture_check.h"
#include "runtime/errors.h"
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
        runtime::copy(c, y);                  // c = x^2
        launch("sine", 2, {arg(c), arg(z)});  // z = sin(x^2)
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
        launch("square", 2, {arg(w), arg(v)});  // v = w^2 ...
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
        launch("square", 2, {arg(x), arg(y)});           // reads x
        launch("scale", 2, {arg(y), num(3.0), arg(x)});  // writes x: square's backward would see 3 x^2
        launch("total", 2, {arg(x), arg(loss)});
    }
    try {
        tape.backward(loss);
        FAIL() << "expected an overwrite error";
    } catch (const runtime::RuntimeError& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("the tape cannot be differentiated: array(float64, shape=(2,), device=" + device_.str() + ")"),
                  std::string::npos)
            << m;
        EXPECT_NE(m.find("was read by launch of kernel 'square' (chain.py:4) (argument 'x', record 0)"), std::string::npos) << m;
        EXPECT_NE(m.find("overwritten by launch of kernel 'scale' (chain.py:19) (argument 'y', record 1)"), std::string::npos)
            << m;
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

// Writes the tape did not record (runtime/write_versions.h): an assign between two recorded
// launches, a launch while the tape is inactive, a zero after the recording. Each gave wrong
// gradients silently; each is now refused, naming the array, the reading record and the writer.
TEST_P(TapeTest, WritesOutsideTheTapeAreFoundAtBackward) {
    auto message = [&](tape::Tape& t, const Array& loss) {
        try {
            t.backward(loss);
        } catch (const runtime::RuntimeError& e) { return std::string(e.what()); }
        return std::string("no error");
    };
    const std::string arr = "array(float64, shape=(2,), device=" + device_.str() + ")";
    {  // assign while the tape is suspended, between two records
        Array x = vec({0.5, 0.25}), y = zeros(2), loss = zeros(1), other = vec({9.0, 9.0}, false);
        tape::Tape tape;
        runtime::Recorder* previous = runtime::exchange_recorder(&tape);
        launch("square", 2, {arg(x), arg(y)});
        runtime::exchange_recorder(nullptr);
        x.assign(other);  // not recorded: square's adjoint would read 9 instead of 0.5
        runtime::exchange_recorder(&tape);
        launch("total", 2, {arg(y), arg(loss)});
        runtime::exchange_recorder(previous);
        EXPECT_EQ(message(tape, loss), "the tape cannot be differentiated: " + arr +
                                           " was read by launch of kernel 'square' (chain.py:4) (argument 'x', record 0) and "
                                           "then overwritten outside the tape by copy (assign), after record 0, its last use on "
                                           "the tape; the "
                                           "backward pass of the first would see the new values. Record that write on the "
                                           "tape, or write to a new array instead");
        EXPECT_EQ(values_of<double>(*x.grad())[0], 0.0);  // refused before any gradient was touched
    }
    {  // a launch outside the tape that writes an array a recorded launch read, then another record reading it
        Array x = vec({0.5, 0.25}), y = zeros(2), z = zeros(2), loss = zeros(1);
        tape::Tape tape;
        {
            runtime::ScopedRecorder rec(&tape);
            launch("square", 2, {arg(x), arg(y)});
        }
        launch("scale", 2, {arg(y), num(2.0), arg(x)});  // writes x, unrecorded
        {
            runtime::ScopedRecorder rec(&tape);
            launch("scale", 2, {arg(x), num(1.0), arg(z)});  // reads the new x
            launch("total", 2, {arg(z), arg(loss)});
        }
        EXPECT_EQ(message(tape, loss), "the tape cannot be differentiated: " + arr +
                                           " was read by launch of kernel 'square' (chain.py:4) (argument 'x', record 0) and "
                                           "then overwritten outside the tape by launch of kernel 'scale', before record 1 "
                                           "(launch of kernel 'scale' (chain.py:19)); the backward pass of the first would see "
                                           "the new values. Record that write on the tape, or write to a new array instead");
    }
    {  // a write before anything read the array, and a write to an array only written, are fine
        Array x = vec({0.5, 0.25}), y = zeros(2), loss = zeros(1);
        tape::Tape tape;
        {
            runtime::ScopedRecorder rec(&tape);
            launch("square", 2, {arg(x), arg(y)});
            launch("total", 2, {arg(y), arg(loss)});
        }
        tape.backward(loss);
        auto g = values_of<double>(*x.grad());
        EXPECT_DOUBLE_EQ(g[0], 1.0);
        EXPECT_DOUBLE_EQ(g[1], 0.5);
        tape.zero();
        tape.backward(loss);  // a second pass: what the first wrote is not an outside write
        EXPECT_DOUBLE_EQ(values_of<double>(*x.grad())[0], 1.0);
        tape.reset();  // forgets the versions too
        x.zero();
        EXPECT_EQ(tape.check_overwrites(), "");
    }
}

// A loss the tape never wrote (computed before or outside the recording) would give zeros everywhere.
TEST_P(TapeTest, BackwardFromALossNotOnTheTapeIsRefused) {
    Array x = vec({0.5, 0.25}), y = zeros(2), loss = zeros(1);
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        launch("square", 2, {arg(x), arg(y)});
    }
    launch("total", 2, {arg(y), arg(loss)});  // outside the tape
    try {
        tape.backward(loss);
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_EQ(std::string(e.what()), "tape.backward: the loss array(float64, shape=(1,), device=" + device_.str() +
                                             ") was not written by any record of this tape (1 records): its gradient would "
                                             "reach nothing and every gradient would stay zero. Compute the loss while the "
                                             "tape records (inside `with wp.Tape()`)");
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
        } catch (const runtime::RuntimeError& e) { return std::string(e.what()); }
        return std::string("no error");
    };
    EXPECT_EQ(message([&] { tape.backward(x); }),
              "tape.backward: the loss must be one float element; got array(float64, shape=(2,), device=" + device_.str() +
                  ") (seed other outputs with backward(grads={array: gradient}))");
    EXPECT_EQ(message([&] { tape.backward(nograd); }),
              "tape.backward: the loss array(float64, shape=(1,), device=" + device_.str() +
                  ") has no gradient; create it with requires_grad=True");
    Array wrong = zeros(3, false);
    EXPECT_EQ(message([&] {
                  tape.backward({{x, wrong}});
              }),
              "tape.backward: the seed array(float64, shape=(3,), device=" + device_.str() +
                  ") does not match array(float64, shape=(2,), device=" + device_.str() + ") (same dtype and shape expected)");
    EXPECT_EQ(message([&] { tape.visualize("/nonexistent-dir/tape.dot"); }),
              "tape.visualize: cannot write '/nonexistent-dir/tape.dot'");
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
    EXPECT_NE(dot.find("r0 [shape=box, label=\"0: launch of kernel 'square' (chain.py:4)\\ndim=(1)\"]"), std::string::npos)
        << dot;
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
)",
                       "overflow_pass.py");
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

// A recorded pass and its backward pass under a capture check (runtime/capture_check.h): nothing
// they do would break a CUDA graph capture, the gradient equals the unchecked pass's, and a
// per-thread tape overflow is not raised inside the check but at the next synchronising point
// after it (here a copy to the host), naming the kernel, as after a replay of a captured pass.
TEST_P(TapeTest, ABackwardPassUnderTheCaptureRulesReportsItsStatusAfterwards) {
    auto m = module_of(R"(
@wp.kernel
def power(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    v = x[0]
    for j in range(n):
        v = v * x[1] + 1.0
    y[0] = v
)",
                       "overflow_capture.py");
    auto pass = [&](int n, Array& x, Array& y, Array& z, runtime::CaptureCheck* check) {
        tape::Tape tape;
        {
            runtime::ScopedRecorder rec(&tape);
            run(m, "power", {1}, {arg(x), arg(y), integer(n)}, device_);
            launch("scale", 1, {arg(y), num(2.0), arg(z)});
        }
        tape.backward(z);
        if (check) check->end();
    };
    Array x0 = vec({1.0, 0.5}), y0 = zeros(1), z0 = zeros(1);
    pass(3, x0, y0, z0, nullptr);  // loads the modules: a capture cannot
    const double eager = values_of<double>(*x0.grad())[0];
    EXPECT_DOUBLE_EQ(eager, 2 * 0.125);
    for (int n : {3, 100000}) {
        Array x = vec({1.0, 0.5}), y = zeros(1), z = zeros(1);  // allocated before the capture
        {
            runtime::CaptureCheck check(device_);
            pass(n, x, y, z, &check);  // raises nothing, even when a thread overflowed
        }
        if (n == 3) {
            EXPECT_EQ(values_of<double>(*x.grad())[0], eager);
            continue;
        }
        try {
            values_of<double>(*x.grad());
            FAIL() << "expected the deferred status check to report the overflow";
        } catch (const runtime::RuntimeError& e) {
            std::string msg = e.what();
            EXPECT_NE(msg.find("backward launch of kernel 'power' (overflow_capture.py:"), std::string::npos) << msg;
            EXPECT_NE(msg.find("more than the 4096 bytes of its per-thread tape"), std::string::npos) << msg;
            EXPECT_NE(msg.find("(found after a replay of a captured backward pass)"), std::string::npos) << msg;
        }
        EXPECT_NO_THROW(values_of<double>(*x.grad())) << "reported once";
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, TapeTest, ::testing::Values("cpu", "sim:h200", "cuda:0"), [](const auto& info) {
    return info.param == "cpu" ? std::string("cpu") : info.param == "cuda:0" ? std::string("cuda") : std::string("sim");
});

}  // namespace
