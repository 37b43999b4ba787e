// Adjoint kernels (launch(..., adjoint=true)) against central finite differences in float64, for
// every statement form of the kernel language, on every device present.
//
// Each kernel reads x (float64 inputs) and writes y (float64 outputs). The loss is L = sum_j w_j y_j
// for fixed weights w; its gradient dL/dx comes once from the backward launch (y.grad = w) and once
// from central differences of forward launches, (L(x + h e_k) - L(x - h e_k)) / 2h.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/diagnostics.h"
#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

compiler::Type f64() { return compiler::float64_type(); }

class Adjoint : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        device_ = runtime::parse_device(GetParam());
        if (!runtime::device_available(device_)) GTEST_SKIP() << "device " << GetParam() << " is not available here";
    }
    const runtime::Device& dev() const { return device_; }

    // Forward value of L = sum w_j y_j.
    double loss(const std::shared_ptr<runtime::Module>& m, const std::string& kernel, int64_t dim, const std::vector<double>& x,
                const std::vector<double>& w, const std::vector<runtime::LaunchArg>& extra) {
        auto xa = array_of(f64(), x, dev());
        auto ya = runtime::Array::zeros(f64(), {static_cast<int64_t>(w.size())}, dev());
        std::vector<runtime::LaunchArg> args = {arg(xa), arg(ya)};
        args.insert(args.end(), extra.begin(), extra.end());
        run(m, kernel, {dim}, args, dev());
        auto y = values_of<double>(ya);
        double l = 0;
        for (size_t j = 0; j < w.size(); ++j) l += w[j] * y[j];
        return l;
    }

    // dL/dx from the backward launch.
    std::vector<double> adjoint(const std::shared_ptr<runtime::Module>& m, const std::string& kernel, int64_t dim,
                                const std::vector<double>& x, const std::vector<double>& w,
                                const std::vector<runtime::LaunchArg>& extra) {
        auto xa = array_of(f64(), x, dev());
        auto ya = runtime::Array::zeros(f64(), {static_cast<int64_t>(w.size())}, dev());
        xa.set_requires_grad(true);
        ya.set_requires_grad(true);
        std::vector<runtime::LaunchArg> args = {arg(xa), arg(ya)};
        args.insert(args.end(), extra.begin(), extra.end());
        run(m, kernel, {dim}, args, dev());
        ya.grad()->copy_from_host(w.data(), w.size() * sizeof(double));
        runtime::LaunchOptions o;
        o.device = dev();
        o.adjoint = true;
        runtime::launch(m->kernel(kernel), {dim}, args, o);
        return values_of<double>(*xa.grad());
    }

    void expect_matches_fd(const std::string& src, int64_t dim, const std::vector<double>& x, size_t ny,
                           const std::vector<runtime::LaunchArg>& extra = {}, double h = 1e-6) {
        auto m = module_of(src);
        std::vector<double> w(ny);
        for (size_t j = 0; j < ny; ++j) w[j] = 0.5 + 0.25 * static_cast<double>(j % 5);
        auto g = adjoint(m, "k", dim, x, w, extra);
        ASSERT_EQ(g.size(), x.size());
        for (size_t k = 0; k < x.size(); ++k) {
            auto xp = x, xm = x;
            xp[k] += h;
            xm[k] -= h;
            double fd = (loss(m, "k", dim, xp, w, extra) - loss(m, "k", dim, xm, w, extra)) / (2 * h);
            double tol = 1e-6 * std::max(1.0, std::abs(fd));
            EXPECT_NEAR(g[k], fd, tol) << "dL/dx[" << k << "]";
        }
    }

    runtime::Device device_;
};

TEST_P(Adjoint, StraightLineBuiltinsAndOperators) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = x[i]
    b = wp.sin(a) * a + wp.exp(a * 0.5) / (1.0 + a * a)
    c = -b + wp.sqrt(a * a + 2.0) - wp.pow(wp.abs(a) + 1.0, 1.5)
    y[i] = c * b + wp.min(a, c) + wp.max(a, 0.25)
)",
                      3, {0.3, -0.7, 1.9}, 3);
}

