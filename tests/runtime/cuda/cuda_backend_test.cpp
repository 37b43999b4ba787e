// tests/runtime/cuda/cuda_backend_test.cpp: the cuda device runs Weft kernels like the CPU does.
//
// Every kernel here runs on cuda:0 and its result is checked against a host computation and,
// when this build has the CPU device, against the CPU device: integers bitwise; floats bitwise
// where the arithmetic is +, -, *, / only (both devices round each operation, --fmad=false), and
// within 4 ulps (or 1e-6 absolute, near zero) where libdevice and libm differ (sin, cos).
// Skipped, with the reason, on a machine without a GPU.
#include "cuda_test_support.h"
#include "runtime/errors.h"
#include "runtime/module_cache.h"

namespace weft::runtime {
namespace {

using namespace testing;
using compiler::float32_type;
using compiler::int32_type;

compiler::Type vec3() { return compiler::vector_type(3, compiler::ScalarKind::Float32); }

// Runs `k` on `d` with arrays made from the host vectors of `inputs` (in order) and returns the
// arrays after the launch.
struct HostArg {
    compiler::Type dtype = nullptr;  // null: a scalar argument in `arg`
    std::vector<std::byte> bytes;
    std::vector<int64_t> shape;
    LaunchArg arg;
};

template <typename T>
HostArg host_array(compiler::Type dtype, const std::vector<T>& v, std::vector<int64_t> shape = {}) {
    HostArg h;
    h.dtype = dtype;
    h.bytes.resize(v.size() * sizeof(T));
    std::memcpy(h.bytes.data(), v.data(), h.bytes.size());
    h.shape = shape.empty() ? std::vector<int64_t>{static_cast<int64_t>(h.bytes.size() / compiler::type_size(dtype))} : shape;
    return h;
}

HostArg scalar(LaunchArg a) {
    HostArg h;
    h.arg = std::move(a);
    return h;
}

std::vector<std::vector<std::byte>> run_on(const Device& d, const Kernel& k, const std::vector<int64_t>& dim,
                                           const std::vector<HostArg>& in, int debug = 0) {
    std::vector<Array> arrays;
    std::vector<LaunchArg> args;
    for (const HostArg& h : in) {
        if (!h.dtype) {
            args.push_back(h.arg);
            arrays.emplace_back();
            continue;
        }
        Array a = Array::empty(h.dtype, h.shape, d);
        a.copy_from_host(h.bytes.data(), h.bytes.size());
        arrays.push_back(a);
        args.push_back(LaunchArg::of(a));
    }
    LaunchOptions o;
    o.device = d;
    o.debug = debug;
    launch(k, dim, args, o);
    std::vector<std::vector<std::byte>> out;
    for (const Array& a : arrays) {
        std::vector<std::byte> b(a.valid() ? a.nbytes() : 0);
        if (a.valid()) a.copy_to_host(b.data(), b.size());
        out.push_back(std::move(b));
    }
    return out;
}

template <typename T>
std::vector<T> as(const std::vector<std::byte>& b) {
    std::vector<T> v(b.size() / sizeof(T));
    std::memcpy(v.data(), b.data(), b.size());
    return v;
}

// GPU result vs the CPU device's, when there is one: bitwise.
void expect_same_as_cpu(const Kernel& k, const std::vector<int64_t>& dim, const std::vector<HostArg>& in,
                        const std::vector<std::vector<std::byte>>& gpu) {
    if (!have_cpu()) return;
    auto ref = run_on(cpu(), k, dim, in);
    for (size_t i = 0; i < ref.size(); ++i)
        EXPECT_TRUE(ref[i] == gpu[i]) << k.name() << ": argument " << i << " differs from the cpu device";
}

TEST(CudaBackend, DeviceIsDescribed) {
    WEFT_REQUIRE_GPU();
    DeviceBackend& be = backend(cuda0());
    EXPECT_EQ(be.device().str(), "cuda:0");
    EXPECT_TRUE(device_available(cuda0()));
    EXPECT_FALSE(device_available(Device{DeviceKind::Cuda, 63, {}}));
}

TEST(CudaBackend, Saxpy) {
    WEFT_REQUIRE_GPU();
    auto m = saxpy_module();
    const size_t n = (1 << 20) + 3;  // not a multiple of the block size
    auto x = random_floats(n, 1), y = random_floats(n, 2);
    const float a = 1.7f;
    std::vector<HostArg> in = {host_array(float32_type(), x), host_array(float32_type(), y), scalar(LaunchArg::number_of(a))};
    auto gpu = run_on(cuda0(), m->kernel("saxpy"), {static_cast<int64_t>(n)}, in);
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) {
        volatile float p = a * x[i];  // rounded, as the kernel's multiply
        want[i] = p + y[i];
    }
    expect_ulps(as<float>(gpu[1]), want, 0, "saxpy vs host");
    EXPECT_TRUE(gpu[0] == in[0].bytes) << "saxpy wrote to x";
    expect_same_as_cpu(m->kernel("saxpy"), {static_cast<int64_t>(n)}, in, gpu);
}

TEST(CudaBackend, RotateVec3) {
    WEFT_REQUIRE_GPU();
    auto m = saxpy_module();
    const size_t n = 10000;
    auto p = random_floats(3 * n, 3);
    const double angle = 0.7;
    std::vector<HostArg> in = {host_array(vec3(), p), scalar(LaunchArg::number_of(angle)),
                               host_array(vec3(), std::vector<float>(3 * n, -7.0f))};
    auto gpu = run_on(cuda0(), m->kernel("rotate"), {static_cast<int64_t>(n)}, in);
    auto out = as<float>(gpu[2]);
    std::vector<double> want(3 * n);
    const double c = std::cos(static_cast<float>(angle)), s = std::sin(static_cast<float>(angle));
    for (size_t i = 0; i < n; ++i) {  // rotation about +y, then * SCALE (2)
        want[3 * i + 0] = 2.0 * (c * p[3 * i] + s * p[3 * i + 2]);
        want[3 * i + 1] = 2.0 * p[3 * i + 1];
        want[3 * i + 2] = 2.0 * (-s * p[3 * i] + c * p[3 * i + 2]);
    }
    expect_near_rel(out, want, 2e-6, "rotate vs float64");
    if (have_cpu()) {
        auto ref = as<float>(run_on(cpu(), m->kernel("rotate"), {static_cast<int64_t>(n)}, in)[2]);
        for (size_t i = 0; i < out.size(); ++i)
            ASSERT_TRUE(ulp_distance(out[i], ref[i]) <= 4 || std::fabs(out[i] - ref[i]) <= 1e-6f)
                << "rotate element " << i << ": cuda " << out[i] << ", cpu " << ref[i];
    }
}

TEST(CudaBackend, BlockSumWithSyncThreads) {
    WEFT_REQUIRE_GPU();
    auto m = saxpy_module();
    const size_t blocks = 1000, n = 64 * blocks;
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 37) % 101) * 0.125f - 5.0f;  // sums are exact
    std::vector<HostArg> in = {host_array(float32_type(), v), host_array(float32_type(), std::vector<float>(blocks, 99.0f))};
    auto gpu = run_on(cuda0(), m->kernel("block_sum"), {static_cast<int64_t>(n)}, in);
    auto sums = as<float>(gpu[1]);
    for (size_t b = 0; b < blocks; ++b) {
        double s = 0;
        for (size_t t = 0; t < 64; ++t) s += v[64 * b + t];
        ASSERT_EQ(sums[b], static_cast<float>(s)) << "block " << b;
    }
    expect_same_as_cpu(m->kernel("block_sum"), {static_cast<int64_t>(n)}, in, gpu);
}

