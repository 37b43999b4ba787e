// CPU device benchmarks against hand-written C++ on the same threads (Google Benchmark).
//
//   saxpy  (memory-bound):  y = a x + y over 16M floats
//   nbody  (compute-bound): all-pairs softened gravity, 4096 bodies
//   compile: a 10-kernel module, cold (empty cache: Clang + load) and warm (cache hit + load)
//
// Each Weft benchmark has a twin "Hand" loop compiled -O3 -march=native by the host compiler and
// run on the same ThreadPool with the same partition, so the ratio isolates code quality and
// launch overhead. Arguments: thread count. Results: bench/results/cpu-<date>.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <unistd.h>

#include "runtime/cpu/thread_pool.h"
#include "runtime/module.h"

namespace {

using namespace weft;

const char* kKernels = R"(import weft as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3()
    for j in range(pos.shape[0]):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        inv = 1.0 / (r2 * wp.sqrt(r2))
        a = a + d * inv
    acc[i] = a
)";

std::shared_ptr<runtime::Module> module() {
    static auto m = runtime::Module::compile({{"bench_kernels.py", kKernels, 0}});
    return m;
}

constexpr int64_t kSaxpyN = 16 << 20;
constexpr int kBodies = 4096;

void BM_SaxpyWeft(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    auto x = runtime::Array::zeros(compiler::float32_type(), {kSaxpyN}, {});
    auto y = runtime::Array::zeros(compiler::float32_type(), {kSaxpyN}, {});
    float one = 1.0f;
    x.fill(&one);
    auto k = module()->kernel("saxpy");
    std::vector<runtime::LaunchArg> args = {runtime::LaunchArg::of(x), runtime::LaunchArg::of(y),
                                            runtime::LaunchArg::number_of(2.0)};
    runtime::launch(k, {kSaxpyN}, args, {});  // compile outside the timing
    for (auto _ : state) runtime::launch(k, {kSaxpyN}, args, {});
    state.SetBytesProcessed(state.iterations() * kSaxpyN * 12);
}

void BM_SaxpyHand(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    std::vector<float> x(kSaxpyN, 1.0f), y(kSaxpyN, 0.0f);
    runtime::ThreadPool& pool = runtime::cpu_thread_pool();
    const int64_t chunks = pool.size() * 8, per = (kSaxpyN + chunks - 1) / chunks;
    float* xp = x.data();
    float* yp = y.data();
    for (auto _ : state) {
        // The pointers are captured by value: through the closure's references the store to
        // y[i] could alias them for the optimiser, which would then reload them every
        // iteration and not vectorise (the mistake Weft's own range functions made until
        // 2026-12-03, bench/results/cpu-2026-12-03.md).
        pool.parallel_for(chunks, [xp, yp, per](int64_t c, int) {
            int64_t b = c * per, e = std::min(kSaxpyN, b + per);
            for (int64_t i = b; i < e; ++i) yp[i] = 2.0f * xp[i] + yp[i];
        });
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * kSaxpyN * 12);
}

std::vector<float> bodies() {
    std::vector<float> p(3 * kBodies);
    for (int i = 0; i < 3 * kBodies; ++i) p[i] = std::sin(0.37f * i) * 10.0f;
    return p;
}

