// bench/gpusim/weft_validate.cpp: the Weft-kernel half of gpusim's validation against the H200.
//
//   weft_validate DEVICE [--set weft|heldout|heldout_warp] [--only ID] [--list] [--arch FILE.json] [--sass-counts]
//
// Launches every case of a set once, in order, on DEVICE through Weft's runtime, exactly as a
// user's program would, with deterministic inputs (cases.h's generator):
//   weft      (default) the calibration set: gpusim/validation/weft_kernels.py, group "weft"
//   heldout   the held-out set: gpusim/validation/weft_heldout.py, group "heldout", never used to
//             set a parameter of the model (issue 21)
//   heldout_warp  a second held-out set, warp collectives: gpusim/validation/weft_heldout_warp.py
// compiled by Weft (kernel language -> C++ -> NVRTC -> PTX).
//   cuda:N     run under Nsight Compute on the H200 (gpusim/validation/run_h200.sh): prints
//              `case ID SYMBOL CHECKSUM` per launch (ncu lists the launches by SYMBOL, in order)
//   sim:ARCH   gpusim's timing model through the sim device: one JSON line per launch (the
//              fields of gpusim_validate, gpusim/validation/result_json.h), group "weft"
// Both print `ptx HASH` first: the hash of the module's sm_90 PTX, so compare.py can check that
// the GPU and the simulator ran the same code. --sass-counts (sim only) also prints, per launch, the
// SASS estimate per SASS instruction and the PTX line of each (as gpusim_validate's option does),
// to set against Nsight Compute's source view. The CUDA device is held to full grids
// (WEFT_CUDA_GRID_WAVES=0, unless set) so that both devices launch the same blocks.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cases.h"
#include "gpusim/arch/arch.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_map.h"
#include "result_json.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "runtime/module.h"
#include "runtime/sim/sim_backend.h"
#include "support/hash.h"

using namespace weft;
using namespace weft::runtime;
namespace val = weft::gpusim::validation;