TEST(CudaBackend, TwoDimensionalLaunch) {
    WEFT_REQUIRE_GPU();
    auto m = test_module();
    const int64_t h = 37, w = 129;
    std::vector<HostArg> in = {host_array(float32_type(), std::vector<float>(h * w, -1.0f), {h, w}),
                               scalar(LaunchArg::integer_of(w))};
    auto gpu = run_on(cuda0(), m->kernel("fill_2d"), {h, w}, in);
    auto out = as<float>(gpu[0]);
    for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j) ASSERT_EQ(out[i * w + j], static_cast<float>(i * w + j) * 0.5f) << i << "," << j;
    expect_same_as_cpu(m->kernel("fill_2d"), {h, w}, in, gpu);
}

TEST(CudaBackend, AtomicHistogram) {
    WEFT_REQUIRE_GPU();
    auto m = test_module();
    const size_t n = 1 << 18;
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((i * 2654435761u) >> 7) & 0xffff;
    std::vector<HostArg> in = {host_array(int32_type(), v), host_array(int32_type(), std::vector<int32_t>(16, 0))};
    auto gpu = run_on(cuda0(), m->kernel("histogram"), {static_cast<int64_t>(n)}, in);
    std::vector<int32_t> want(16, 0);
    for (int32_t x : v) want[x % 16]++;
    EXPECT_EQ(as<int32_t>(gpu[1]), want);
    expect_same_as_cpu(m->kernel("histogram"), {static_cast<int64_t>(n)}, in, gpu);
}