void BM_NBodyWeft(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    auto v3 = compiler::vector_type(3, compiler::ScalarKind::Float32);
    auto pos = runtime::Array::empty(v3, {kBodies}, {});
    auto p = bodies();
    pos.copy_from_host(p.data(), p.size() * 4);
    auto acc = runtime::Array::zeros(v3, {kBodies}, {});
    auto k = module()->kernel("nbody");
    std::vector<runtime::LaunchArg> args = {runtime::LaunchArg::of(pos), runtime::LaunchArg::of(acc)};
    runtime::launch(k, {kBodies}, args, {});
    for (auto _ : state) runtime::launch(k, {kBodies}, args, {});
    state.counters["interactions/s"] =
        benchmark::Counter(double(kBodies) * kBodies, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_NBodyHand(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    auto p = bodies();
    std::vector<float> acc(3 * kBodies);
    runtime::ThreadPool& pool = runtime::cpu_thread_pool();
    const int64_t chunks = std::min<int64_t>(kBodies / 256, pool.size() * 8), per = (kBodies + chunks - 1) / chunks;
    for (auto _ : state) {
        pool.parallel_for(chunks, [&](int64_t c, int) {
            int64_t b = c * per, e = std::min<int64_t>(kBodies, b + per);
            for (int64_t i = b; i < e; ++i) {
                float px = p[3 * i], py = p[3 * i + 1], pz = p[3 * i + 2], ax = 0, ay = 0, az = 0;
                for (int j = 0; j < kBodies; ++j) {
                    float dx = p[3 * j] - px, dy = p[3 * j + 1] - py, dz = p[3 * j + 2] - pz;
                    float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
                    float inv = 1.0f / (r2 * std::sqrt(r2));
                    ax += dx * inv;
                    ay += dy * inv;
                    az += dz * inv;
                }
                acc[3 * i] = ax;
                acc[3 * i + 1] = ay;
                acc[3 * i + 2] = az;
            }
        });
        benchmark::ClobberMemory();
    }
    state.counters["interactions/s"] =
        benchmark::Counter(double(kBodies) * kBodies, benchmark::Counter::kIsIterationInvariantRate);
}

// Launch overhead: saxpy over 1024 floats (about 1 us of work), Weft's launch against the same
// loop dispatched on the same pool by hand (issue 20: small cloths are launch-bound on the CPU).
constexpr int64_t kSmallN = 1024;

void BM_SmallLaunchWeft(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    auto x = runtime::Array::zeros(compiler::float32_type(), {kSmallN}, {});
    auto y = runtime::Array::zeros(compiler::float32_type(), {kSmallN}, {});
    auto k = module()->kernel("saxpy");
    std::vector<runtime::LaunchArg> args = {runtime::LaunchArg::of(x), runtime::LaunchArg::of(y),
                                            runtime::LaunchArg::number_of(2.0)};
    runtime::launch(k, {kSmallN}, args, {});
    for (auto _ : state) runtime::launch(k, {kSmallN}, args, {});
}

void BM_SmallLaunchHand(benchmark::State& state) {
    runtime::set_cpu_threads(static_cast<int>(state.range(0)));
    std::vector<float> x(kSmallN, 1.0f), y(kSmallN, 0.0f);
    runtime::ThreadPool& pool = runtime::cpu_thread_pool();
    const int64_t chunks = pool.size(), per = (kSmallN + chunks - 1) / chunks;
    float* xp = x.data();
    float* yp = y.data();
    for (auto _ : state) {
        pool.parallel_for(chunks, [xp, yp, per](int64_t c, int) {
            int64_t b = c * per, e = std::min(kSmallN, b + per);
            for (int64_t i = b; i < e; ++i) yp[i] = 2.0f * xp[i] + yp[i];
        });
        benchmark::ClobberMemory();
    }
}

// A module of 10 kernels, made unique per iteration (a comment with a counter) for the cold case.
std::string ten_kernels(int salt) {
    std::string s = "import weft as wp\n# " + std::to_string(salt) + "\n";
    for (int k = 0; k < 10; ++k)
        s += "@wp.kernel\ndef k" + std::to_string(k) +
             "(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=float), q: wp.quat):\n"
             "    i = wp.tid()\n    v = wp.quat_rotate(q, a[i]) * b[i]\n    if wp.length(v) > " +
             std::to_string(k) +
             ".0:\n        v = wp.normalize(v)\n    a[i] = v + wp.cross(v, a[i])\n    b[i] = wp.dot(v, v)\n\n";
    return s;
}

void launch_first(const std::shared_ptr<runtime::Module>& m) {
    // Making the module ready on the CPU is what a first launch pays.
    (void)m->loaded(runtime::Device{}, false);
}

void BM_CompileTenKernelsCold(benchmark::State& state) {
    std::string dir = "/tmp/weft-bench-cache-" + std::to_string(::getpid());
    setenv("WEFT_CACHE_DIR", dir.c_str(), 1);
    int salt = 0;
    for (auto _ : state) {
        auto m = runtime::Module::compile({{"ten.py", ten_kernels(++salt), 0}});
        launch_first(m);
    }
    std::filesystem::remove_all(dir);
}

void BM_CompileTenKernelsWarm(benchmark::State& state) {
    std::string dir = "/tmp/weft-bench-cache-warm-" + std::to_string(::getpid());
    setenv("WEFT_CACHE_DIR", dir.c_str(), 1);
    launch_first(runtime::Module::compile({{"ten.py", ten_kernels(0), 0}}));
    for (auto _ : state) {
        auto m = runtime::Module::compile({{"ten.py", ten_kernels(0), 0}});
        launch_first(m);
    }
    std::filesystem::remove_all(dir);
}

BENCHMARK(BM_SaxpyWeft)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SaxpyHand)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NBodyWeft)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NBodyHand)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SmallLaunchWeft)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SmallLaunchHand)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CompileTenKernelsCold)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_CompileTenKernelsWarm)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
