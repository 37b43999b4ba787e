// tests/gpusim/cuda_kernels_test.cpp — PTX that nvcc makes from tests/gpusim/cuda/*.cu, run in
// the simulator and checked against the same computation done on the host in C++.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

#include "gpusim/sass/sass_map.h"
#include "gpusim/timing/timing.h"
#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::read_file;

Module load(const std::string& stem) {
    if (!GPUSIM_HAVE_NVCC) throw std::runtime_error("no nvcc");
    const std::string path = std::string(GPUSIM_PTX_DIR) + "/" + stem + ".ptx";
    return parse_ptx(read_file(path), stem + ".ptx");
}

#define REQUIRE_NVCC() \
    if (!GPUSIM_HAVE_NVCC) GTEST_SKIP() << "nvcc not available: no generated PTX"

TEST(CudaKernels, SaxpyWithStructParameter) {
    REQUIRE_NVCC();
    const Module m = load("basics");
    const Function* k = m.find_function("saxpy_struct");
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(k->params.size(), 1u);
    EXPECT_EQ(k->params[0].size, 24u);
    EXPECT_EQ(k->params[0].align, 8u);
    const int n = 1000;
    std::vector<float> x(n), y(n), expect(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * i;
        y[i] = 1.0f - i;
        expect[i] = 2.5f * x[i] + y[i];
    }
    struct {
        float* y;
        const float* x;
        int n;
        float a;
    } p{y.data(), x.data(), n, 2.5f};
    static_assert(sizeof(p) == 24);
    ParamPacker pk;
    pk.add(p, 8);
    launch(m, "saxpy_struct", {8, 1, 1}, {128, 1, 1}, pk.bytes());
    EXPECT_EQ(y, expect);
}

TEST(CudaKernels, SaxpyWithScalarParametersAndThreads) {
    REQUIRE_NVCC();
    const Module m = load("basics");
    const int n = 3000;
    std::vector<float> x(n), y1(n, 1.0f), y4(n, 1.0f), expect(n);
    for (int i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i % 17);
        expect[i] = 3.0f * x[i] + 1.0f;
    }
    ParamPacker p1;
    p1.add(y1.data()).add(x.data()).add(n).add(3.0f);
    const LaunchResult r1 = launch(m, "saxpy_scalars", {5, 1, 1}, {96, 1, 1}, p1.bytes());
    ParamPacker p4;
    p4.add(y4.data()).add(x.data()).add(n).add(3.0f);
    LaunchOptions opts;
    opts.threads = 4;
    const LaunchResult r4 = launch(m, "saxpy_scalars", {5, 1, 1}, {96, 1, 1}, p4.bytes(), opts);
    EXPECT_EQ(y1, expect);
    EXPECT_EQ(y4, expect);
    EXPECT_EQ(r1.total, r4.total);
    EXPECT_EQ(to_json(r1), to_json(r4));
}

TEST(CudaKernels, CallsNonInlinedFunction) {
    REQUIRE_NVCC();
    const Module m = load("basics");
    const int n = 77;
    std::vector<float> in(n), out(n, -1.f);
    for (int i = 0; i < n; ++i) in[i] = 0.25f * static_cast<float>(i - 30);
    ParamPacker p;
    p.add(out.data()).add(in.data()).add(n);
    launch(m, "call_poly", {2, 1, 1}, {64, 1, 1}, p.bytes());
    for (int i = 0; i < n; ++i) {
        float r = 0.f;
        for (int j = 0; j < i % 5; ++j) r = std::fma(r, in[i], static_cast<float>(j + 1));
        EXPECT_FLOAT_EQ(out[i], r) << i;
    }
}

TEST(CudaKernels, RecursiveFunction) {
    REQUIRE_NVCC();
    const Module m = load("basics");
    std::vector<int> out(64, -1);
    ParamPacker p;
    p.add(out.data());
    launch(m, "recursive_fib", {1, 1, 1}, {64, 1, 1}, p.bytes());
    auto fib = [](int n) {
        int a = 0, b = 1;
        for (int i = 0; i < n; ++i) {
            const int t = a + b;
            a = b;
            b = t;
        }
        return a;
    };
    for (int t = 0; t < 64; ++t) EXPECT_EQ(out[t], fib(t % 12)) << t;
}