TEST(CudaBackend, IntegerArithmeticIsBitwise) {
    WEFT_REQUIRE_GPU();
    auto m = test_module();
    const size_t n = 100000;
    std::vector<int32_t> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>((i * 7) % 100000);
    std::vector<HostArg> in = {host_array(int32_type(), v), host_array(int32_type(), std::vector<int32_t>(n, 0))};
    auto gpu = run_on(cuda0(), m->kernel("int_mix"), {static_cast<int64_t>(n)}, in);
    auto out = as<int32_t>(gpu[1]);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], (v[i] * 7919 + 13) ^ (v[i] >> 3)) << i;
    expect_same_as_cpu(m->kernel("int_mix"), {static_cast<int64_t>(n)}, in, gpu);
}

TEST(CudaBackend, StructArgumentByValue) {
    WEFT_REQUIRE_GPU();
    auto m = test_module();
    Kernel k = m->kernel("apply_params");
    compiler::Type pt = k.info().params[0].type;
    ASSERT_TRUE(compiler::is_struct(pt));
    // Params {scale: float, offset: vec3, count: int}, laid out with C rules.
    std::vector<std::byte> p(compiler::type_size(pt));
    size_t off = 0;
    const float scale = 1.5f, offset[3] = {0.25f, -2.0f, 8.0f};
    const int32_t count = 3;
    for (const auto& f : pt->fields) {
        size_t al = compiler::type_align(f.type);
        off = (off + al - 1) / al * al;
        if (f.name == "scale") std::memcpy(p.data() + off, &scale, 4);
        if (f.name == "offset") std::memcpy(p.data() + off, offset, 12);
        if (f.name == "count") std::memcpy(p.data() + off, &count, 4);
        off += compiler::type_size(f.type);
    }
    const size_t n = 5000;
    auto xs = random_floats(3 * n, 4);
    std::vector<HostArg> in = {scalar(LaunchArg::value(pt, p.data())), host_array(vec3(), xs),
                               host_array(vec3(), std::vector<float>(3 * n, 0.0f))};
    auto gpu = run_on(cuda0(), k, {static_cast<int64_t>(n)}, in);
    auto out = as<float>(gpu[2]);
    for (size_t i = 0; i < 3 * n; ++i) {
        volatile float s = xs[i] * scale;
        volatile float t = s + offset[i % 3];
        float want = t + (i % 3 == 0 ? static_cast<float>(count) : 0.0f);
        ASSERT_EQ(out[i], want) << i;
    }
    expect_same_as_cpu(k, {static_cast<int64_t>(n)}, in, gpu);
}

TEST(CudaBackend, DebugModeReportsOutOfRangeLikeTheCpu) {
    WEFT_REQUIRE_GPU();
    auto m = test_module();
    std::vector<HostArg> in = {host_array(float32_type(), std::vector<float>(16, 0.0f)), scalar(LaunchArg::integer_of(20))};
    std::string message;
    try {
        run_on(cuda0(), m->kernel("write_at"), {1}, in, /*debug=*/1);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) { message = e.what(); }
    EXPECT_NE(message.find("kernel 'write_at' (tests/runtime/cuda/test_kernels.py:"), std::string::npos) << message;
    EXPECT_NE(message.find("index 20 is out of range for dimension 0 of an array of shape (16,)"), std::string::npos) << message;
    if (have_cpu()) {
        try {
            run_on(cpu(), m->kernel("write_at"), {1}, in, 1);
            FAIL() << "expected RuntimeError on the cpu";
        } catch (const RuntimeError& e) { EXPECT_EQ(message, e.what()); }
    }
    // In range, the debug build runs and the device stays usable.
    auto ok = run_on(cuda0(), m->kernel("write_at"), {1}, {in[0], scalar(LaunchArg::integer_of(15))}, 1);
    EXPECT_EQ(as<float>(ok[0])[15], 1.0f);
}