TEST_P(Adjoint, IfElifElse) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a = x[i]
    r = a
    if a < -1.0:
        r = a * a * 3.0
    elif a < 0.5:
        r = wp.cos(a) * r
        r = r * a
    else:
        r = a / (1.0 + r)
    y[i] = r + (a * 2.0 if a > 0.0 else a * a)
)",
                      4, {-1.5, -0.2, 0.9, 2.0}, 4);
}

TEST_P(Adjoint, StaticAndDynamicLoops) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    a = x[0]
    acc = x[1]
    for j in range(4):
        acc = acc * a + 1.0
    s = wp.float64(0.0)
    for j in range(n):
        s = s * a + x[2] * wp.float64(j)
    for j in range(n, 0, -2):
        s = s + wp.sin(s) * a
    y[0] = acc
    y[1] = s
)",
                      1, {0.9, 0.4, 1.3}, 2, {integer(7)});
}

// x <- x a + b, iterated n times (n a kernel argument): exact in a, b and x0, checked both against
// finite differences and against the closed form dx_n/dx0 = a^n.
TEST_P(Adjoint, DynamicLoopCarriedValueIsExact) {
    std::string src = R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    a = x[0]
    b = x[1]
    v = x[2]
    for j in range(n):
        v = v * a + b
    y[0] = v
)";
    expect_matches_fd(src, 1, {0.8, 0.3, 1.7}, 1, {integer(25)});
    auto m = module_of(src);
    auto g = adjoint(m, "k", 1, {0.8, 0.3, 1.7}, {1.0}, {integer(25)});
    EXPECT_NEAR(g[2], std::pow(0.8, 25), 1e-14);
    EXPECT_NEAR(g[1], (1 - std::pow(0.8, 25)) / (1 - 0.8), 1e-12);
}

TEST_P(Adjoint, WhileBreakContinue) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    a = x[0]
    v = x[1]
    j = 0
    while v < 50.0:
        v = v * a + 0.5
        j += 1
    s = wp.float64(0.0)
    for i in range(20):
        if i % 3 == 1:
            continue
        s = s + v * wp.float64(i) * a
        if s > 400.0:
            break
        s = s * 0.9
    y[0] = v
    y[1] = s
)",
                      1, {1.7, 1.1}, 2);
}

TEST_P(Adjoint, EarlyReturnInsideLoop) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    for j in range(10):
        v = v * 1.3 + wp.sin(v)
        if v > 5.0:
            y[i] = v * v
            return
    y[i] = -v
)",
                      3, {0.2, 1.5, -2.0}, 3);
}

TEST_P(Adjoint, FuncsTupleReturnsAndEarlyReturn) {
    expect_matches_fd(R"(
@wp.func
def poly(a: wp.float64, b: wp.float64):
    if a > b:
        return a * b, a - b
    return a * a, b * 2.0

@wp.func
def clamp_sq(v: wp.float64) -> wp.float64:
    for j in range(3):
        if v > 1.0:
            return v * v
        v = v * 2.0
    return v

@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    p, q = poly(x[0], x[1])
    y[0] = p * q + clamp_sq(x[2])
    r, s = poly(x[1], x[0])
    y[1] = r / (1.0 + s * s) + clamp_sq(x[3])
)",
                      1, {0.7, 1.2, 0.2, 1.4}, 2);
}

TEST_P(Adjoint, CustomGradReplacesTheFuncsAdjoint) {
    // The custom adjoint of sq is deliberately 3 a instead of 2 a, so that it is visibly used.
    auto m = module_of(R"(
@wp.func
def sq(a: wp.float64) -> wp.float64:
    return a * a

@wp.func_grad(sq)
def sq_grad(a: wp.float64, adj_ret: wp.float64) -> wp.float64:
    return 3.0 * a * adj_ret

@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = sq(x[i]) * 2.0
)");
    auto g = adjoint(m, "k", 2, {1.5, -0.5}, {1.0, 1.0}, {});
    EXPECT_DOUBLE_EQ(g[0], 2.0 * 3.0 * 1.5);
    EXPECT_DOUBLE_EQ(g[1], 2.0 * 3.0 * -0.5);
}