TEST(CudaKernels, ThreeDimensionalIndices) {
    REQUIRE_NVCC();
    const Module m = load("basics");
    const Dim3 grid{2, 3, 2}, block{4, 2, 3};
    std::vector<int> out(grid.count() * block.count(), -1);
    ParamPacker p;
    p.add(out.data());
    launch(m, "index_3d", grid, block, p.bytes());
    for (uint32_t bz = 0; bz < grid.z; ++bz)
        for (uint32_t by = 0; by < grid.y; ++by)
            for (uint32_t bx = 0; bx < grid.x; ++bx)
                for (uint32_t tz = 0; tz < block.z; ++tz)
                    for (uint32_t ty = 0; ty < block.y; ++ty)
                        for (uint32_t tx = 0; tx < block.x; ++tx) {
                            const uint64_t b = bx + grid.x * (by + grid.y * bz), t = tx + block.x * (ty + block.y * tz);
                            EXPECT_EQ(out[b * block.count() + t],
                                      static_cast<int>(tx + 10 * ty + 100 * tz + 1000 * bx + 10000 * by + 100000 * bz));
                        }
}

TEST(CudaKernels, NestedIfsReconverge) {
    REQUIRE_NVCC();
    const Module m = load("divergence");
    std::vector<int> out(64, -1);
    ParamPacker p;
    p.add(out.data());
    const LaunchResult r = launch(m, "nested_ifs", {1, 1, 1}, {64, 1, 1}, p.bytes());
    for (int t = 0; t < 64; ++t) {
        int v = 0;
        if (t & 1)
            v += (t & 2) ? 11 : 21;
        else if (t % 3 == 0)
            v += 100;
        EXPECT_EQ(out[t], v + 1000) << t;
    }
    EXPECT_GT(r.total.divergent_branches, 0u);
}

TEST(CudaKernels, LaneDependentLoopsWithBreakAndContinue) {
    REQUIRE_NVCC();
    const Module m = load("divergence");
    std::vector<int> out(96, -1);
    ParamPacker p;
    p.add(out.data());
    launch(m, "lane_loops", {1, 1, 1}, {96, 1, 1}, p.bytes());
    for (int t = 0; t < 96; ++t) {
        int sum = 0;
        for (int i = 0; i < t; ++i) {
            if (i % 3 == 0) continue;
            if (i > 20) break;
            sum += i;
        }
        EXPECT_EQ(out[t], sum) << t;
    }
}

TEST(CudaKernels, EarlyExitAndPartialWarp) {
    REQUIRE_NVCC();
    const Module m = load("divergence");
    const int n = 45;
    std::vector<int> out(64, -7);
    ParamPacker p;
    p.add(out.data()).add(n);
    launch(m, "early_exit", {1, 1, 1}, {50, 1, 1}, p.bytes());
    for (int t = 0; t < 64; ++t) {
        if (t >= n) {
            EXPECT_EQ(out[t], -7);
            continue;
        }
        int x = t;
        while (x != 1 && x > 0) x = (x & 1) ? 3 * x + 1 : x / 2;
        EXPECT_EQ(out[t], x + t);
    }
}

TEST(CudaKernels, BlockReductionWithSharedMemory) {
    REQUIRE_NVCC();
    const Module m = load("shared");
    const int n = 1000, blocks = 4;
    std::vector<float> in(n), out(blocks, 0.f);
    for (int i = 0; i < n; ++i) in[i] = static_cast<float>(i % 10);
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(n);
    const LaunchResult r = launch(m, "block_reduce", {blocks, 1, 1}, {256, 1, 1}, p.bytes());
    for (int b = 0; b < blocks; ++b) {
        float s = 0.f;
        for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i) s += in[i];
        EXPECT_EQ(out[b], s) << b;
    }
    EXPECT_GT(r.total.shared_loads, 0u);
    EXPECT_EQ(r.total.global_loads, static_cast<uint64_t>(n));
}

TEST(CudaKernels, TiledTranspose) {
    REQUIRE_NVCC();
    const Module m = load("shared");
    const int w = 37, h = 21;
    std::vector<float> in(w * h), out(w * h, -1.f);
    for (int i = 0; i < w * h; ++i) in[i] = static_cast<float>(i);
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(w).add(h);
    launch(m, "transpose", {(w + 15) / 16, (h + 15) / 16, 1}, {16, 16, 1}, p.bytes());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) EXPECT_EQ(out[x * h + y], in[y * w + x]);
}

TEST(CudaKernels, DynamicSharedMemory) {
    REQUIRE_NVCC();
    const Module m = load("shared");
    std::vector<int> data(128);
    std::iota(data.begin(), data.end(), 0);
    ParamPacker p;
    p.add(data.data());
    LaunchOptions opts;
    opts.dynamic_shared_bytes = 128 * 4;
    launch(m, "dynamic_reverse", {1, 1, 1}, {128, 1, 1}, p.bytes(), opts);
    for (int t = 0; t < 128; ++t) EXPECT_EQ(data[t], 127 - t);
}