TEST(CudaBackend, SecondLoadComesFromTheDiskCache) {
    WEFT_REQUIRE_GPU();
    auto a = Module::compile({{"tests/runtime/cuda/cache_probe.py", kTestKernels}});
    run_on(cuda0(), a->kernel("add_one"), {4}, {host_array(float32_type(), std::vector<float>(4, 1.0f))});
    const long hits = cache_stats().hits;
    auto b = Module::compile({{"tests/runtime/cuda/cache_probe.py", kTestKernels}});
    auto out = run_on(cuda0(), b->kernel("add_one"), {4}, {host_array(float32_type(), std::vector<float>(4, 1.0f))});
    EXPECT_EQ(as<float>(out[0]), std::vector<float>(4, 2.0f));
    EXPECT_GE(cache_stats().hits, hits + 2) << "the ptx and cubin should both come from the cache";
}

// Backward code on first use (runtime/module.h): a forward launch loads the module's forward half
// only; its first backward launch loads the backward half and gives y = a x^2's gradients
// (dx = 2 a x dy, and da = sum x^2 dy in the float adjoint) as the host computes them.
TEST(CudaBackend, BackwardEntriesLoadOnTheFirstBackwardLaunch) {
    WEFT_REQUIRE_GPU();
    auto m = Module::compile({{"tests/runtime/cuda/square.py",
                               "import warp as wp\n"
                               "@wp.kernel\n"
                               "def square(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):\n"
                               "    i = wp.tid()\n"
                               "    y[i] = a * x[i] * x[i]\n",
                               0}});
    const int64_t n = 1000;
    const float a = 1.5f;
    Array x = Array::zeros(float32_type(), {n}, cuda0(), true), y = Array::zeros(float32_type(), {n}, cuda0(), true);
    std::vector<float> xs(n), gys(n);
    for (int64_t i = 0; i < n; ++i) {
        xs[size_t(i)] = 0.25f * float(i % 7);
        gys[size_t(i)] = float(i % 5);
    }
    x.copy_from_host(xs.data(), n * 4);
    std::vector<LaunchArg> args = {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::number_of(a)};
    LaunchOptions o;
    o.device = cuda0();
    launch(m->kernel("square"), {n}, args, o);
    EXPECT_TRUE(m->is_loaded(cuda0(), false));
    EXPECT_FALSE(m->is_loaded(cuda0(), false, /*backward=*/true));
    y.grad()->copy_from_host(gys.data(), n * 4);
    Array da = Array::zeros(float32_type(), {1}, cuda0());
    o.adjoint = true;
    o.adj_args = {Array(), Array(), da};
    launch(m->kernel("square"), {n}, args, o);
    EXPECT_TRUE(m->is_loaded(cuda0(), false, true));
    std::vector<float> gx(n);
    x.grad()->copy_to_host(gx.data(), n * 4);
    double want_da = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double want = 2.0 * a * xs[size_t(i)] * gys[size_t(i)];
        EXPECT_NEAR(gx[size_t(i)], want, 1e-6 * std::abs(want)) << i;
        want_da += double(xs[size_t(i)]) * xs[size_t(i)] * gys[size_t(i)];
    }
    float got_da = 0.0f;
    da.copy_to_host(&got_da, 4);
    EXPECT_NEAR(got_da, want_da, 1e-5 * want_da);
}

TEST(CudaBackend, MemoryIsReusedAfterFree) {
    WEFT_REQUIRE_GPU();
    DeviceBackend& be = backend(cuda0());
    void* first = be.allocate(256 << 20);
    be.free(first);
    for (int i = 0; i < 50; ++i) be.free(be.allocate(256 << 20));  // would need 12.5 GiB without reuse
    be.memset(first = be.allocate(1024), 0x5a, 1024);
    std::vector<unsigned char> host(1024);
    be.copy_to_host(host.data(), first, 1024);
    be.free(first);
    EXPECT_EQ(host, std::vector<unsigned char>(1024, 0x5a));
}

TEST(CudaBackend, CopiesBetweenDevices) {
    WEFT_REQUIRE_GPU();
    auto v = random_floats(1000, 5);
    Array g = to_device(v, float32_type(), cuda0());
    Array g2 = Array::empty(float32_type(), {1000}, cuda0());
    g2.assign(g);
    EXPECT_EQ(to_host<float>(g2), v);
    g2.zero();
    EXPECT_EQ(to_host<float>(g2), std::vector<float>(1000, 0.0f));
}

}  // namespace
}  // namespace weft::runtime