TEST_P(Adjoint, CustomGradInWarpsAdjointForm) {
    // Warp writes custom gradients by adding into wp.adjoint[x]; deliberately 3 a and 5 b here.
    auto m = module_of(R"(
@wp.func
def mul(a: wp.float64, b: wp.float64) -> wp.float64:
    return a * b

@wp.func_grad(mul)
def mul_grad(a: wp.float64, b: wp.float64, adj_ret: wp.float64):
    wp.adjoint[a] += 3.0 * b * adj_ret
    if adj_ret > 0.0:
        wp.adjoint[b] += 5.0 * a * adj_ret

@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = mul(x[i], x[i] + 1.0)
)");
    auto g = adjoint(m, "k", 2, {1.5, -0.5}, {1.0, -1.0}, {});
    EXPECT_DOUBLE_EQ(g[0], 3.0 * 2.5 + 5.0 * 1.5);  // adj_ret = 1: both accumulate
    EXPECT_DOUBLE_EQ(g[1], -3.0 * 0.5);             // adj_ret = -1: only wp.adjoint[a]
}

TEST_P(Adjoint, ComponentWritesStructsAndInPlaceOps) {
    expect_matches_fd(R"(
@wp.struct
class Body:
    pos: wp.vec3d
    mass: wp.float64

@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    v = wp.vec3d(x[0], x[1], x[2])
    v[0] = v[1] * v[2]
    v.y = v.x + x[0]
    m = wp.mat22d(x[0], x[1], x[2], x[3])
    m[0, 1] = m[1, 0] * x[0]
    b = Body()
    b.pos = v * 2.0
    b.mass = x[3]
    b.pos[2] *= b.mass
    b.mass /= x[1]
    w = wp.dot(b.pos, v) + b.mass
    w *= m[0, 1] + m[1, 1]
    y[0] = w
    y[1] = wp.length(v) + wp.determinant(m)
)",
                      1, {0.6, 1.3, -0.4, 0.9}, 2);
}

TEST_P(Adjoint, AtomicsAndAugmentedArrayWrites) {
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(y, 0, x[i] * x[i])
    y[1] += wp.sin(x[i])
    y[1] -= x[i] * 0.5
)",
                      4, {0.1, 0.5, -0.8, 1.2}, 2);
}

// Warp shuffles of float values: each adjoint goes back to the lane its value came from. Uniform
// offsets (one shuffle of adjoints) and lane-dependent sources and offsets (the broadcast loop),
// with a full warp and with lanes 24..31 returned before the shuffles.
TEST_P(Adjoint, WarpShufflesSendAdjointsBackToTheirSourceLanes) {
    std::vector<double> x(64);
    for (size_t k = 0; k < x.size(); ++k) x[k] = 0.3 + 0.05 * static_cast<double>(k % 13) - 0.02 * static_cast<double>(k);
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    lane = wp.lane_id()
    v = x[i] * x[i]
    a = wp.shfl_down_sync(0xffffffff, v, 3)
    b = wp.shfl_up_sync(0xffffffff, wp.sin(x[i]), 5)
    c = wp.shfl_xor_sync(0xffffffff, v, 6)
    d = wp.shfl_sync(0xffffffff, x[i], (lane * 7) % 32)
    e = wp.shfl_down_sync(0xffffffff, x[i], lane % 3)
    y[i] = a * x[i] + b + c * d + e * e
)",
                      64, x, 64);
    expect_matches_fd(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    lane = wp.lane_id()
    if lane >= 24:
        return
    p = wp.vec2d(x[i], x[i] * x[i])
    q = wp.shfl_xor_sync(0xffffffff, p, 1)
    y[i] = wp.shfl_sync(0xffffffff, x[i] * x[i], lane % 8) + q[0] * q[1] + wp.shfl_up_sync(0xffffffff, x[i], 2)
)",
                      64, x, 64);
}