TEST(CudaKernels, WarpShufflesAndVotes) {
    REQUIRE_NVCC();
    const Module m = load("warp");
    std::vector<int> out(9 * 64, -1);
    ParamPacker p;
    p.add(out.data());
    launch(m, "warp_ops", {1, 1, 1}, {64, 1, 1}, p.bytes());
    auto v = [](int t) { return t * 3 + 1; };
    for (int t = 0; t < 64; ++t) {
        const int lane = t & 31, base = t - lane;
        EXPECT_EQ(out[0 * 64 + t], lane + 1 < 32 ? v(t + 1) : v(t)) << t;
        EXPECT_EQ(out[1 * 64 + t], lane >= 2 ? v(t - 2) : v(t)) << t;
        EXPECT_EQ(out[2 * 64 + t], v(base + (lane ^ 5))) << t;
        EXPECT_EQ(out[3 * 64 + t], v(base + 7)) << t;
        EXPECT_EQ(out[4 * 64 + t], (lane % 8) + 3 < 8 ? v(t + 3) : v(t)) << t;
        unsigned ballot = 0;
        for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
        EXPECT_EQ(static_cast<unsigned>(out[5 * 64 + t]), ballot);
        EXPECT_EQ(out[6 * 64 + t], 1 + 2 + 0);
        int s = 0;
        for (int l = 0; l < 32; ++l) s += v(base + l);
        EXPECT_EQ(out[7 * 64 + t], s);
        EXPECT_EQ(static_cast<unsigned>(out[8 * 64 + t]), lane < 10 ? 0x3ffu : 0u) << t;
    }
}

TEST(CudaKernels, HistogramWithAtomics) {
    REQUIRE_NVCC();
    const Module m = load("atomics");
    const int n = 5000, nbins = 37;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000;
    std::vector<unsigned> expect(nbins, 0);
    for (int x : in) ++expect[x % nbins];
    for (int threads : {1, 3}) {
        std::vector<unsigned> bins(nbins, 0);
        ParamPacker p;
        p.add(in.data()).add(n).add(bins.data()).add(nbins);
        LaunchOptions opts;
        opts.threads = threads;
        const LaunchResult r = launch(m, "histogram", {6, 1, 1}, {128, 1, 1}, p.bytes(), opts);
        EXPECT_EQ(bins, expect) << threads << " threads";
        EXPECT_EQ(r.total.atomics, static_cast<uint64_t>(n + 6 * nbins));
    }
}

// The timing model on several host threads (SMs simulated in parallel between epochs) gives the
// report of one thread, bit for bit: the histogram's shared-memory atomics, barriers and global
// atomics on the same 37 words from every SM (300 blocks: each SM takes two or three), with the
// timing JSON (cycles, stalls, per line and per instruction) and the Chrome trace (every block's
// and warp's span) compared whole. Integer atomics: the bins are exact on any thread count.
TEST(CudaKernels, TimedHistogramReportsTheSameOnOneTwoAndFiveHostThreads) {
    REQUIRE_NVCC();
    const Module m = load("atomics");
    const int n = 300 * 128 * 3, nbins = 37;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000;
    std::vector<unsigned> expect(nbins, 0);
    for (int x : in) ++expect[x % nbins];
    std::string first_json, first_trace;
    for (int threads : {1, 2, 5}) {
        std::vector<unsigned> bins(nbins, 0);
        GlobalMemoryMap buffers;  // fixed device addresses: the report must not depend on the heap
        buffers.add(reinterpret_cast<uint64_t>(in.data()), in.size() * sizeof(int), "in", uint64_t{1} << 40);
        buffers.add(reinterpret_cast<uint64_t>(bins.data()), bins.size() * sizeof(unsigned), "bins", uint64_t{2} << 40);
        ParamPacker p;
        p.add(in.data()).add(n).add(bins.data()).add(nbins);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 32;
        o.static_shared_bytes = 256;
        o.threads = threads;
        o.launch.global_memory = &buffers;
        const TimingResult r = launch_timed(m, "histogram", {300, 1, 1}, {128, 1, 1}, p.bytes(), o);
        EXPECT_EQ(bins, expect) << threads << " threads";
        EXPECT_EQ(r.counts.total.atomics, static_cast<uint64_t>(n + 300 * nbins));
        EXPECT_GT(r.total.shared_wavefronts, 0u);
        std::ostringstream json, trace;
        write_timing_json(json, r);
        write_chrome_trace(trace, r);
        if (threads == 1) {
            first_json = json.str();
            first_trace = trace.str();
        } else {
            EXPECT_EQ(json.str(), first_json) << threads << " threads";
            EXPECT_EQ(trace.str(), first_trace) << threads << " threads";
        }
    }
}

