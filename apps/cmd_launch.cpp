// `weft launch`: run one kernel on generated inputs and print its arrays afterwards. This is the
// quickest way to see a kernel module work, on any device, without writing host code.
//
// Inputs: every array parameter gets an array whose leading dimensions follow --dim, filled with
// a deterministic pattern (element i of a float array holds 0.5 * (i % 17) - 2, integers i % 7,
// every component of a vector or matrix the same pattern shifted by the component); scalar
// parameters get 1.5 (floats) or 3 (integers), or --arg NAME=VALUE.
#include <algorithm>
#include <map>
#include <optional>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "apps/cli.h"
#include "apps/npz.h"
#include "apps/sim_report.h"
#include "compiler/native/float16.h"
#include "runtime/errors.h"
#include "runtime/module.h"
#include "runtime/module_cache.h"
#if WEFT_HAVE_SIM
#include "runtime/sim/sim_backend.h"
#endif
#include <iostream>

namespace weft::apps {

namespace {

using compiler::ScalarKind;
using compiler::Type;

void put_scalar(std::byte* dst, ScalarKind s, double v) {
    auto put = [&](auto x) { std::memcpy(dst, &x, sizeof x); };
    switch (s) {
        case ScalarKind::Bool: put(static_cast<uint8_t>(v != 0)); break;
        case ScalarKind::Int8: put(static_cast<int8_t>(v)); break;
        case ScalarKind::UInt8: put(static_cast<uint8_t>(v)); break;
        case ScalarKind::Int16: put(static_cast<int16_t>(v)); break;
        case ScalarKind::UInt16: put(static_cast<uint16_t>(v)); break;
        case ScalarKind::Int32: put(static_cast<int32_t>(v)); break;
        case ScalarKind::UInt32: put(static_cast<uint32_t>(v)); break;
        case ScalarKind::Int64: put(static_cast<int64_t>(v)); break;
        case ScalarKind::UInt64: put(static_cast<uint64_t>(v)); break;
        case ScalarKind::Float16: put(wp::float16(static_cast<float>(v)).bits); break;
        case ScalarKind::Float32: put(static_cast<float>(v)); break;
        case ScalarKind::Float64: put(v); break;
    }
}

// A value for a scalar parameter must be representable by its type: integers whole and in range,
// floats within the type's finite range (what put_scalar would otherwise wrap or turn into inf).
void check_scalar_range(const std::string& what, const std::string& text, double v, ScalarKind s) {
    auto limits = [&](double lo, double hi, bool integral) {
        if (integral && v != std::floor(v))
            throw UsageError(what + ": '" + text + "' is not an integer, and the parameter is " +
                             std::string(compiler::scalar_name(s)));
        if (v < lo || v > hi) {
            std::ostringstream os;
            if (integral) os << std::fixed << std::setprecision(0);
            os << what << ": " << text << " is out of the range of " << compiler::scalar_name(s) << " (" << lo << " to " << hi
               << ")";
            throw UsageError(os.str());
        }
    };
    switch (s) {
        case ScalarKind::Bool: return limits(0, 1, true);
        case ScalarKind::Int8: return limits(-128, 127, true);
        case ScalarKind::UInt8: return limits(0, 255, true);
        case ScalarKind::Int16: return limits(-32768, 32767, true);
        case ScalarKind::UInt16: return limits(0, 65535, true);
        case ScalarKind::Int32: return limits(-2147483648.0, 2147483647.0, true);
        case ScalarKind::UInt32: return limits(0, 4294967295.0, true);
        case ScalarKind::Int64: return limits(-9223372036854775808.0, 9223372036854774784.0, true);
        case ScalarKind::UInt64: return limits(0, 18446744073709549568.0, true);
        case ScalarKind::Float16: return limits(-65504.0, 65504.0, false);
        case ScalarKind::Float32: return limits(-3.4028234663852886e38, 3.4028234663852886e38, false);
        case ScalarKind::Float64: return;
    }
}

double get_scalar(const std::byte* src, ScalarKind s) {
    auto get = [&](auto x) {
        std::memcpy(&x, src, sizeof x);
        return static_cast<double>(x);
    };
    switch (s) {
        case ScalarKind::Bool: return get(uint8_t{});
        case ScalarKind::Int8: return get(int8_t{});
        case ScalarKind::UInt8: return get(uint8_t{});
        case ScalarKind::Int16: return get(int16_t{});
        case ScalarKind::UInt16: return get(uint16_t{});
        case ScalarKind::Int32: return get(int32_t{});
        case ScalarKind::UInt32: return get(uint32_t{});
        case ScalarKind::Int64: return get(int64_t{});
        case ScalarKind::UInt64: return get(uint64_t{});
        case ScalarKind::Float16: {
            wp::float16 h;
            std::memcpy(&h.bits, src, 2);
            return static_cast<double>(static_cast<float>(h));
        }
        case ScalarKind::Float32: return get(float{});
        case ScalarKind::Float64: return get(double{});
    }
    return 0.0;
}

// Fills a value of type t (not an array) at dst with the pattern for element i.
void fill_value(std::byte* dst, Type t, int64_t i) {
    if (compiler::is_struct(t)) return;  // structs stay zero
    int n = compiler::component_count(t);
    size_t w = static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8);
    for (int c = 0; c < n; ++c) {
        double v =
            compiler::is_float_kind(t->scalar) ? 0.5 * static_cast<double>((i + c) % 17) - 2.0 : static_cast<double>((i + c) % 7);
        if (t->kind == compiler::TypeKind::Quat && c == 3) v = 1.0;
        put_scalar(dst + static_cast<size_t>(c) * w, t->scalar, v);
    }
}

std::string format_value(const std::byte* src, Type t) {
    if (compiler::is_struct(t)) return "{...}";
    int n = compiler::component_count(t);
    size_t w = static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8);
    std::ostringstream os;
    if (n > 1) os << "[";
    for (int c = 0; c < n; ++c) {
        if (c) os << ", ";
        os << get_scalar(src + static_cast<size_t>(c) * w, t->scalar);
    }
    if (n > 1) os << "]";
    return os.str();
}

