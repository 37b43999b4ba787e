// runtime/capture_check.h on the cpu device: what a CUDA graph capture cannot record is refused
// under a CaptureCheck, with a message naming the operation; what it can record runs; an array
// allocated during the check and alive at its end is refused; deferred checks run at the next
// synchronising point after the check and report once.
#include <gtest/gtest.h>

#include "runtime/capture_check.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::Array;

const char* kKernels = R"(
@wp.kernel
def twice(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]

@wp.kernel
def never_launched(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0
)";

// The message of the RuntimeError `f` raises ("" when it raises nothing).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const runtime::RuntimeError& e) { return e.what(); }
    return "";
}

class CaptureCheckTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!runtime::device_available(cpu_)) GTEST_SKIP() << "no cpu device in this build";
        m_ = module_of(kKernels, "capture_kernels.py");
        x_ = array_of(compiler::float32_type(), std::vector<float>{1, 2, 3, 4}, cpu_);
        y_ = Array::zeros(compiler::float32_type(), {4}, cpu_);
        run(m_, "twice", {4}, {arg(x_), arg(y_)}, cpu_);  // loads the module before any check
    }
    runtime::Device cpu_;
    std::shared_ptr<runtime::Module> m_;
    Array x_, y_;
};

TEST_F(CaptureCheckTest, LaunchesFillsAndDeviceCopiesAreRecordable) {
    {
        runtime::CaptureCheck check(cpu_);
        EXPECT_TRUE(runtime::capturing(cpu_));
        run(m_, "twice", {4}, {arg(x_), arg(y_)}, cpu_);
        y_.zero();
        float one = 1.0f;
        y_.fill(&one);
        y_.assign(x_);
        {
            Array scratch = Array::zeros(compiler::float32_type(), {8}, cpu_);  // freed inside: a graph can do that
        }
        check.end();
    }
    EXPECT_FALSE(runtime::capturing(cpu_));
    EXPECT_EQ(values_of<float>(y_), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(CaptureCheckTest, HostCopiesAreRefusedNamingTheArray) {
    runtime::CaptureCheck check(cpu_);
    std::vector<float> host(4);
    EXPECT_EQ(error_of([&] { y_.copy_to_host(host.data(), 16); }),
              "a copy of array(float32, shape=(4,), device=cpu) to the host during a graph capture on cpu: the captured "
              "work has not run yet, and the read would wait for it; read results after replaying the graph "
              "(docs/autodiff.md, \"Capturing a backward pass\")");
    EXPECT_EQ(error_of([&] { y_.copy_from_host(host.data(), 16); }),
              "a copy from host memory into array(float32, shape=(4,), device=cpu) during a graph capture on cpu: a graph "
              "cannot record a copy from pageable host memory (it would copy whatever the buffer holds when it replays); "
              "fill or zero the array on the device, or copy from an array of the device (docs/autodiff.md, \"Capturing a "
              "backward pass\")");
}

TEST_F(CaptureCheckTest, AKernelsFirstLaunchIsRefusedNamingTheKernel) {
    // A module is loaded as a whole on its first launch: a kernel of a module never launched on
    // the device (the fixture's module is loaded already).
    std::shared_ptr<runtime::Module> fresh = module_of(kKernels, "capture_kernels_fresh.py");
    Array z = Array::zeros(compiler::float32_type(), {4}, cpu_);
    runtime::CaptureCheck check(cpu_);
    EXPECT_EQ(error_of([&] { run(fresh, "never_launched", {4}, {arg(z)}, cpu_); }),
              "the first launch of kernel 'never_launched' on cpu during a graph capture on cpu: it loads the kernel's "
              "module, which a capture cannot record; launch the kernel once before capturing (docs/autodiff.md, "
              "\"Capturing a backward pass\")");
}

// On the sim device (as on cuda) a module's backward code is compiled and loaded on its first
// backward launch (runtime/module.h, "Backward code on first use"): a forward launch leaves it
// unloaded, a first backward launch during a capture is refused naming that, and once one has run
// eagerly (with the gradient it must give) the same launch is capturable. The cpu device loads
// whole modules: its forward launch loaded the backward code too.
TEST_F(CaptureCheckTest, AFirstBackwardLaunchOnAGpuDeviceIsRefusedUntilItsCodeIsLoaded) {
    EXPECT_TRUE(m_->is_loaded(cpu_, false, /*backward=*/true));
    const runtime::Device sim = runtime::parse_device("sim:h200");
    if (!runtime::device_available(sim)) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    std::shared_ptr<runtime::Module> m = module_of(kKernels, "capture_kernels_sim.py");
    Array x = array_of(compiler::float32_type(), std::vector<float>{1, 2, 3, 4}, sim);
    Array y = Array::zeros(compiler::float32_type(), {4}, sim);
    x.set_requires_grad(true);
    y.set_requires_grad(true);
    run(m, "twice", {4}, {arg(x), arg(y)}, sim);
    EXPECT_TRUE(m->is_loaded(sim, false));
    EXPECT_FALSE(m->is_loaded(sim, false, /*backward=*/true));
    EXPECT_EQ(values_of<float>(y), (std::vector<float>{2, 4, 6, 8}));

    y.grad()->copy_from_host(std::vector<float>{1, 10, 100, 1000}.data(), 16);
    runtime::LaunchOptions o;
    o.device = sim;
    o.adjoint = true;
    o.adjoint_status = Array::zeros(compiler::int32_type(), {4}, sim);
    {
        runtime::CaptureCheck check(sim);
        EXPECT_EQ(error_of([&] {
                      runtime::launch(m->kernel("twice"), {4}, {arg(x), arg(y)}, o);
                  }),
                  "the first backward launch of kernel 'twice' on sim:h200 during a graph capture on sim:h200: it loads the "
                  "kernel's backward code, which a capture cannot record; run the backward pass once before capturing "
                  "(docs/autodiff.md, \"Capturing a backward pass\")");
    }
    EXPECT_FALSE(m->is_loaded(sim, false, true));  // the refused launch loaded nothing
    runtime::launch(m->kernel("twice"), {4}, {arg(x), arg(y)}, o);
    EXPECT_TRUE(m->is_loaded(sim, false, true));
    EXPECT_EQ(values_of<float>(*x.grad()), (std::vector<float>{2, 20, 200, 2000}));  // d(2x)/dx = 2
    {
        runtime::CaptureCheck check(sim);
        EXPECT_EQ(error_of([&] { runtime::launch(m->kernel("twice"), {4}, {arg(x), arg(y)}, o); }), "");
    }
    EXPECT_EQ(values_of<float>(*x.grad()), (std::vector<float>{4, 40, 400, 4000}));  // gradients accumulate
}

TEST_F(CaptureCheckTest, DebugLaunchesAndUncheckedBackwardLaunchesAreRefused) {
    runtime::CaptureCheck check(cpu_);
    std::string debug = error_of([&] { run(m_, "twice", {4}, {arg(x_), arg(y_)}, cpu_, /*debug=*/1); });
    EXPECT_EQ(debug.rfind("a debug-mode launch of kernel 'twice' during a graph capture on cpu: debug launches read their "
                          "bounds record back after each launch; capture without debug mode",
                          0),
              0u)
        << debug;
    runtime::LaunchOptions o;
    o.device = cpu_;
    o.adjoint = true;
    std::string adj = error_of([&] { runtime::launch(m_->kernel("twice"), {4}, {arg(x_), arg(y_)}, o); });
    EXPECT_EQ(adj.rfind("a backward launch of kernel 'twice' without an adjoint_status during a graph capture on cpu: it "
                        "reads its per-thread tape status back after the launch; pass LaunchOptions::adjoint_status (a "
                        "Tape's backward pass does: tape::deferred_adjoint_status)",
                        0),
              0u)
        << adj;
}

TEST_F(CaptureCheckTest, AnArrayAllocatedDuringTheCheckMustNotOutliveIt) {
    Array kept;
    runtime::CaptureCheck check(cpu_);
    kept = Array::zeros(compiler::float32_type(), {3}, cpu_);
    EXPECT_EQ(error_of([&] { check.end(); }),
              "capture check on cpu: array(float32, shape=(3,), device=cpu) was allocated during the capture and is still "
              "alive at its end; a CUDA graph would hold it as a graph allocation, and the graph could not be replayed "
              "again while it lives. Allocate it before capturing");
}

TEST_F(CaptureCheckTest, DeferredChecksRunAtTheNextSynchronisingPointOnce) {
    int runs = 0;
    {
        runtime::CaptureCheck check(cpu_);
        EXPECT_TRUE(runtime::defer_check(cpu_, [&] {
            ++runs;
            return std::string("status word 3 of kernel 'twice' says no");
        }));
        check.end();
    }
    EXPECT_FALSE(runtime::defer_check(cpu_, [] { return std::string(); })) << "no capture to keep it";
    EXPECT_EQ(runs, 0) << "nothing synchronised yet";
    std::vector<float> host(4);
    EXPECT_EQ(error_of([&] { y_.copy_to_host(host.data(), 16); }), "status word 3 of kernel 'twice' says no");
    EXPECT_EQ(error_of([&] { y_.copy_to_host(host.data(), 16); }), "") << "reported once per run of the captured work";
    EXPECT_EQ(runs, 1);
}

}  // namespace
