// tests/tape/tape_capture_test.cpp: a Tape's forward launches and its backward pass captured into
// one CUDA graph and replayed (issue 20: nothing a backward pass does may synchronise or read
// host memory), against the same passes run eagerly; and pattern fills on the device, which
// seed the loss gradient inside the capture. Skipped, with the reason, without a GPU.
#include <gtest/gtest.h>

#include "runtime/cuda/stream.h"
#include "runtime/recorder.h"
#include "tape/tape.h"
#include "tests/runtime/cuda/cuda_test_support.h"

namespace weft::runtime {
namespace {

using namespace testing;
using compiler::float32_type;

const char* kKernels = R"PY(import weft as wp

@wp.kernel
def square_sum(x: wp.array(dtype=float), y: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i] * x[i] + wp.sin(y[i])
    wp.atomic_add(loss, 0, v)
)PY";

// One forward (y-independent weights) and backward pass; the gradient of loss = sum x^2 + sin y.
struct Pass {
    Array x, y, loss;
    explicit Pass(const std::vector<float>& xs, const std::vector<float>& ys) {
        x = to_device(xs, float32_type(), cuda0());
        y = to_device(ys, float32_type(), cuda0());
        x.set_requires_grad(true);
        y.set_requires_grad(true);
        loss = Array::zeros(float32_type(), {1}, cuda0(), true);
    }
    void run(const Kernel& k) {
        tape::Tape t;
        LaunchOptions o;
        o.device = cuda0();
        {
            ScopedRecorder rec(&t);
            launch(k, {x.size()}, {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::of(loss)}, o);
        }
        t.backward(loss);
    }
};

TEST(TapeCapture, ForwardAndBackwardReplayAsOneGraph) {
    WEFT_REQUIRE_GPU();
    auto m = Module::compile({{"capture_kernels.py", kKernels}});
    const Kernel k = m->kernel("square_sum");
    const size_t n = 5000;
    auto xs = random_floats(n, 3), ys = random_floats(n, 4);

    Pass eager(xs, ys);
    eager.run(k);  // also loads the module (forward and backward) before the capture
    std::vector<float> gx = to_host<float>(*eager.x.grad()), gy = to_host<float>(*eager.y.grad());
    for (size_t i = 0; i < n; ++i) ASSERT_NEAR(gx[i], 2.0f * xs[i], 1e-5f) << i;

    Pass captured(xs, ys);
    Stream s(cuda0());
    synchronize(cuda0());
    begin_capture(s);
    captured.run(k);  // records the forward launch, the seed fill and the adjoint launch
    Graph g = end_capture(s);
    // Nothing ran yet: the gradients are still zero.
    EXPECT_EQ(to_host<float>(*captured.x.grad()), std::vector<float>(n, 0.0f));
    g.launch(s);
    s.synchronize();
    EXPECT_EQ(to_host<float>(*captured.x.grad()), gx);
    EXPECT_EQ(to_host<float>(*captured.y.grad()), gy);
    // A second replay accumulates a second gradient, as a second eager pass does.
    g.launch(s);
    s.synchronize();
    std::vector<float> twice = to_host<float>(*captured.x.grad());
    for (size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(twice[i], 2.0f * gx[i]) << i;
}

TEST(TapeCapture, FillsAreDeviceMemsetsOfAnyElementPattern) {
    WEFT_REQUIRE_GPU();
    // A uniform word (float 1.0), a vec3 of three different words, and 2-byte elements.
    Array a = Array::zeros(float32_type(), {1000}, cuda0());
    float one = 1.0f;
    Array v = Array::zeros(compiler::vector_type(3, compiler::ScalarKind::Float32), {777}, cuda0());
    const float xyz[3] = {1.5f, -2.0f, 3.25f};
    Array h = Array::zeros(compiler::scalar_type(compiler::ScalarKind::Float16), {33}, cuda0());
    const uint16_t half = 0x3c00;  // 1.0 in binary16
    Stream s(cuda0());
    synchronize(cuda0());
    begin_capture(s);  // copies from host memory could not be captured: fills must be memsets
    a.fill(&one);
    v.fill(xyz);
    h.fill(&half);
    Graph g = end_capture(s);
    g.launch(s);
    s.synchronize();
    EXPECT_EQ(to_host<float>(a), std::vector<float>(1000, 1.0f));
    std::vector<float> vs = to_host<float>(v);
    for (size_t i = 0; i < 777; ++i) ASSERT_TRUE(vs[3 * i] == 1.5f && vs[3 * i + 1] == -2.0f && vs[3 * i + 2] == 3.25f) << i;
    EXPECT_EQ(to_host<uint16_t>(h), std::vector<uint16_t>(33, half));
}

}  // namespace
}  // namespace weft::runtime