// The kernel-language scalar kind of a numpy dtype descr ("<f4" -> float32).
std::optional<ScalarKind> scalar_of_descr(const std::string& d) {
    static const std::map<std::string, ScalarKind> m = {
        {"<f2", ScalarKind::Float16}, {"<f4", ScalarKind::Float32}, {"<f8", ScalarKind::Float64}, {"|i1", ScalarKind::Int8},
        {"|u1", ScalarKind::UInt8},   {"<i2", ScalarKind::Int16},   {"<u2", ScalarKind::UInt16},  {"<i4", ScalarKind::Int32},
        {"<u4", ScalarKind::UInt32},  {"<i8", ScalarKind::Int64},   {"<u8", ScalarKind::UInt64},  {"|b1", ScalarKind::Bool}};
    auto it = m.find(d);
    if (it == m.end()) return std::nullopt;
    return it->second;
}

// --inputs FILE.npz: arrays (and 0-d scalars) by parameter name replace the generated inputs.
// A vec3 array of n elements is an (n, 3) numpy array, a mat33 array (n, 3, 3), as in Warp.
void apply_inputs(const std::string& path, const runtime::Kernel& k, const runtime::Device& device,
                  std::vector<runtime::Array>& arrays, std::vector<runtime::LaunchArg>& launch_args) {
    std::map<std::string, NpyArray> inputs;
    try {
        inputs = read_npz(path);
    } catch (const std::runtime_error& e) { throw UsageError(e.what()); }
    const auto& params = k.info().params;
    for (const auto& [name, npy] : inputs) {
        auto it = std::find_if(params.begin(), params.end(), [&](const auto& p) { return p.name == name; });
        if (it == params.end()) {
            std::string names;
            for (const auto& p : params) names += (names.empty() ? "" : ", ") + p.name;
            throw UsageError("input '" + name + "' in " + path + " matches no parameter of kernel '" + k.name() + "' (" + names +
                             ")");
        }
        size_t p = static_cast<size_t>(it - params.begin());
        Type t = it->type;
        Type elem = compiler::is_array(t) ? t->elem : t;
        if (compiler::is_struct(elem)) throw UsageError("input '" + name + "': struct parameters cannot be read from .npz");
        auto kind = scalar_of_descr(npy.descr);
        std::string want = std::string(compiler::scalar_name(elem->scalar));
        if (!kind || *kind != elem->scalar)
            throw UsageError("input '" + name + "' has dtype " + npy.descr + "; parameter '" + name + "' needs " + want);
        std::vector<int64_t> inner;
        if (compiler::is_vector(elem) || elem->kind == compiler::TypeKind::Quat || elem->kind == compiler::TypeKind::Transform)
            inner = {compiler::component_count(elem)};
        if (compiler::is_matrix(elem)) inner = {elem->rows, elem->cols};
        int outer = compiler::is_array(t) ? t->ndim : 0;
        bool ok = npy.shape.size() == static_cast<size_t>(outer) + inner.size();
        for (size_t d = 0; ok && d < inner.size(); ++d) ok = npy.shape[static_cast<size_t>(outer) + d] == inner[d];
        if (!compiler::is_array(t) && npy.shape == std::vector<int64_t>{1}) ok = inner.empty();
        if (!ok) {
            std::string got = "(";
            for (size_t d = 0; d < npy.shape.size(); ++d) got += (d ? ", " : "") + std::to_string(npy.shape[d]);
            throw UsageError("input '" + name + "' has shape " + got + "); parameter '" + name + "' is " +
                             compiler::type_name(t));
        }
        if (!compiler::is_array(t)) {
            launch_args[p] = runtime::LaunchArg::value(t, npy.data.data());
            continue;
        }
        std::vector<int64_t> shape(npy.shape.begin(), npy.shape.begin() + outer);
        runtime::Array a = runtime::Array::empty(elem, shape, device);
        a.copy_from_host(npy.data.data(), npy.data.size());
        arrays[p] = a;
        launch_args[p] = runtime::LaunchArg::of(a);
    }
}

}  // namespace