namespace {

// One argument of a case: an array made and filled on the device, or a value.
struct Arg {
    enum Kind { Floats, Zeros, Ints, Springs, Given, Value } kind = Floats;
    compiler::Type type = nullptr;  // element type of an array, or the value's type
    std::vector<int64_t> shape;     // arrays
    int64_t modulus = 0;            // Ints: values in [0, modulus); Springs: grid side
    std::vector<std::byte> bytes;   // Value; Given: the array's contents
};

Arg floats(compiler::Type t, std::vector<int64_t> shape) { return {Arg::Floats, t, std::move(shape)}; }
Arg zeros(compiler::Type t, std::vector<int64_t> shape) { return {Arg::Zeros, t, std::move(shape)}; }
Arg ints(int64_t n, int64_t modulus) { return {Arg::Ints, compiler::int32_type(), {n}, modulus}; }
// The structural springs of a side x side cloth grid, as index pairs (2 ints per spring).
Arg springs(int64_t side) { return {Arg::Springs, compiler::int32_type(), {4 * side * (side - 1)}, side}; }
// An int array with the given contents.
Arg given(const std::vector<int32_t>& v) {
    Arg a{Arg::Given, compiler::int32_type(), {static_cast<int64_t>(v.size())}};
    a.bytes.resize(v.size() * 4);
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    return a;
}
template <typename T>
Arg value(compiler::Type t, const T& v) {
    Arg a{Arg::Value, t};
    a.bytes.resize(sizeof v);
    std::memcpy(a.bytes.data(), &v, sizeof v);
    return a;
}

struct WeftCase {
    std::string id, kernel;
    std::vector<int64_t> dim;
    std::vector<Arg> args;
};

std::vector<WeftCase> weft_cases() {
    using namespace compiler;
    const Type f32 = float32_type(), f64 = float64_type(), i32 = int32_type();
    const Type v3 = vector_type(3, ScalarKind::Float32), m33 = matrix_type(3, 3, ScalarKind::Float32),
               q = quat_type(ScalarKind::Float32);
    const int64_t m = int64_t{1} << 20;  // a million threads, as kernels.cu's streaming cases
    const float g[3] = {0.0f, -9.8f, 0.0f}, center[3] = {0.5f, 0.5f, 0.5f};
    const int64_t side = 512, nsprings = 2 * side * (side - 1), t = 1024;
    std::vector<WeftCase> c;
    c.push_back({"w_saxpy", "saxpy", {m}, {floats(f32, {m}), floats(f32, {m}), value(f32, 2.5f)}});
    c.push_back({"w_axpy_f64", "axpy_f64", {m}, {floats(f64, {m}), floats(f64, {m}), value(f64, 2.5)}});
    c.push_back({"w_integrate_aos",
                 "integrate_aos",
                 {m},
                 {floats(v3, {m}), floats(v3, {m}), floats(v3, {m}), floats(f32, {m}), value(v3, g), value(f32, 1.0f / 600.0f)}});
    std::vector<Arg> soa;
    for (int k = 0; k < 10; ++k) soa.push_back(floats(f32, {m}));
    soa.push_back(value(f32, -9.8f));
    soa.push_back(value(f32, 1.0f / 600.0f));
    c.push_back({"w_integrate_soa", "integrate_soa", {m}, soa});
    c.push_back({"w_collide_sdf", "collide_sdf", {m}, {floats(v3, {m}), floats(v3, {m}), value(v3, center), value(f32, 0.3f)}});
    c.push_back({"w_spring_forces",
                 "spring_forces",
                 {nsprings},
                 {floats(v3, {side * side}), floats(v3, {side * side}), springs(side), floats(f32, {nsprings}),
                  value(f32, 100.0f), value(f32, 0.5f), zeros(v3, {side * side})}});
    const int64_t ng = m / 4, k = 8;
    c.push_back({"w_neighbor_gather",
                 "neighbor_gather",
                 {ng},
                 {floats(v3, {ng}), ints(ng * k, ng), zeros(f32, {ng}), value(i32, int32_t(k))}});
    c.push_back({"w_hash_cells",
                 "hash_cells",
                 {m},
                 {floats(v3, {m}), value(f32, 20.0f), zeros(i32, {1 << 16}), value(i32, int32_t((1 << 16) - 1))}});
    c.push_back({"w_histogram", "histogram", {m}, {floats(f32, {m}), zeros(i32, {64})}});
    const int64_t nm = m / 4;
    c.push_back({"w_mat33_apply", "mat33_apply", {nm}, {floats(m33, {nm}), floats(v3, {nm}), zeros(v3, {nm})}});
    c.push_back({"w_quat_rotate", "quat_rotate", {nm}, {floats(q, {nm}), floats(v3, {nm}), zeros(v3, {nm})}});
    c.push_back({"w_transcendental", "transcendental", {m}, {floats(f32, {m}), zeros(f32, {m})}});
    c.push_back({"w_rng_fill", "rng_fill", {m}, {zeros(f32, {m}), value(i32, int32_t(42))}});
    c.push_back({"w_newton_sqrt", "newton_sqrt", {m / 4}, {floats(f32, {m / 4}), zeros(f32, {m / 4})}});
    c.push_back({"w_laplace_2d", "laplace_2d", {t, t}, {floats(f32, {t, t}), zeros(f32, {t, t})}});
    c.push_back({"w_transpose_naive", "transpose_naive", {t, t}, {floats(f32, {t, t}), zeros(f32, {t, t})}});
    // 256 threads per 32 x 32 tile
    c.push_back({"w_transpose_tiled",
                 "transpose_tiled",
                 {t * t / 4},
                 {floats(f32, {t * t}), zeros(f32, {t * t}), value(i32, int32_t(t))}});
    c.push_back({"w_reduce_atomic", "reduce_atomic", {m}, {floats(f32, {m}), zeros(f32, {1})}});
    c.push_back({"w_reduce_block", "reduce_block", {m}, {floats(f32, {m}), zeros(f32, {1})}});
    return c;
}

// The held-out set (weft_heldout.py): written after the model was calibrated; see that file.
std::vector<WeftCase> heldout_cases() {
    using namespace compiler;
    const Type f32 = float32_type(), f64 = float64_type(), i32 = int32_type();
    const Type v3 = vector_type(3, ScalarKind::Float32), v4 = vector_type(4, ScalarKind::Float32),
               m33 = matrix_type(3, 3, ScalarKind::Float32), m44 = matrix_type(4, 4, ScalarKind::Float32);
    const int64_t m = int64_t{1} << 20;
    std::vector<WeftCase> c;
    const int64_t n3 = 128;
    c.push_back({"h_stencil3d",
                 "stencil3d",
                 {n3 * n3 * n3},
                 {floats(f32, {n3 * n3 * n3}), zeros(f32, {n3 * n3 * n3}), value(i32, int32_t(n3))}});
    c.push_back({"h_stencil_f64", "stencil_f64", {m}, {floats(f64, {m}), zeros(f64, {m})}});
    // CSR rows of 1 to 16 nonzeros (a fixed hash of the row), random columns.
    const int64_t rows = m / 4;
    std::vector<int32_t> start(static_cast<size_t>(rows + 1), 0);
    for (int64_t r = 0; r < rows; ++r)
        start[static_cast<size_t>(r + 1)] = start[static_cast<size_t>(r)] + 1 + int32_t((uint32_t(r) * 2654435761u >> 7) % 16);
    const int64_t nnz = start.back();
    c.push_back({"h_spmv_csr",
                 "spmv_csr",
                 {rows},
                 {given(start), ints(nnz, rows), floats(f32, {nnz}), floats(f32, {rows}), zeros(f32, {rows})}});
    c.push_back({"h_bitonic_block", "bitonic_block", {m}, {floats(f32, {m}), zeros(f32, {m})}});
    c.push_back({"h_scan_block", "scan_block", {m}, {floats(f32, {m}), zeros(f32, {m})}});
    // One 4-warp block per SM, each body against the first 1024.
    const int64_t bodies = 132 * 128;
    c.push_back({"h_nbody_tile", "nbody_tile", {bodies}, {floats(v4, {bodies}), zeros(v3, {bodies}), value(i32, int32_t(1024))}});
    // Particle to grid: positions are array seed 1 (the first array argument); the sorted variant
    // visits them in cell order, the shuffled one in index order (random cells).
    const int64_t np = m / 4, res = 64;
    std::vector<float> xs(static_cast<size_t>(np * 3));
    val::fill_inputs(xs.data(), xs.size(), 1);
    std::vector<int32_t> by_cell(static_cast<size_t>(np)), identity(static_cast<size_t>(np));
    std::vector<int64_t> cell(static_cast<size_t>(np));
    for (int64_t i = 0; i < np; ++i) {
        int64_t k = 0;
        for (int d = 0; d < 3; ++d) k = k * res + std::min<int64_t>(int64_t(xs[size_t(3 * i + d)] * float(res - 1)), res - 2);
        cell[size_t(i)] = k;
        by_cell[size_t(i)] = identity[size_t(i)] = int32_t(i);
    }
    std::stable_sort(by_cell.begin(), by_cell.end(), [&](int32_t a, int32_t b) { return cell[size_t(a)] < cell[size_t(b)]; });
    c.push_back({"h_p2g_sorted",
                 "p2g",
                 {np},
                 {floats(v3, {np}), given(by_cell), zeros(f32, {res * res * res}), value(i32, int32_t(res))}});
    c.push_back({"h_p2g_shuffled",
                 "p2g",
                 {np},
                 {floats(v3, {np}), given(identity), zeros(f32, {res * res * res}), value(i32, int32_t(res))}});
    // Row gathers: 65,536 rows of 16 floats, in order or from random rows.
    const int64_t nr = m / 16;
    std::vector<int32_t> in_order(static_cast<size_t>(nr));
    for (int64_t r = 0; r < nr; ++r) in_order[size_t(r)] = int32_t(r);
    c.push_back({"h_gather_rows_seq", "gather_rows", {m}, {floats(f32, {m}), given(in_order), zeros(f32, {m})}});
    c.push_back({"h_gather_rows_random", "gather_rows", {m}, {floats(f32, {m}), ints(nr, nr), zeros(f32, {m})}});
    c.push_back({"h_div_f64", "div_f64", {m / 4}, {floats(f64, {m / 4}), floats(f64, {m / 4}), zeros(f64, {m / 4})}});
    c.push_back({"h_divergent_work", "divergent_work", {m / 4}, {floats(f32, {m / 4}), zeros(f32, {m / 4})}});
    c.push_back({"h_mat33_inverse", "mat33_inverse", {m / 4}, {floats(m33, {m / 4}), zeros(m33, {m / 4}), zeros(f32, {m / 4})}});
    c.push_back({"h_mat44_chain", "mat44_chain", {m / 8}, {floats(m44, {m / 8}), zeros(m44, {m / 8})}});
    c.push_back({"h_int_hash", "int_hash", {m}, {ints(m, 1 << 24), zeros(i32, {m})}});
    c.push_back({"h_atomic_hot", "atomic_hot", {m}, {zeros(i32, {8})}});
    c.push_back({"h_atomic_spread", "atomic_spread", {m}, {zeros(i32, {m}), value(i32, int32_t(m - 1))}});
    c.push_back({"h_shared_histogram", "shared_histogram", {m}, {floats(f32, {m}), zeros(i32, {256})}});
    c.push_back({"h_segment_max", "segment_max", {m}, {floats(f32, {m}), zeros(f32, {m / 64})}});
    c.push_back({"h_transcendental_f64", "transcendental_f64", {m / 4}, {floats(f64, {m / 4}), zeros(f64, {m / 4})}});
    c.push_back({"h_clamp_update",
                 "clamp_update",
                 {m},
                 {floats(v3, {m}), floats(v3, {m}), value(f32, 0.1f), value(f32, 0.9f), value(f32, 0.01f)}});
    // The sum of a 2048 x 2048 matrix by rows (strided across a warp) and by columns (coalesced).
    const int64_t side = 2048;
    c.push_back({"h_row_sums", "row_sums", {side}, {floats(f32, {side, side}), zeros(f32, {side})}});
    c.push_back({"h_col_sums", "col_sums", {side}, {floats(f32, {side, side}), zeros(f32, {side})}});
    return c;
}

// The warp-collective held-out set (weft_heldout_warp.py): written after the model; never measured
// before it was added, never used to set a parameter.
std::vector<WeftCase> heldout_warp_cases() {
    using namespace compiler;
    const Type f32 = float32_type(), i32 = int32_type();
    const int64_t m = int64_t{1} << 20;
    std::vector<WeftCase> c;
    c.push_back({"hw_warp_reduce_atomic", "warp_reduce_atomic", {m}, {floats(f32, {m}), zeros(f32, {1})}});
    c.push_back(
        {"hw_warp_scan", "warp_scan", {m}, {floats(f32, {m}), zeros(f32, {m}), zeros(f32, {m / 32}), zeros(i32, {m / 32})}});
    return c;
}

int64_t count_of(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

Array make_array(const Arg& a, const Device& d, uint32_t seed) {
    const int64_t n = count_of(a.shape);
    const size_t bytes = static_cast<size_t>(n) * compiler::type_size(a.type);
    std::vector<std::byte> host(bytes);
    if (a.kind == Arg::Floats) {
        if (a.type->scalar == compiler::ScalarKind::Float64) {
            std::vector<float> f(bytes / 8);
            val::fill_inputs(f.data(), f.size(), seed);
            for (size_t i = 0; i < f.size(); ++i) {
                const double v = f[i];
                std::memcpy(host.data() + 8 * i, &v, 8);
            }
        } else {
            val::fill_inputs(reinterpret_cast<float*>(host.data()), bytes / 4, seed);
        }
    } else if (a.kind == Arg::Ints) {
        std::vector<float> f(static_cast<size_t>(n));
        val::fill_inputs(f.data(), f.size(), seed);
        auto* p = reinterpret_cast<int32_t*>(host.data());
        for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(static_cast<int64_t>(f[i] * 16777216.0f) % a.modulus);
    } else if (a.kind == Arg::Given) {
        std::memcpy(host.data(), a.bytes.data(), bytes);
    } else if (a.kind == Arg::Springs) {
        auto* p = reinterpret_cast<int32_t*>(host.data());
        const int64_t s = a.modulus;
        int64_t k = 0;
        for (int64_t r = 0; r < s; ++r)
            for (int64_t col = 0; col + 1 < s; ++col) {  // horizontal, then vertical
                p[k++] = int32_t(r * s + col);
                p[k++] = int32_t(r * s + col + 1);
            }
        for (int64_t r = 0; r + 1 < s; ++r)
            for (int64_t col = 0; col < s; ++col) {
                p[k++] = int32_t(r * s + col);
                p[k++] = int32_t((r + 1) * s + col);
            }
    }
    Array arr = Array::empty(a.type, a.shape, d);
    arr.copy_from_host(host.data(), bytes);
    return arr;
}

// The sum of every component of an array read back (floats, doubles and ints).
double array_sum(const Array& a) {
    const size_t bytes = static_cast<size_t>(count_of(a.shape())) * compiler::type_size(a.dtype());
    std::vector<std::byte> host(bytes);
    a.copy_to_host(host.data(), bytes);
    double s = 0;
    const compiler::ScalarKind k = a.dtype()->scalar;
    if (k == compiler::ScalarKind::Float64) {
        for (size_t i = 0; i < bytes / 8; ++i) s += reinterpret_cast<const double*>(host.data())[i];
    } else if (k == compiler::ScalarKind::Int32) {
        for (size_t i = 0; i < bytes / 4; ++i) s += reinterpret_cast<const int32_t*>(host.data())[i];
    } else {
        for (size_t i = 0; i < bytes / 4; ++i) s += reinterpret_cast<const float*>(host.data())[i];
    }
    return s;
}

std::string read_file(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw RuntimeError("cannot read " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: %s DEVICE [--set weft|heldout|heldout_warp] [--only ID] [--list] [--arch FILE.json] "
                     "[--sass-counts]\n  DEVICE: "
                     "cuda:N (under ncu) or sim:ARCH\n",
                     argv[0]);
        return 2;
    }
    std::string only, arch_file, set = "weft";
    bool list = false;
    bool sass_counts = false;
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--only" && i + 1 < argc)
            only = argv[++i];
        else if (a == "--set" && i + 1 < argc)
            set = argv[++i];
        else if (a == "--list")
            list = true;
        else if (a == "--arch" && i + 1 < argc)
            arch_file = argv[++i];
        else if (a == "--sass-counts")
            sass_counts = true;
        else {
            std::fprintf(stderr, "weft_validate: unknown option '%s'\n", a.c_str());
            return 2;
        }
    }
    if (set != "weft" && set != "heldout" && set != "heldout_warp") {
        std::fprintf(stderr, "weft_validate: unknown set '%s' (sets: weft, heldout, heldout_warp)\n", set.c_str());
        return 2;
    }
    const std::string kernels_file = set == "weft"      ? "gpusim/validation/weft_kernels.py"
                                     : set == "heldout" ? "gpusim/validation/weft_heldout.py"
                                                        : "gpusim/validation/weft_heldout_warp.py";
    setenv("WEFT_CUDA_GRID_WAVES", "0", 0);  // full grids, as the sim device launches
    try {
        // --arch FILE.json: the sim device uses that architecture file (a built-in of the same
        // name is replaced for this process), e.g. a recalibration before it is built in.
        const std::string name = arch_file.empty() ? "" : register_sim_arch_file(arch_file);
        const Device dev = parse_device(name.empty() ? argv[1] : "sim:" + name);
        const bool sim = dev.kind == DeviceKind::Sim;
        const std::string path = std::string(WEFT_SOURCE_DIR) + "/" + kernels_file;
        auto module = Module::compile({{kernels_file, read_file(path)}});
        const std::string ptx =
            generate_ptx(module->compiled(), "sm_90", compiler::CodePart::Forward);  // as the sim device loads it
        std::printf("ptx %s\n", support::hash_hex(ptx).c_str());
        // --sass-counts: the sim device's module and map, rebuilt here from the same PTX.
        std::unique_ptr<gpusim::Module> sass_module;
        gpusim::SassMap sass;
        if (sass_counts && sim) {
            sass_module = std::make_unique<gpusim::Module>(gpusim::parse_ptx(ptx, "module.ptx"));
            sass = gpusim::map_sass(ptx, sim_arch(dev.arch));
        }
        LaunchOptions opt;
        opt.device = dev;
        opt.debug = 0;  // the bounds-checked build is different code
        for (const WeftCase& c : set == "weft" ? weft_cases() : set == "heldout" ? heldout_cases() : heldout_warp_cases()) {
            if (!only.empty() && c.id != only) continue;
            const Kernel k = module->kernel(c.kernel);
            if (list) {
                std::printf("%s %s %s\n", c.id.c_str(), c.kernel.c_str(), k.info().cuda_symbol.c_str());
                continue;
            }
            std::vector<LaunchArg> args;
            std::vector<Array> arrays;
            uint32_t seed = 1;
            for (const Arg& a : c.args) {
                if (a.kind == Arg::Value) {
                    args.push_back(LaunchArg::value(a.type, a.bytes.data()));
                } else {
                    arrays.push_back(a.kind == Arg::Zeros ? Array::zeros(a.type, a.shape, dev) : make_array(a, dev, seed++));
                    args.push_back(LaunchArg::of(arrays.back()));
                }
            }
            backend(dev).synchronize();
            const uint64_t mark = sim ? sim_report_mark() : 0;
            const auto t0 = std::chrono::steady_clock::now();
            launch(k, c.dim, args, opt);
            backend(dev).synchronize();
            const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            double checksum = 0;
            for (const Array& a : arrays) checksum += array_sum(a);
            if (!sim) {
                std::printf("case %s %s %.9g\n", c.id.c_str(), k.info().cuda_symbol.c_str(), checksum);
                std::fflush(stdout);
                continue;
            }
            const auto reports = sim_reports_since(mark);
            if (reports.size() != 1)
                throw RuntimeError("case " + c.id + ": expected one launch report, got " + std::to_string(reports.size()));
            const SimLaunchReport& r = *reports[0];
            const int64_t threads = count_of(c.dim);
            const int block = k.info().block_dim > 0 ? k.info().block_dim : 256;
            val::ResultLine line{c.id,     r.symbol, set, r.result.sass_instructions, unsigned((threads + block - 1) / block),
                                 checksum, wall};
            std::printf("%s\n", val::result_json(line, r.result).c_str());
            if (sass_module) {
                std::printf("{\"id\": \"%s\", \"kernel\": \"%s\", \"sass_counts\": [", c.id.c_str(), r.symbol.c_str());
                const std::vector<double> per = gpusim::estimate_sass_counts(sass, *sass_module, r.symbol, r.result.counts);
                for (size_t i = 0; i < per.size(); ++i) std::printf("%s%.1f", i ? ", " : "", per[i]);
                std::printf("], \"sass_lines\": [");
                const std::vector<gpusim::SassInstruction>& words = sass.kernels.at(r.symbol).code;
                for (size_t i = 0; i < words.size(); ++i) std::printf("%s%d", i ? ", " : "", words[i].ptx_line);
                // The estimate's blocks and each instruction's opcode and control flow, for reading
                // its decisions off the machine code: block index, opcode (lo & 0xfff), and the
                // flow ("" | "bra" | "exit" | "call" | "ret" | "bssy" | "bsync", "?" when
                // conditional, "->T" the target instruction), and ptxas's schedule: "sN" stall
                // cycles, "wB" the scoreboard barrier it sets, "mM" the mask of those it waits on.
                const gpusim::SassCfg g = gpusim::build_sass_cfg(words);
                std::printf("], \"sass_blocks\": [");
                for (size_t i = 0; i < words.size(); ++i) std::printf("%s%d", i ? ", " : "", g.block_of[i]);
                std::printf("], \"sass_ops\": [");
                static const char* kFlow[] = {"", "bra", "exit", "call", "ret", "bssy", "bsync"};
                for (size_t i = 0; i < words.size(); ++i) {
                    const gpusim::SassControl& c = g.control[i];
                    std::printf("%s\"%03llx %s%s", i ? ", " : "", static_cast<unsigned long long>(words[i].lo & 0xfff),
                                kFlow[static_cast<int>(c.flow)], c.conditional ? "?" : "");
                    if (c.target >= 0) std::printf("->%lld", static_cast<long long>(c.target));
                    const gpusim::SassSchedule sc = gpusim::decode_sass_schedule(words[i].hi);
                    std::printf(" s%d", sc.stall);
                    if (sc.write_barrier >= 0) std::printf(" w%d", sc.write_barrier);
                    if (sc.wait_mask) std::printf(" m%x", sc.wait_mask);
                    std::printf("\"");
                }
                std::printf("]}\n");
            }
            std::fflush(stdout);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "weft_validate: %s\n", e.what());
        return 1;
    }
    return 0;
}
