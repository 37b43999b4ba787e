// Every statement and expression form of the kernel language, run on every device (cpu, the
// simulator, CUDA where present) and checked against the same computation written in C++ on the host.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using compiler::ScalarKind;

compiler::Type f32() { return compiler::float32_type(); }
compiler::Type f64() { return compiler::float64_type(); }
compiler::Type i32() { return compiler::int32_type(); }
compiler::Type vec3f() { return compiler::vector_type(3, ScalarKind::Float32); }

// Each test runs on every device: cpu, the simulator, and a CUDA GPU where one is present.
class KernelLanguage : public PerDevice {};

TEST_P(KernelLanguage, IfElifElseAndTernary) {
    auto m = module_of(R"(
@wp.kernel
def k(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    if v < 0:
        out[i] = -1
    elif v == 0:
        out[i] = 0
    elif v < 10 and v % 2 == 0:
        out[i] = 2
    else:
        out[i] = 3 if v > 100 else 1
)");
    std::vector<int> x = {-5, 0, 4, 7, 200, 12};
    auto xa = array_of(i32(), x, dev()), out = runtime::Array::zeros(i32(), {6}, dev());
    run(m, "k", {6}, {arg(xa), arg(out)}, dev());
    EXPECT_EQ(values_of<int>(out), (std::vector<int>{-1, 0, 2, 1, 3, 1}));
}

TEST_P(KernelLanguage, RangeLoopsWithNegativeStepsBreakContinue) {
    auto m = module_of(R"(
@wp.kernel
def k(n: int, out: wp.array(dtype=int)):
    total = 0
    for i in range(n):
        total += i
    out[0] = total
    down = 0
    for j in range(10, 0, -3):
        down = down * 10 + j
    out[1] = down
    s = 0
    for j in range(100):
        if j % 2 == 1:
            continue
        if j > 10:
            break
        s += j
    out[2] = s
    w = 1
    while w < 1000:
        w *= 3
    out[3] = w
    empty = 7
    for j in range(5, 2):
        empty = 0
    out[4] = empty
    last = -1
    for j in range(3):
        last = j
    out[5] = last
)");
    auto out = runtime::Array::zeros(i32(), {6}, dev());
    run(m, "k", {1}, {integer(7), arg(out)}, dev());
    EXPECT_EQ(values_of<int>(out), (std::vector<int>{21, 10741, 30, 2187, 7, 2}));
}

TEST_P(KernelLanguage, EarlyReturnInKernelAndInsideLoops) {
    auto m = module_of(R"(
@wp.func
def first_multiple(start: int, k: int) -> int:
    for i in range(start, start + 100):
        if i % k == 0:
            return i
    return -1

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    if i == 3:
        return
    out[i] = first_multiple(i * 10 + 1, 7)
)");
    auto out = runtime::Array::zeros(i32(), {5}, dev());
    std::vector<int> init = {-9, -9, -9, -9, -9};
    out.copy_from_host(init.data(), 20);
    run(m, "k", {5}, {arg(out)}, dev());
    EXPECT_EQ(values_of<int>(out), (std::vector<int>{7, 14, 21, -9, 42}));
}

TEST_P(KernelLanguage, FuncsReturningTuplesAndAugmentedAssignment) {
    auto m = module_of(R"(
@wp.func
def divmod_(a: int, b: int):
    return a // b, a - (a // b) * b

@wp.kernel
def k(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    q, r = divmod_(a[i], 4)
    x = q
    x *= 10
    x += r
    x -= 1
    x //= 2
    out[i] = x
)");
    std::vector<int> a = {17, -17, 3, 0};
    auto aa = array_of(i32(), a, dev()), out = runtime::Array::zeros(i32(), {4}, dev());
    run(m, "k", {4}, {arg(aa), arg(out)}, dev());
    std::vector<int> expect;
    for (int v : a) {
        int q = static_cast<int>(std::floor(v / 4.0)), r = v - q * 4;
        int x = ((q * 10 + r) - 1);
        expect.push_back(static_cast<int>(std::floor(x / 2.0)));
    }
    EXPECT_EQ(values_of<int>(out), expect);
}

TEST_P(KernelLanguage, FuncParametersWithDefaults) {
    // As in Warp: a func's trailing parameters may have defaults, which a call leaves out or names;
    // a default may use module constants (SCALE) and constructors, not the caller's locals (the
    // caller's `b` does not change what f's default b is).
    auto m = module_of(R"(
SCALE = wp.constant(3.0)

@wp.func
def f(a: float, b: float = 2.0, c: wp.vec3 = wp.vec3(1.0, SCALE, 0.5)):
    return a * b + c[1] - c[2]

@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array2d(dtype=float)):
    i = wp.tid()
    b = 100.0
    out[i, 0] = f(x[i])
    out[i, 1] = f(x[i], 5.0)
    out[i, 2] = f(x[i], c=wp.vec3(0.0, 1.0, 2.0))
    out[i, 3] = f(b=b, a=x[i])
)");
    std::vector<float> x = {1.5f, -2.0f, 0.25f};
    auto xa = array_of(f32(), x, dev()), out = runtime::Array::zeros(f32(), {3, 4}, dev());
    run(m, "k", {3}, {arg(xa), arg(out)}, dev());
    std::vector<float> expect;
    for (float v : x) {
        expect.push_back(v * 2.0f + 3.0f - 0.5f);
        expect.push_back(v * 5.0f + 3.0f - 0.5f);
        expect.push_back(v * 2.0f + 1.0f - 2.0f);
        expect.push_back(v * 100.0f + 3.0f - 0.5f);
    }
    EXPECT_EQ(values_of<float>(out), expect);
}

TEST_P(KernelLanguage, IntegerSemanticsFollowWarp) {
    auto m = module_of(R"(
@wp.kernel
def k(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array2d(dtype=int)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    out[i, 0] = x / y
    out[i, 1] = x // y
    out[i, 2] = x % y
    out[i, 3] = x ** 3
    out[i, 4] = (x << 2) ^ (y & 7) | 1
    out[i, 5] = ~x >> 1
)");
    std::vector<int> a = {7, -7, 7, -7, 5, 9}, b = {2, 2, -2, -2, 0, 1};
    auto aa = array_of(i32(), a, dev()), ba = array_of(i32(), b, dev()), out = runtime::Array::zeros(i32(), {6, 6}, dev());
    run(m, "k", {6}, {arg(aa), arg(ba), arg(out)}, dev());
    auto got = values_of<int>(out);
    for (size_t i = 0; i < a.size(); ++i) {
        int x = a[i], y = b[i];
        int div = y == 0 ? 0 : x / y, mod = y == 0 ? 0 : x % y;
        int fdiv = y == 0 ? 0 : static_cast<int>(std::floor(static_cast<double>(x) / y));
        EXPECT_EQ(got[i * 6 + 0], div) << i;
        EXPECT_EQ(got[i * 6 + 1], fdiv) << i;
        EXPECT_EQ(got[i * 6 + 2], mod) << i;
        EXPECT_EQ(got[i * 6 + 3], x * x * x) << i;
        EXPECT_EQ(got[i * 6 + 4], ((x << 2) ^ (y & 7)) | 1) << i;
        EXPECT_EQ(got[i * 6 + 5], (~x) >> 1) << i;
    }
}

TEST_P(KernelLanguage, ShortCircuitDoesNotEvaluateTheRightSide) {
    // In debug mode an out-of-range read raises; `and`/`or` must not evaluate it.
    auto m = module_of(R"(
@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    n = a.shape[0]
    if i < n and a[i] > 0.0:
        out[i] = 1
    if i >= n or a[i] < 0.0:
        out[i] = 2
)");
    std::vector<float> a = {1.0f, -1.0f};
    auto aa = array_of(f32(), a, dev()), out = runtime::Array::zeros(i32(), {3}, dev());
    EXPECT_NO_THROW(run(m, "k", {2}, {arg(aa), arg(out)}, dev(), 1));
    EXPECT_EQ(values_of<int>(out), (std::vector<int>{1, 2, 0}));
}

TEST_P(KernelLanguage, ChainedComparisonsAndBooleans) {
    auto m = module_of(R"(
@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    v = a[i]
    r = 0
    if 0.0 <= v < 1.0:
        r = 1
    if not (v == 5.0) and bool(v):
        r = r + 10
    out[i] = r
)");
    std::vector<float> a = {0.5f, 1.0f, 5.0f, 0.0f, -2.0f};
    auto aa = array_of(f32(), a, dev()), out = runtime::Array::zeros(i32(), {5}, dev());
    run(m, "k", {5}, {arg(aa), arg(out)}, dev());
    EXPECT_EQ(values_of<int>(out), (std::vector<int>{11, 10, 0, 1, 10}));
}

TEST_P(KernelLanguage, MultiDimensionalLaunchesAndShapes) {
    auto m = module_of(R"(
@wp.kernel
def k2(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j + out.shape[1] * 0

@wp.kernel
def k3(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 100 + j * 10 + k

@wp.kernel
def k4(out: wp.array4d(dtype=int)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l
)");
    auto a2 = runtime::Array::zeros(i32(), {3, 4}, dev());
    run(m, "k2", {3, 4}, {arg(a2)}, dev());
    auto v2 = values_of<int>(a2);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) EXPECT_EQ(v2[i * 4 + j], i * 100 + j);
    auto a3 = runtime::Array::zeros(i32(), {2, 3, 4}, dev());
    run(m, "k3", {2, 3, 4}, {arg(a3)}, dev());
    auto v3 = values_of<int>(a3);
    for (int i = 0; i < 24; ++i) EXPECT_EQ(v3[i], (i / 12) * 100 + (i / 4 % 3) * 10 + i % 4);
    auto a4 = runtime::Array::zeros(i32(), {2, 2, 3, 2}, dev());
    run(m, "k4", {2, 2, 3, 2}, {arg(a4)}, dev());
    auto v4 = values_of<int>(a4);
    for (int i = 0; i < 24; ++i) EXPECT_EQ(v4[i], (i / 12) * 1000 + (i / 6 % 2) * 100 + (i / 2 % 3) * 10 + i % 2);
}

TEST_P(KernelLanguage, StructsInArraysNestedAndAsArguments) {
    auto m = module_of(R"(
@wp.struct
class Inner:
    scale: float
    offset: wp.vec3

@wp.struct
class Particle:
    pos: wp.vec3
    mass: float
    inner: Inner
    alive: int

@wp.kernel
def k(ps: wp.array(dtype=Particle), params: Inner, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = ps[i]
    p.inner.offset = params.offset * p.mass
    p.pos.y = p.pos.y + 1.0
    ps[i] = p
    ps[i].alive = 1
    out[i] = p.pos * params.scale + p.inner.offset
)");
    const auto& ir = m->compiled();
    const auto* kinfo = ir.find_kernel("k");
    ASSERT_NE(kinfo, nullptr);
    compiler::Type particle = kinfo->params[0].type->elem;
    compiler::Type inner = kinfo->params[1].type;
    ASSERT_EQ(compiler::type_size(particle), 12u + 4 + 16 + 4);
    struct InnerH {
        float scale;
        float offset[3];
    };
    struct ParticleH {
        float pos[3];
        float mass;
        InnerH inner;
        int alive;
    };
    static_assert(sizeof(ParticleH) == 36);
    std::vector<ParticleH> ps = {{{1, 2, 3}, 2.0f, {0, {0, 0, 0}}, 0}, {{-1, 0, 1}, 0.5f, {0, {0, 0, 0}}, 0}};
    auto pa = runtime::Array::empty(particle, {2}, dev());
    pa.copy_from_host(ps.data(), sizeof(ParticleH) * 2);
    InnerH params{3.0f, {1.0f, 0.0f, -1.0f}};
    auto out = runtime::Array::zeros(vec3f(), {2}, dev());
    run(m, "k", {2}, {arg(pa), runtime::LaunchArg::value(inner, &params), arg(out)}, dev());
    auto o = values_of<float>(out);
    auto after = values_of<ParticleH>(pa);
    for (int i = 0; i < 2; ++i) {
        float posy = ps[i].pos[1] + 1.0f;
        float pos[3] = {ps[i].pos[0], posy, ps[i].pos[2]};
        for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(o[i * 3 + c], pos[c] * 3.0f + params.offset[c] * ps[i].mass);
        EXPECT_EQ(after[i].alive, 1);
        EXPECT_FLOAT_EQ(after[i].pos[1], posy);
        EXPECT_FLOAT_EQ(after[i].inner.offset[2], -ps[i].mass);
    }
}

TEST_P(KernelLanguage, VectorMatrixComponentWrites) {
    auto m = module_of(R"(
@wp.kernel
def k(out: wp.array(dtype=wp.mat33), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    mm = wp.mat33()
    mm[0, 0] = 1.0
    mm[1] = wp.vec3(4.0, 5.0, 6.0)
    mm[2, 1] = float(i)
    x = v[i]
    x[1] = x.x + x.z
    x.z = 9.0
    x[0] *= 2.0
    v[i] = x
    out[i] = mm
)");
    auto out = runtime::Array::zeros(compiler::matrix_type(3, 3, ScalarKind::Float32), {2}, dev());
    std::vector<float> v = {1, 2, 3, 4, 5, 6};
    auto va = array_of(vec3f(), v, dev());
    run(m, "k", {2}, {arg(out), arg(va)}, dev());
    auto o = values_of<float>(out);
    EXPECT_EQ(o[0], 1.0f);
    EXPECT_EQ(o[3], 4.0f);
    EXPECT_EQ(o[5], 6.0f);
    EXPECT_EQ(o[9 + 7], 1.0f);
    EXPECT_EQ(values_of<float>(va), (std::vector<float>{2, 4, 9, 8, 10, 9}));
}

TEST_P(KernelLanguage, ConstantsCastsAndFloat64) {
    auto m = module_of(R"(
TENTH = wp.constant(0.1)
N = wp.constant(3)

@wp.kernel
def k(out: wp.array(dtype=wp.float64), iout: wp.array(dtype=int)):
    x = wp.float64(TENTH)
    s = wp.float64(0.0)
    for i in range(N * 10):
        s = s + x
    out[0] = s
    out[1] = wp.sqrt(wp.float64(2.0))
    out[2] = wp.float64(float(1.0 / 3.0))
    iout[0] = int(-2.7)
    iout[1] = int(wp.floor(-2.5))
    iout[2] = int(wp.round(2.5))
)");
    auto out = runtime::Array::zeros(f64(), {3}, dev());
    auto iout = runtime::Array::zeros(i32(), {3}, dev());
    run(m, "k", {1}, {arg(out), arg(iout)}, dev());
    double s = 0;
    for (int i = 0; i < 30; ++i) s += 0.1;
    auto o = values_of<double>(out);
    EXPECT_EQ(o[0], s);
    EXPECT_EQ(o[1], std::sqrt(2.0));
    EXPECT_EQ(o[2], static_cast<double>(1.0f / 3.0f));
    EXPECT_EQ(values_of<int>(iout), (std::vector<int>{-2, -3, 3}));
}

TEST_P(KernelLanguage, AtomicsSumExactlyAcrossThreads) {
    auto m = module_of(R"(
@wp.kernel
def k(counts: wp.array(dtype=int), total: wp.array(dtype=wp.float64), mx: wp.array(dtype=int)):
    i = wp.tid()
    counts[i % 7] += 1
    wp.atomic_add(total, 0, wp.float64(i))
    wp.atomic_max(mx, 0, i)
    old = wp.atomic_sub(counts, 7, 1)
)");
    const int n = 100000;
    auto counts = runtime::Array::zeros(i32(), {8}, dev());
    auto total = runtime::Array::zeros(f64(), {1}, dev());
    auto mx = runtime::Array::zeros(i32(), {1}, dev());
    run(m, "k", {n}, {arg(counts), arg(total), arg(mx)}, dev());
    auto c = values_of<int>(counts);
    for (int r = 0; r < 7; ++r) EXPECT_EQ(c[r], n / 7 + (r < n % 7 ? 1 : 0));
    EXPECT_EQ(c[7], -n);
    EXPECT_EQ(values_of<double>(total)[0], static_cast<double>(n) * (n - 1) / 2);
    EXPECT_EQ(values_of<int>(mx)[0], n - 1);
}

TEST_P(KernelLanguage, SharedMemoryBlockReductionWithBarriers) {
    auto m = module_of(R"(
@wp.kernel(block_dim=128)
def reduce(values: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = values[wp.tid()]
    wp.sync_threads()
    stride = wp.block_dim() // 2
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        sums[wp.block_idx()] = s[0]

@wp.kernel(block_dim=32)
def transpose(a: wp.array2d(dtype=int), out: wp.array2d(dtype=int)):
    tile = wp.shared_array(shape=(32, 33), dtype=int)
    i, j = wp.tid()
    r = wp.thread_idx() // 8
    c = wp.thread_idx() % 8
    tile[r, c] = a[i, j]
    wp.sync_threads()
    out[j, i] = tile[r, c]
)");
    std::vector<float> v(128 * 5);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 13);
    auto va = array_of(f32(), v, dev());
    auto sums = runtime::Array::zeros(f32(), {5}, dev());
    run(m, "reduce", {128 * 5}, {arg(va), arg(sums)}, dev());
    auto s = values_of<float>(sums);
    for (int b = 0; b < 5; ++b) {
        float expect = 0;
        for (int i = 0; i < 128; ++i) expect += v[b * 128 + i];
        EXPECT_EQ(s[b], expect);
    }
    // a sync kernel's launch must be a multiple of its block
    EXPECT_THROW(run(m, "reduce", {100}, {arg(va), arg(sums)}, dev()), runtime::RuntimeError);
    std::vector<int> a(8 * 4);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i);
    auto aa = array_of(i32(), a, dev(), {8, 4});
    auto out = runtime::Array::zeros(i32(), {4, 8}, dev());
    run(m, "transpose", {8, 4}, {arg(aa), arg(out)}, dev());
    auto o = values_of<int>(out);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 4; ++j) EXPECT_EQ(o[j * 8 + i], a[i * 4 + j]);
}

TEST_P(KernelLanguage, RandomNumbersAreReproducible) {
    auto m = module_of(R"(
@wp.kernel
def k(seed: int, out: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    a = wp.randf(state)
    b = wp.randf(state)
    out[i] = a + b * 0.0 + wp.randf(state, 10.0, 11.0) * 0.0 + b - b
)");
    auto o1 = runtime::Array::zeros(f32(), {64}, dev()), o2 = runtime::Array::zeros(f32(), {64}, dev());
    run(m, "k", {64}, {integer(42), arg(o1)}, dev());
    run(m, "k", {64}, {integer(42), arg(o2)}, dev());
    auto a = values_of<float>(o1), b = values_of<float>(o2);
    EXPECT_EQ(a, b);
    for (float x : a) {
        EXPECT_GE(x, 0.0f);
        EXPECT_LT(x, 1.0f);
    }
    EXPECT_NE(a[0], a[1]);
}

// A kernel on strided views of one array (Array::view: Warp's a[:, ::3], a.transpose()) reads and
// writes those elements on every device: the descriptor carries the view's byte strides. A view
// reaching outside its array, or of another element size, is refused with what and where.
TEST_P(KernelLanguage, KernelsReadAndWriteStridedViews) {
    auto m = module_of(R"(
@wp.kernel
def twice(x: wp.array2d(dtype=float)):
    i, j = wp.tid()
    x[i, j] = x[i, j] * 2.0
)");
    std::vector<float> host(24);
    for (int k = 0; k < 24; ++k) host[static_cast<size_t>(k)] = static_cast<float>(k);
    auto a = array_of(f32(), host, dev(), {4, 6});
    // columns 0 and 3 of every row: shape (4, 2), strides (24, 12) bytes
    runtime::Array cols = a.view(0, f32(), {4, 2}, {24, 12});
    run(m, "twice", {4, 2}, {arg(cols)}, dev());
    // the transpose of rows 1..2: shape (6, 2), strides (4, 24), from byte 24
    runtime::Array t = a.view(24, f32(), {6, 2}, {4, 24});
    run(m, "twice", {6, 2}, {arg(t)}, dev());
    std::vector<float> want = host;
    for (int r = 0; r < 4; ++r)
        for (int c : {0, 3}) want[static_cast<size_t>(r * 6 + c)] *= 2.0f;
    for (int r = 1; r < 3; ++r)
        for (int c = 0; c < 6; ++c) want[static_cast<size_t>(r * 6 + c)] *= 2.0f;
    EXPECT_EQ(values_of<float>(a), want);
    EXPECT_NE(error_of([&] { a.view(4 * 20, f32(), {8}, {4}); }).find("would reach outside its elements"), std::string::npos);
    EXPECT_NE(error_of([&] { a.view(0, compiler::float64_type(), {2}, {8}); }).find("must have elements of its size (4 bytes)"),
              std::string::npos);
}

WEFT_INSTANTIATE_PER_DEVICE(KernelLanguage);

}  // namespace