TEST(CudaKernels, AtomicVarietyInDefinedOrder) {
    REQUIRE_NVCC();
    const Module m = load("atomics");
    int v[6] = {1 << 30, -1, 0, 0, 0, 0};
    float f = 0.f;
    double d = 0.0;
    unsigned long long u = 0;
    ParamPacker p;
    p.add(&v[0]).add(&f).add(&d).add(&u);
    const int threads = 2 * 64;
    launch(m, "atomic_mix", {2, 1, 1}, {64, 1, 1}, p.bytes());
    EXPECT_EQ(v[0], 1000 - (threads - 1));
    EXPECT_EQ(v[1], threads - 1);
    EXPECT_EQ(v[2], threads * (threads - 1) / 2);
    EXPECT_EQ(v[3], threads);  // lane order within warps, warps and blocks in order
    EXPECT_EQ(v[4], 7);
    EXPECT_EQ(f, 0.5f * threads);
    EXPECT_EQ(d, 0.25 * threads);
    EXPECT_EQ(u, static_cast<unsigned long long>(threads) << 33);
    EXPECT_EQ(v[5], threads % 10);
}

// Ulp distance between two floats of the same sign.
int64_t ulps(float a, float b) {
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    return std::llabs(static_cast<int64_t>(ia) - ib);
}

TEST(CudaKernels, SinglePrecisionMathWithinFewUlps) {
    REQUIRE_NVCC();
    const Module m = load("math");
    const int n = 256;
    std::vector<float> in(n), out(8 * n);
    for (int i = 0; i < n; ++i) in[i] = -20.f + 40.f * static_cast<float>(i) / n + 0.0123f;
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(n);
    launch(m, "math_f32", {2, 1, 1}, {128, 1, 1}, p.bytes());
    for (int i = 0; i < n; ++i) {
        // The kernel's float intermediates (x * 0.1f, |x| + 1.0f, ...) are rounded the same way here;
        // only the function itself is evaluated in double.
        const float x = in[i];
        const double ref[8] = {std::sin(double{x}),
                               std::cos(double{x}),
                               std::exp(double{x * 0.1f}),
                               std::sqrt(double{std::fabs(x)}),
                               std::pow(double{std::fabs(x) + 0.5f}, 1.7f),
                               std::log(double{std::fabs(x) + 1.0f}),
                               x / (x * x + 1.0f),
                               std::tanh(double{x * 0.3f})};
        for (int k = 0; k < 8; ++k) {
            const float got = out[i * 8 + k];
            const float want = static_cast<float>(ref[k]);
            // CUDA documents 1-2 ulp for these (tanhf: 2); near zero compare absolutely.
            if (std::fabs(want) < 1e-3f)
                EXPECT_NEAR(got, want, 1e-6f) << "f" << k << "(" << x << ")";
            else
                EXPECT_LE(ulps(got, want), 4) << "f" << k << "(" << x << ") = " << got << " want " << want;
        }
    }
}

TEST(CudaKernels, DoublePrecisionMath) {
    REQUIRE_NVCC();
    const Module m = load("math");
    const int n = 100;
    std::vector<double> in(n), out(6 * n);
    for (int i = 0; i < n; ++i) in[i] = -7.0 + 0.1417 * i;
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(n);
    launch(m, "math_f64", {1, 1, 1}, {128, 1, 1}, p.bytes());
    for (int i = 0; i < n; ++i) {
        const double x = in[i];
        EXPECT_NEAR(out[i * 6 + 0], std::sin(x), 1e-15 * 4);
        EXPECT_NEAR(out[i * 6 + 1], std::exp(x * 0.1), 4e-16 * std::exp(x * 0.1));
        EXPECT_DOUBLE_EQ(out[i * 6 + 2], std::sqrt(std::fabs(x)));
        EXPECT_NEAR(out[i * 6 + 3], std::pow(std::fabs(x) + 0.5, 1.7), 1e-15 * std::pow(std::fabs(x) + 0.5, 1.7) * 4);
        EXPECT_DOUBLE_EQ(out[i * 6 + 4], x / (x * x + 1.0));
        EXPECT_EQ(out[i * 6 + 5], static_cast<double>(static_cast<long long>(x * 1000.0)) + std::fma(x, x, 1.0));
    }
}