int run_kernel_command(const std::vector<std::string>& argv, bool sim) {
    std::vector<std::string> options = {"kernel", "dim", "device", "print", "arg", "block-dim", "arch", "report", "inputs"};
    if (sim) options.insert(options.end(), sim_option_names().begin(), sim_option_names().end());
    Args args(argv, options, {"debug", "help", "cache-stats"});
    if (sim && args.flag("help")) {
        printf(
            "usage: weft sim MODULE.py --kernel NAME --dim N[,M..] [--arch h200|FILE.json] [--report text|json]\n"
            "                 [--inputs FILE.npz] [--arg NAME=VALUE] [--block-dim B] [--debug]\n"
            "                 [--scheduler P] [--trace-jsonl FILE [--trace-* FILTER]] [--chrome-trace FILE]\n"
            "Runs the kernel on generated inputs on the GPU simulator's timing model and prints its cycles,\n"
            "IPC, occupancy, stall reasons, bank conflicts and memory behaviour, per kernel and per source line.\n%s",
            sim_options_usage().c_str());
        return 0;
    }
    if (args.flag("help")) {
        printf(
            "usage: weft launch MODULE.py --kernel NAME --dim N[,M..] [--device cpu|cuda:0|sim:h200] [--print N]\n"
            "                  [--inputs FILE.npz] [--arg NAME=VALUE] [--block-dim B] [--debug] [--cache-stats]\n"
            "Runs the kernel on generated inputs and prints every array argument afterwards.\n");
        return 0;
    }
    if (args.positional().size() != 1)
        throw UsageError("expected one MODULE.py, got " + std::to_string(args.positional().size()));
    auto kname = args.get("kernel");
    if (!kname) throw UsageError("--kernel NAME is required");
    std::vector<int64_t> dims = parse_dims(args.get_or("dim", "8"));
    if (sim && args.get("device")) throw UsageError("weft sim runs on the simulator; use --arch to pick the GPU");
    if (!sim && (args.get("arch") || args.get("report"))) throw UsageError("--arch and --report belong to 'weft sim'");
    std::string report = args.get_or("report", "text");
    if (report != "text" && report != "json") throw UsageError("--report takes text or json; got '" + report + "'");
    runtime::Device device = runtime::parse_device(sim ? configure_sim(args) : args.get_or("device", "cpu"));
    int64_t print_n = parse_integer("--print", args.get_or("print", "8"), 0, INT64_MAX);
    std::string path = args.positional()[0];

    auto module = runtime::Module::compile(module_sources(path));
    runtime::Kernel k = module->kernel(*kname);
    std::vector<runtime::LaunchArg> launch_args;
    std::vector<runtime::Array> arrays(k.info().params.size());
    for (size_t p = 0; p < k.info().params.size(); ++p) {
        const auto& param = k.info().params[p];
        Type t = param.type;
        if (compiler::is_array(t)) {
            std::vector<int64_t> shape;
            for (int d = 0; d < t->ndim; ++d) shape.push_back(dims[std::min(static_cast<size_t>(d), dims.size() - 1)]);
            runtime::Array a = runtime::Array::zeros(t->elem, shape, device);
            std::vector<std::byte> host(a.nbytes());
            size_t es = a.element_size();
            for (int64_t i = 0; i < a.size(); ++i) fill_value(host.data() + static_cast<size_t>(i) * es, t->elem, i);
            a.copy_from_host(host.data(), host.size());
            arrays[p] = a;
            launch_args.push_back(runtime::LaunchArg::of(a));
            continue;
        }
        std::vector<std::byte> bytes(compiler::type_size(t));
        fill_value(bytes.data(), t, 3);
        if (compiler::is_scalar(t)) put_scalar(bytes.data(), t->scalar, compiler::is_float(t) ? 1.5 : 3.0);
        launch_args.push_back(runtime::LaunchArg::value(t, bytes.data()));
    }
    if (auto in = args.get("inputs")) apply_inputs(*in, k, device, arrays, launch_args);
    if (auto a = args.get("arg")) {
        auto eq = a->find('=');
        if (eq == std::string::npos) throw UsageError("--arg takes NAME=VALUE; got '" + *a + "'");
        std::string name = a->substr(0, eq);
        double v = parse_number("--arg " + name, a->substr(eq + 1));
        bool found = false;
        for (size_t p = 0; p < k.info().params.size(); ++p) {
            if (k.info().params[p].name != name) continue;
            if (!compiler::is_scalar(k.info().params[p].type))
                throw UsageError("--arg " + name + ": only scalar parameters can be set");
            found = true;
            check_scalar_range("--arg " + name, a->substr(eq + 1), v, k.info().params[p].type->scalar);
            put_scalar(launch_args[p].bytes.data(), k.info().params[p].type->scalar, v);
        }
        if (!found) throw UsageError("--arg " + name + ": kernel '" + *kname + "' has no scalar parameter '" + name + "'");
    }
    runtime::LaunchOptions lo;
    lo.device = device;
    lo.block_dim = args.get("block-dim") ? int(parse_integer("--block-dim", *args.get("block-dim"), 1, 1024)) : 0;
    lo.debug = args.flag("debug") ? 1 : -1;
    auto t0 = std::chrono::steady_clock::now();
#if WEFT_HAVE_SIM
    const uint64_t mark = sim ? runtime::sim_report_mark() : 0;
#else
    const uint64_t mark = 0;
#endif
    runtime::launch(k, dims, launch_args, lo);
    runtime::backend(device).synchronize();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (sim) return print_sim_report(args, path, mark);
    printf("kernel %s on %s, dim=", kname->c_str(), device.str().c_str());
    for (size_t d = 0; d < dims.size(); ++d) printf("%s%lld", d ? "," : "", static_cast<long long>(dims[d]));
    printf(" (%.1f ms including compilation)\n", ms);
    for (size_t p = 0; p < arrays.size(); ++p) {
        if (!arrays[p].valid()) continue;
        const runtime::Array& a = arrays[p];
        std::vector<std::byte> host(a.nbytes());
        a.copy_to_host(host.data(), host.size());
        size_t es = a.element_size();
        printf("%s: %s\n  ", k.info().params[p].name.c_str(), a.describe().c_str());
        int64_t n = std::min<int64_t>(a.size(), print_n);
        for (int64_t i = 0; i < n; ++i)
            printf("%s%s", i ? ", " : "", format_value(host.data() + static_cast<size_t>(i) * es, a.dtype()).c_str());
        printf("%s\n", a.size() > n ? ", ..." : "");
    }
    if (args.flag("cache-stats")) {
        runtime::CacheStats cs = runtime::cache_stats();
        printf("cache: %ld hit(s), %ld miss(es), %ld damaged\n", cs.hits, cs.misses, cs.damaged);
    }
    return 0;
}

int cmd_launch(const std::vector<std::string>& argv) { return run_kernel_command(argv, false); }
int cmd_sim(const std::vector<std::string>& argv) { return run_kernel_command(argv, true); }

}  // namespace weft::apps