TEST_P(Adjoint, FloatParameterAdjoint) {
    auto m = module_of(R"(
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), s: wp.float64):
    i = wp.tid()
    y[i] = s * s * x[i]
)");
    auto xa = array_of(f64(), std::vector<double>{1.0, 2.0, 3.0}, dev());
    auto ya = runtime::Array::zeros(f64(), {3}, dev(), true);
    xa.set_requires_grad(true);
    auto gs = runtime::Array::zeros(f64(), {1}, dev());
    std::vector<double> ones = {1.0, 1.0, 1.0};
    ya.grad()->copy_from_host(ones.data(), 24);
    runtime::LaunchOptions o;
    o.device = dev();
    o.adjoint = true;
    o.adj_args = {runtime::Array(), runtime::Array(), gs};
    runtime::launch(m->kernel("k"), {3}, {arg(xa), arg(ya), num(1.5)}, o);
    EXPECT_DOUBLE_EQ(values_of<double>(gs)[0], 2 * 1.5 * (1.0 + 2.0 + 3.0));
    EXPECT_EQ(values_of<double>(*xa.grad()), (std::vector<double>{2.25, 2.25, 2.25}));
}

TEST_P(Adjoint, TapeOverflowIsAnErrorNamingTheKernel) {
    auto m = runtime::Module::compile({{"overflow.py", R"(import weft as wp
@wp.kernel
def k(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    v = x[0]
    for j in range(n):
        v = v * x[1] + 1.0
    y[0] = v
)",
                                        0}});
    auto xa = array_of(f64(), std::vector<double>{1.0, 0.5}, dev());
    auto ya = runtime::Array::zeros(f64(), {1}, dev(), true);
    xa.set_requires_grad(true);
    runtime::LaunchOptions o;
    o.device = dev();
    o.adjoint = true;
    try {
        runtime::launch(m->kernel("k"), {1}, {arg(xa), arg(ya), integer(100000)}, o);
        FAIL() << "expected the tape to overflow";
    } catch (const runtime::RuntimeError& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("backward launch of kernel 'k' (overflow.py:3)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("more than the 4096 bytes of its per-thread tape"), std::string::npos) << msg;
    }
    // A status array given by the caller (LaunchOptions::adjoint_status) must be 4 int32 there.
    o.adjoint_status = runtime::Array::zeros(f64(), {4}, dev());
    try {
        runtime::launch(m->kernel("k"), {1}, {arg(xa), arg(ya), integer(3)}, o);
        FAIL() << "expected the status array to be refused";
    } catch (const runtime::RuntimeError& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("backward launch of kernel 'k': adjoint_status must be 4 int32 on"), std::string::npos) << msg;
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, Adjoint, ::testing::Values("cpu", "sim:h200", "cuda:0"), [](const auto& info) {
    std::string n = info.param;
    for (char& c : n)
        if (c == ':') c = '_';
    return n;
});

// A builtin without an adjoint on a differentiable path is a compile error that names it.
// (randf(state, lo, hi) = lo + (hi - lo) u has a derivative in lo and hi, and no adjoint yet.)
TEST(AdjointDiagnostics, BuiltinWithoutAdjointIsNamed) {
    try {
        runtime::Module::compile({{"noadj.py", R"(import weft as wp
@wp.kernel
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(7, i)
    y[i] = wp.randf(state, x[i], 2.0)
)",
                                   0}});
        FAIL() << "expected a compile error";
    } catch (const compiler::CompileError& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find("noadj.py:6:12: error: 'randf' has no adjoint, and kernel 'k' differentiates through it"),
                  std::string::npos)
            << msg;
    }
}

TEST(AdjointDiagnostics, EnableBackwardFalseTurnsTheCheckOff) {
    auto m = runtime::Module::compile({{"noadj.py", R"(import weft as wp
@wp.kernel(enable_backward=False)
def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(7, i)
    y[i] = wp.randf(state, x[i], 2.0)
)",
                                        0}});
    EXPECT_FALSE(m->kernel("k").info().has_backward);
}

}  // namespace
