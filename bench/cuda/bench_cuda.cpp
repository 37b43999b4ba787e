// bench/cuda/bench_cuda.cpp: what the cuda device costs, against what the GPU can do.
//
//   copy       cuMemcpyDtoD of a 1 GiB buffer: the bandwidth ceiling (bytes read + written)
//   saxpy      examples/saxpy.py over 2^28 floats (12 bytes per element), as a fraction of copy;
//              then the same over block sizes x grid sizes (grid-stride entries, cuda_context.h)
//   particles  x += v*dt, v += g*dt over 64M vec3 (48 bytes per element), as a fraction of copy
//   launch     a Weft launch (runtime::launch of an empty kernel) against a raw cuLaunchKernel of
//              an empty kernel: host time to issue, and time per launch including the GPU
//   graph      100 small dependent launches (saxpy over 4096 floats): eager vs one graph replay,
//              Weft's default (programmatic dependent launch on sm_90+) and with PDL off, then raw CUDA
//
// Every figure is the median of many repetitions after a warm-up, timed with CUDA events (the
// launch figures with the host clock, since they measure the host). Inputs are random, never
// zeros. Prints a table, then one "RESULT name value unit" line per figure for scripts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/nvrtc_compiler.h"
#include "runtime/cuda/stream.h"
#include "runtime/module.h"

using namespace weft;
using namespace weft::runtime;

namespace {

const char* kBenchKernels = R"PY(import weft as wp

@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), g: wp.vec3, dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt
    v[i] = v[i] + g * dt


@wp.kernel
def empty(n: int):
    pass


@wp.kernel
def copy_f32(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i]


@wp.kernel
def saxpy_vec4(x: wp.array(dtype=wp.vec4), y: wp.array(dtype=wp.vec4), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
)PY";

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double spread(std::vector<double> v) {  // (max - min) / median
    std::sort(v.begin(), v.end());
    return (v.back() - v.front()) / v[v.size() / 2];
}

// Median milliseconds of `body` over `reps` runs on stream s, after `warm` runs.
template <typename F>
std::vector<double> time_events(const Stream& s, int warm, int reps, F body) {
    Device d = s.device();
    for (int i = 0; i < warm; ++i) body();
    s.synchronize();
    std::vector<double> ms;
    Event a(d, true), b(d, true);
    for (int i = 0; i < reps; ++i) {
        a.record(s);
        body();
        b.record(s);
        b.synchronize();
        ms.push_back(a.elapsed_ms(b));
    }
    return ms;
}

Array random_array(compiler::Type t, int64_t n, const Device& d, uint32_t seed) {
    const size_t count = static_cast<size_t>(n) * compiler::type_size(t) / 4;
    std::vector<float> host(count);
    uint32_t s = seed * 2654435761u + 12345u;
    for (auto& x : host) {
        s = s * 1664525u + 1013904223u;
        x = static_cast<float>(s >> 8) * (1.0f / 16777216.0f) - 0.5f;
    }
    Array a = Array::empty(t, {n}, d);
    a.copy_from_host(host.data(), host.size() * 4);
    return a;
}

struct Row {
    std::string name, value, unit, note;
};
std::vector<Row> rows;

void result(const std::string& name, double value, const std::string& unit, const std::string& note) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", value);
    rows.push_back({name, buf, unit, note});
    std::printf("RESULT %s %s %s\n", name.c_str(), buf, unit.c_str());
    std::fflush(stdout);
}

}  // namespace