TEST(CudaKernels, BarrierDivergenceIsAClearError) {
    REQUIRE_NVCC();
    const Module m = load("errors");
    std::vector<int> out(64);
    ParamPacker p;
    p.add(out.data());
    try {
        launch(m, "barrier_divergence", {1, 1, 1}, {64, 1, 1}, p.bytes());
        FAIL() << "expected a barrier deadlock";
    } catch (const SimError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("kernel 'barrier_divergence' block (0,0,0): barrier deadlock"), std::string::npos) << msg;
        EXPECT_NE(msg.find("barrier 0: 32 of 64 threads arrived"), std::string::npos) << msg;
        EXPECT_NE(msg.find("warp 0 waits at barrier 0 with 16 of its 32 non-exited lanes (0x55555555); lanes 0xaaaaaaaa are on "
                           "another path"),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find("errors.cu:6)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("bar.sync"), std::string::npos) << msg;
    }
}

TEST(CudaKernels, SharedOutOfBoundsIsAClearError) {
    REQUIRE_NVCC();
    const Module m = load("errors");
    std::vector<int> out(32);
    ParamPacker p;
    p.add(out.data()).add(1000);
    try {
        launch(m, "shared_out_of_bounds", {1, 1, 1}, {32, 1, 1}, p.bytes());
        FAIL() << "expected an out-of-bounds error";
    } catch (const SimError& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("kernel 'shared_out_of_bounds' block (0,0,0) thread (0,0,0): shared memory read out of bounds: 4 "
                           "bytes at offset"),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find("errors.cu:15)"), std::string::npos) << msg;
        EXPECT_NE(msg.find("ld.shared"), std::string::npos) << msg;
    }
}

// Programmatic dependent launch (sm_90): every Weft CUDA entry starts with griddepcontrol.wait
// (compiler/codegen/cpp_codegen.h), so the sim device runs it in every kernel. A simulated launch
// runs alone (the launches before it have ended, none after it starts early), so both forms are
// no-ops: three launches in a row add exactly 3. The timing model, with ptxas's registers and
// its SASS per PTX line (sass_map.h), takes the same PTX.
TEST(CudaKernels, GridDependencyControlIsANoOpWithinALaunch) {
    REQUIRE_NVCC();
    const std::string ptx = read_file(std::string(GPUSIM_PTX_DIR) + "/pdl.ptx");
    ASSERT_NE(ptx.find("griddepcontrol.wait;"), std::string::npos) << ptx;
    ASSERT_NE(ptx.find("griddepcontrol.launch_dependents;"), std::string::npos) << ptx;
    const Module m = parse_ptx(ptx, "pdl.ptx");
    int waits = 0, triggers = 0;
    for (const Instr& in : m.instructions()) {
        if (in.op != Op::Griddepcontrol) continue;
        if (in.sub == static_cast<uint8_t>(GriddepMode::Wait)) ++waits;
        if (in.sub == static_cast<uint8_t>(GriddepMode::LaunchDependents)) ++triggers;
    }
    EXPECT_EQ(waits, 1);
    EXPECT_EQ(triggers, 1);

    const int n = 1000;  // 4 blocks of 256: the last one partly idle
    std::vector<float> y(n), expect(n);
    for (int i = 0; i < n; ++i) {
        y[i] = static_cast<float>(i - 500);  // integers: every sum is exact
        expect[i] = y[i] + 3.0f;
    }
    for (int k = 0; k < 3; ++k) {
        ParamPacker p;
        p.add(y.data()).add(n);
        launch(m, "add_one_pdl", {4, 1, 1}, {256, 1, 1}, p.bytes());
    }
    EXPECT_EQ(y, expect);

    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.ptx_text = ptx;  // registers from ptxas -v
    const SassMap map = map_sass(ptx, o.arch);
    ASSERT_EQ(map.kernels.count("add_one_pdl"), 1u);
    o.issue_weights = sass_weights(map, m, "add_one_pdl");
    ParamPacker p;
    p.add(y.data()).add(n);
    const TimingResult r = launch_timed(m, "add_one_pdl", {4, 1, 1}, {256, 1, 1}, p.bytes(), o);
    EXPECT_GT(r.cycles, 0u);
    for (float& e : expect) e += 1.0f;
    EXPECT_EQ(y, expect);
}

}  // namespace
}  // namespace weft::gpusim