int main() {
    if (!cuda_device_available(0)) {
        std::printf("bench_cuda: no CUDA GPU here (%s)\n", cuda_unavailable_reason().c_str());
        return 0;
    }
    try {
        const Device dev{DeviceKind::Cuda, 0, {}};
        CudaContext& ctx = CudaContext::get(0);
        const CudaDriver& cu = cuda_driver();
        std::printf("device: %s (%s, %d SMs), driver %d, %s\n", ctx.name().c_str(), ctx.arch().c_str(), ctx.sm_count(),
                    cu.driver_version, nvrtc_version().c_str());
        Stream s = Stream::default_stream(dev);
        auto saxpy_mod = Module::compile({{"examples/saxpy.py", read_file(std::string(WEFT_SOURCE_DIR) + "/examples/saxpy.py")}});
        auto bench_mod = Module::compile({{"bench/cuda/bench_kernels.py", kBenchKernels}});
        LaunchOptions on_gpu;
        on_gpu.device = dev;
        on_gpu.debug = 0;
        const compiler::Type f32 = compiler::float32_type();
        const compiler::Type v3 = compiler::vector_type(3, compiler::ScalarKind::Float32);

        // ---- copy: the ceiling -------------------------------------------------------------
        double copy_gbs = 0;
        {
            const size_t bytes = size_t(1) << 30;
            Array src = random_array(f32, bytes / 4, dev, 1), dst = Array::empty(f32, {int64_t(bytes / 4)}, dev);
            auto ms = time_events(s, 3, 30, [&] {
                check(cu.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst.data()), reinterpret_cast<CUdeviceptr>(src.data()),
                                           bytes, s.handle()),
                      "cuMemcpyDtoDAsync");
            });
            copy_gbs = 2.0 * bytes / (median(ms) * 1e-3) / 1e9;
            result("copy_bandwidth", copy_gbs, "GB/s", "cuMemcpyDtoD 1 GiB, read+write; spread " + std::to_string(spread(ms)));
        }

        // ---- saxpy ---------------------------------------------------------------------------
        {
            const int64_t n = int64_t(1) << 28;
            Array x = random_array(f32, n, dev, 2), y = random_array(f32, n, dev, 3);
            Kernel k = saxpy_mod->kernel("saxpy");
            auto measure = [&](int block_dim) {
                LaunchOptions o = on_gpu;
                o.block_dim = block_dim;
                auto ms = time_events(s, 3, 30, [&] {
                    launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::number_of(1e-3)}, o);
                });
                return 12.0 * n / (median(ms) * 1e-3) / 1e9;
            };
            double gbs = measure(0);  // what a plain launch does: block 256, the default grid
            result("saxpy_bandwidth", gbs, "GB/s",
                   "2^28 floats, 12 B/elem, default launch (grid waves " + std::to_string(ctx.grid_waves()) + ")");
            result("saxpy_fraction_of_copy", gbs / copy_gbs, "x", "target >= 0.85");
            // The launch geometry around it: block size x grid (0: full grid; w: w waves of
            // resident blocks, the grid-stride entry looping), and the L2 fetch granularity.
            const int default_waves = ctx.grid_waves();
            for (int bd : {256, 512, 1024}) {
                for (int waves : {0, 1, 2, 4, 8, 16}) {
                    ctx.set_grid_waves(waves);
                    result("saxpy_b" + std::to_string(bd) + "_w" + std::to_string(waves), measure(bd) / copy_gbs, "x",
                           "fraction of copy, block " + std::to_string(bd) + ", grid waves " + std::to_string(waves));
                }
            }
            ctx.set_grid_waves(default_waves);
            size_t l2 = 0;
            check(cu.cuCtxGetLimit(&l2, CU_LIMIT_MAX_L2_FETCH_GRANULARITY), "cuCtxGetLimit");
            check(cu.cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 128), "cuCtxSetLimit");
            result("saxpy_l2fetch128", measure(0) / copy_gbs, "x",
                   "fraction of copy, default launch, L2 fetch granularity 128 (default " + std::to_string(l2) + ")");
            check(cu.cuCtxSetLimit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY, l2), "cuCtxSetLimit");
        }

        // ---- diagnostics: bytes in flight per thread --------------------------------------------
        // A 4-byte copy kernel (4 bytes loaded per thread, as saxpy's 8) and saxpy over vec4 (32
        // bytes loaded per thread): if the first trails the copy engine like saxpy and the second
        // does not, per-thread memory-level parallelism is what limits 4-byte kernels.
        {
            const int64_t n = int64_t(1) << 28;
            Array x = random_array(f32, n, dev, 8), y = random_array(f32, n, dev, 9);
            Kernel k = bench_mod->kernel("copy_f32");
            auto ms = time_events(s, 3, 30, [&] { launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(y)}, on_gpu); });
            result("copy_f32_kernel", 8.0 * n / (median(ms) * 1e-3) / 1e9 / copy_gbs, "x",
                   "fraction of copy: y[i] = x[i], 2^28 floats");
            const compiler::Type v4 = compiler::vector_type(4, compiler::ScalarKind::Float32);
            Array x4 = random_array(v4, n / 4, dev, 10), y4 = random_array(v4, n / 4, dev, 11);
            Kernel k4 = bench_mod->kernel("saxpy_vec4");
            auto ms4 = time_events(s, 3, 30, [&] {
                launch(k4, {n / 4}, {LaunchArg::of(x4), LaunchArg::of(y4), LaunchArg::number_of(1e-3)}, on_gpu);
            });
            result("saxpy_vec4", 12.0 * n / (median(ms4) * 1e-3) / 1e9 / copy_gbs, "x",
                   "fraction of copy: saxpy over vec4, 2^26 elements");
        }

        // ---- particles -------------------------------------------------------------------------
        {
            const int64_t n = int64_t(64) << 20;
            Array x = random_array(v3, n, dev, 4), v = random_array(v3, n, dev, 5);
            Kernel k = bench_mod->kernel("integrate");
            const float g[3] = {0.0f, -9.81f, 0.0f};
            auto ms = time_events(s, 3, 30, [&] {
                launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(v), LaunchArg::value(v3, g), LaunchArg::number_of(1e-4)}, on_gpu);
            });
            double gbs = 48.0 * n / (median(ms) * 1e-3) / 1e9;
            result("particles_bandwidth", gbs, "GB/s", "64M vec3, 48 B/elem");
            result("particles_fraction_of_copy", gbs / copy_gbs, "x", "target >= 0.85");
            const int default_waves = ctx.grid_waves();
            for (int waves : {0, 2, 4, 8}) {
                ctx.set_grid_waves(waves);
                auto ms2 = time_events(s, 3, 30, [&] {
                    launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(v), LaunchArg::value(v3, g), LaunchArg::number_of(1e-4)},
                           on_gpu);
                });
                result("particles_w" + std::to_string(waves), 48.0 * n / (median(ms2) * 1e-3) / 1e9 / copy_gbs, "x",
                       "fraction of copy, block 256, grid waves " + std::to_string(waves));
            }
            ctx.set_grid_waves(default_waves);
        }

        // ---- launch overhead ---------------------------------------------------------------
        {
            CUmodule raw_mod = nullptr;
            CUfunction raw_fn = nullptr;
            CudaCompileOptions o;
            o.arch = ctx.arch();
            const std::string cubin =
                compile_cuda_to_cubin({"empty.cu", "extern \"C\" __global__ void empty_kernel() {}\n"}, {}, o);
            check(cu.cuModuleLoadData(&raw_mod, cubin.data()), "cuModuleLoadData");
            check(cu.cuModuleGetFunction(&raw_fn, raw_mod, "empty_kernel"), "cuModuleGetFunction");
            Kernel k = bench_mod->kernel("empty");
            const int batch = 2000, reps = 21;
            auto run = [&](bool weft_launch, std::vector<double>& issue_us, std::vector<double>& total_us) {
                for (int r = 0; r < reps + 2; ++r) {
                    s.synchronize();
                    auto t0 = std::chrono::steady_clock::now();
                    for (int i = 0; i < batch; ++i) {
                        if (weft_launch)
                            launch(k, {1}, {LaunchArg::integer_of(1)}, on_gpu);
                        else
                            check(cu.cuLaunchKernel(raw_fn, 1, 1, 1, 1, 1, 1, 0, s.handle(), nullptr, nullptr), "cuLaunchKernel");
                    }
                    auto t1 = std::chrono::steady_clock::now();
                    s.synchronize();
                    auto t2 = std::chrono::steady_clock::now();
                    if (r < 2) continue;  // warm-up
                    issue_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
                    total_us.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / batch);
                }
            };
            std::vector<double> wi, wt, ri, rt;
            run(false, ri, rt);
            run(true, wi, wt);
            run(false, ri, rt);  // again, interleaved, to see drift
            result("launch_raw_issue", median(ri), "us", "cuLaunchKernel, empty kernel, host time per call");
            result("launch_weft_issue", median(wi), "us",
                   std::string("runtime::launch, empty kernel, host time per call") +
                       (ctx.uses_pdl() ? " (cuLaunchKernelEx, PDL)" : ""));
            result("launch_issue_ratio", median(wi) / median(ri), "x", "target <= 1.5");
            result("launch_raw_total", median(rt), "us", "per launch, 2000 back to back, incl. GPU");
            result("launch_weft_total", median(wt), "us", "per launch, 2000 back to back, incl. GPU");
            result("launch_total_ratio", median(wt) / median(rt), "x", "target <= 1.5");
            cu.cuModuleUnload(raw_mod);
        }

        // ---- graph replay ------------------------------------------------------------------
        {
            const int64_t n = 4096;
            Array x = random_array(f32, n, dev, 6), y = random_array(f32, n, dev, 7);
            Kernel k = saxpy_mod->kernel("saxpy");
            auto hundred = [&] {
                for (int i = 0; i < 100; ++i)
                    launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::number_of(0.999)}, on_gpu);
            };
            Stream cs(dev);
            // Weft's default launches (programmatic dependent launch on sm_90+, cuda_context.h),
            // then the same with PDL switched off: both ways, so the ratio is honest either way.
            const bool pdl_setting = ctx.pdl_enabled();
            std::vector<bool> modes = {ctx.uses_pdl()};
            if (ctx.uses_pdl()) modes.push_back(false);
            for (size_t mode = 0; mode < modes.size(); ++mode) {
                ctx.set_pdl_enabled(modes[mode]);
                hundred();
                synchronize(dev);
                begin_capture(cs);
                hundred();
                Graph g = end_capture();
                auto eager = time_events(cs, 3, 51, [&] {
                    ScopedStream use(cs);
                    hundred();
                });
                auto graph = time_events(cs, 3, 51, [&] { g.launch(cs); });
                const std::string tag = mode == 0 ? "graph" : "graph_nopdl";
                const std::string how = modes[mode] ? " (PDL)" : " (no PDL)";
                result(tag + "_eager_100", median(eager), "ms", "100 dependent saxpy(4096) launches, events" + how);
                result(tag + "_replay_100", median(graph), "ms", "the same 100 as one graph launch" + how);
                result(tag + "_speedup", median(eager) / median(graph), "x",
                       mode == 0 ? "target >= 3" + how : std::string("replay vs eager, both with PDL off (WEFT_CUDA_PDL=0)"));
            }
            ctx.set_pdl_enabled(pdl_setting);

            // The same with raw CUDA (a hand-written saxpy, cuLaunchKernel): the speedup the driver
            // and GPU allow. Then with programmatic dependent launch (PDL, sm_90+): each kernel
            // starts with griddepcontrol.wait and is launched with programmatic stream
            // serialisation, so the next kernel's launch overlaps the end of the previous one.
            CudaCompileOptions co;
            co.arch = ctx.arch();
            const std::string raw_src =
                "extern \"C\" __global__ void raw_saxpy(const float* x, float* y, float a, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n"
                "extern \"C\" __global__ void raw_saxpy_pdl(const float* x, float* y, float a, int n) {\n"
                "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + y[i]; }\n";
            const std::string raw_cubin = compile_cuda_to_cubin({"raw_saxpy.cu", raw_src}, {}, co);
            CUmodule rm = nullptr;
            CUfunction rf = nullptr, rf_pdl = nullptr;
            check(cu.cuModuleLoadData(&rm, raw_cubin.data()), "cuModuleLoadData");
            check(cu.cuModuleGetFunction(&rf, rm, "raw_saxpy"), "cuModuleGetFunction");
            check(cu.cuModuleGetFunction(&rf_pdl, rm, "raw_saxpy_pdl"), "cuModuleGetFunction");
            CUdeviceptr px = reinterpret_cast<CUdeviceptr>(x.data()), py = reinterpret_cast<CUdeviceptr>(y.data());
            float a = 0.999f;
            int nn = int(n);
            void* params[] = {&px, &py, &a, &nn};
            auto raw_hundred = [&](CUstream st, bool pdl) {
                for (int i = 0; i < 100; ++i) {
                    if (!pdl) {
                        check(cu.cuLaunchKernel(rf, unsigned(n / 256), 1, 1, 256, 1, 1, 0, st, params, nullptr),
                              "cuLaunchKernel");
                        continue;
                    }
                    CUlaunchAttribute attr{};
                    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
                    attr.value.programmaticStreamSerializationAllowed = 1;
                    CUlaunchConfig cfg{};
                    cfg.gridDimX = unsigned(n / 256);
                    cfg.gridDimY = cfg.gridDimZ = 1;
                    cfg.blockDimX = 256;
                    cfg.blockDimY = cfg.blockDimZ = 1;
                    cfg.hStream = st;
                    cfg.attrs = &attr;
                    cfg.numAttrs = 1;
                    check(cu.cuLaunchKernelEx(&cfg, rf_pdl, params, nullptr), "cuLaunchKernelEx");
                }
            };
            for (bool pdl : {false, true}) {
                raw_hundred(cs.handle(), pdl);
                cs.synchronize();
                CUgraph rg = nullptr;
                CUgraphExec rge = nullptr;
                check(cu.cuStreamBeginCapture(cs.handle(), CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
                raw_hundred(cs.handle(), pdl);
                check(cu.cuStreamEndCapture(cs.handle(), &rg), "cuStreamEndCapture");
                check(cu.cuGraphInstantiate(&rge, rg, 0), "cuGraphInstantiate");
                auto re = time_events(cs, 3, 51, [&] { raw_hundred(cs.handle(), pdl); });
                auto rgt = time_events(cs, 3, 51, [&] { check(cu.cuGraphLaunch(rge, cs.handle()), "cuGraphLaunch"); });
                const std::string tag = pdl ? "raw_pdl" : "raw";
                result("graph_" + tag + "_eager_100", median(re), "ms",
                       "100 dependent raw saxpy(4096)" + std::string(pdl ? " with PDL" : "") + ", events");
                result("graph_" + tag + "_replay_100", median(rgt), "ms", "the same 100 as one graph launch");
                result("graph_" + tag + "_speedup", median(re) / median(rgt), "x", "raw CUDA baseline of graph_speedup");
                cu.cuGraphExecDestroy(rge);
                cu.cuGraphDestroy(rg);
            }
            cu.cuModuleUnload(rm);
        }
    } catch (const std::exception& e) {
        std::printf("bench_cuda: ERROR: %s\n", e.what());
        return 1;
    }

    std::printf("\n| figure | value | unit | note |\n|---|---|---|---|\n");
    for (const Row& r : rows)
        std::printf("| %s | %s | %s | %s |\n", r.name.c_str(), r.value.c_str(), r.unit.c_str(), r.note.c_str());
    return 0;
}
