// Modules, argument checking and launches. See module.h.
#include "runtime/module.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/cancel.h"
#include "runtime/config.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/kernel_timing.h"
#include "runtime/launch_checks.h"
#include "runtime/launch_list.h"
#include "runtime/recorder.h"
#include "runtime/write_versions.h"
#include "support/closest_name.h"

namespace weft::runtime {

using compiler::Type;

LaunchArg LaunchArg::of(const Array& a) {
    LaunchArg l;
    l.kind = ArrayArg;
    l.array = a;
    l.type = a.dtype();
    return l;
}

LaunchArg LaunchArg::value(Type t, const void* data) {
    LaunchArg l;
    l.kind = Value;
    l.type = t;
    l.bytes.resize(compiler::type_size(t));
    std::memcpy(l.bytes.data(), data, l.bytes.size());
    return l;
}

LaunchArg LaunchArg::number_of(double v) {
    LaunchArg l;
    l.kind = Number;
    l.number = v;
    return l;
}

LaunchArg LaunchArg::integer_of(long long v) {
    LaunchArg l;
    l.kind = Number;
    l.integer = v;
    l.number = static_cast<double>(v);
    l.is_integer = true;
    return l;
}

std::string LaunchArg::describe() const {
    switch (kind) {
        case ArrayArg: return array.describe();
        case Value: return compiler::type_name(type);
        case Number: return is_integer ? "int " + std::to_string(integer) : "float " + std::to_string(number);
    }
    return "?";
}

std::shared_ptr<Module> Module::compile(const std::vector<compiler::ModuleSource>& sources,
                                        const compiler::CompileOptions& options) {
    auto m = std::make_shared<Module>();
    m->sources_ = sources;
    m->options_ = options;
    m->options_.debug = false;
    m->compiled_ = compiler::compile_module(sources, m->options_);
    return m;
}

std::shared_ptr<Module> Module::load_file(const std::string& path, const compiler::CompileOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw RuntimeError("cannot read kernel module '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return compile({{path, ss.str(), 0}}, options);
}

std::vector<std::string> Module::kernel_names() const {
    std::vector<std::string> v;
    for (const auto& k : compiled_->gen.kernels) v.push_back(k.name);
    return v;
}

Kernel Module::kernel(const std::string& name) {
    if (const compiler::KernelInfo* k = compiled_->find_kernel(name)) return Kernel(shared_from_this(), k);
    std::string msg = "module '" + (sources_.empty() ? std::string("?") : sources_[0].path) + "' has no kernel '" + name + "'";
    std::string near = support::closest_name(name, kernel_names());
    if (!near.empty())
        msg += "; did you mean '" + near + "'?";
    else if (!kernel_names().empty()) {
        msg += "; its kernels are:";
        for (const auto& n : kernel_names()) msg += " " + n;
    }
    throw RuntimeError(msg);
}

const compiler::CompiledModule& Module::compiled(bool debug) {
    if (!debug) return *compiled_;
    std::lock_guard<std::mutex> lock(mu_);
    if (!compiled_debug_) {
        compiler::CompileOptions o = options_;
        o.debug = true;
        compiled_debug_ = compiler::compile_module(sources_, o);
    }
    return *compiled_debug_;
}

namespace {

// The part of a module a launch needs on a device, and the key its loaded copy is kept under. A
// module without backward entries has no backward half: asked for it, its forward half answers
// (launch_adjoint refuses its kernels' backward launches before any load).
compiler::CodePart part_for(DeviceBackend& b, bool backward, const compiler::CompiledModule& cm) {
    if (!b.loads_backward_separately()) return compiler::CodePart::All;
    return backward && !cm.gen.backward_cpp.empty() ? compiler::CodePart::Backward : compiler::CodePart::Forward;
}

std::string loaded_key(const Device& d, bool debug, compiler::CodePart part) {
    return d.str() + (debug ? "/debug" : "") + (part == compiler::CodePart::Backward ? "/backward" : "");
}

}  // namespace

LoadedModule& Module::loaded(const Device& d, bool debug, bool backward) {
    const compiler::CompiledModule& cm = compiled(debug);
    DeviceBackend& b = backend(d);
    const compiler::CodePart part = part_for(b, backward, cm);
    std::lock_guard<std::mutex> lock(mu_);
    const std::string key = loaded_key(d, debug, part);
    auto it = loaded_.find(key);
    if (it != loaded_.end()) return *it->second;
    auto lm = b.load(cm, debug, part);
    LoadedModule& ref = *lm;
    loaded_.emplace(key, std::move(lm));
    return ref;
}

bool Module::is_loaded(const Device& d, bool debug, bool backward) {
    const compiler::CodePart part = part_for(backend(d), backward, compiled(debug));
    std::lock_guard<std::mutex> lock(mu_);
    return loaded_.count(loaded_key(d, debug, part)) > 0;
}

namespace {

// Converts a Python-style number to the bytes of a scalar type. Returns false if it does not fit.
bool number_to_scalar(const LaunchArg& a, Type t, std::byte* out) {
    using compiler::ScalarKind;
    double v = a.number;
    long long i = a.integer;
    auto put = [&](auto x) { std::memcpy(out, &x, sizeof x); };
    if (compiler::is_float(t)) {
        if (t->scalar == ScalarKind::Float32)
            put(static_cast<float>(v));
        else if (t->scalar == ScalarKind::Float64)
            put(v);
        else
            return false;
        return true;
    }
    if (t->scalar == ScalarKind::Bool) {
        if (!a.is_integer) return false;
        put(static_cast<uint8_t>(i != 0));
        return true;
    }
    if (!a.is_integer) return false;
    auto in_range = [&](long double lo, long double hi) { return i >= lo && i <= hi; };
    switch (t->scalar) {
        case ScalarKind::Int8:
            if (!in_range(-128, 127)) return false;
            put(static_cast<int8_t>(i));
            return true;
        case ScalarKind::UInt8:
            if (!in_range(0, 255)) return false;
            put(static_cast<uint8_t>(i));
            return true;
        case ScalarKind::Int16:
            if (!in_range(-32768, 32767)) return false;
            put(static_cast<int16_t>(i));
            return true;
        case ScalarKind::UInt16:
            if (!in_range(0, 65535)) return false;
            put(static_cast<uint16_t>(i));
            return true;
        case ScalarKind::Int32:
            if (!in_range(INT32_MIN, INT32_MAX)) return false;
            put(static_cast<int32_t>(i));
            return true;
        case ScalarKind::UInt32:
            if (!in_range(0, UINT32_MAX)) return false;
            put(static_cast<uint32_t>(i));
            return true;
        case ScalarKind::Int64: put(static_cast<int64_t>(i)); return true;
        case ScalarKind::UInt64:
            if (i < 0) return false;
            put(static_cast<uint64_t>(i));
            return true;
        default: return false;
    }
}

}  // namespace

std::vector<std::byte> pack_arguments(const Kernel& k, const std::vector<LaunchArg>& args, const Device& device) {
    const compiler::KernelInfo& info = k.info();
    if (args.size() != info.params.size()) {
        std::string names;
        for (const auto& p : info.params) names += (names.empty() ? "" : ", ") + p.name;
        throw RuntimeError("kernel '" + info.name + "' takes " + std::to_string(info.params.size()) + " argument(s) (" + names +
                           "), " + std::to_string(args.size()) + " given");
    }
    std::vector<std::byte> block(info.args_size);
    for (size_t i = 0; i < args.size(); ++i) {
        const compiler::KernelParamInfo& p = info.params[i];
        const LaunchArg& a = args[i];
        std::string where = "kernel '" + info.name + "': argument '" + p.name + "'";
        auto mismatch = [&]() {
            return RuntimeError(where + " expects " + compiler::type_name(p.type) + ", got " + a.describe());
        };
        if (compiler::is_array(p.type)) {
            if (a.kind != LaunchArg::ArrayArg) throw mismatch();
            if (!a.array.valid()) throw RuntimeError(where + " is an empty array handle");
            if (a.array.dtype() != p.type->elem || a.array.ndim() != p.type->ndim) throw mismatch();
            if (a.array.device() != device)
                throw RuntimeError(where + " is on device " + a.array.device().str() + " but the launch is on " + device.str());
            auto d = a.array.descriptor();
            std::memcpy(block.data() + p.offset, d.data(), d.size());
            continue;
        }
        if (a.kind == LaunchArg::ArrayArg) throw mismatch();
        if (a.kind == LaunchArg::Number) {
            if (!compiler::is_scalar(p.type) || !number_to_scalar(a, p.type, block.data() + p.offset)) throw mismatch();
            continue;
        }
        if (a.type != p.type) throw mismatch();
        std::memcpy(block.data() + p.offset, a.bytes.data(), a.bytes.size());
    }
    return block;
}

namespace {

// Runs a launch request; on the cpu and sim devices Ctrl-C interrupts it (runtime/cancel.h):
// LaunchInterrupted. (A CUDA launch is asynchronous and cannot be interrupted.)
void run_interruptible(const Kernel& k, const Device& device, LaunchRequest& req) {
    if (device.kind == DeviceKind::Cuda) {
        k.module()->loaded(device, req.debug, req.adjoint).launch(req);  // timed by the backend (events)
        return;
    }
    const bool timed = device.kind == DeviceKind::Cpu && kernel_timing_active();
    const auto t0 = std::chrono::steady_clock::now();
    try {
        InterruptScope scope;
        k.module()->loaded(device, req.debug, req.adjoint).launch(req);
    } catch (const RuntimeError&) {
        throw_if_cancelled(k.name());  // the simulator reports a cancelled launch as its error
        throw;
    }
    throw_if_cancelled(k.name());
    if (timed) {
        KernelTime t;
        t.kernel = req.adjoint ? k.name() + " (backward)" : k.name();
        const compiler::KernelInfo& info = k.info();
        if (info.loc.line > 0)
            t.where = std::string(info.loc.file ? info.loc.file->path : "?") + ":" + std::to_string(info.loc.display_line());
        t.device = device.str();
        t.threads = req.size;
        t.time_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        record_kernel_time(std::move(t));
    }
}

// What a launch does that a graph capture cannot record (runtime/capture_check.h), as errors.
void refuse_uncapturable_launch(const Kernel& k, const LaunchOptions& options, bool debug) {
    const Device& d = options.device;
    const std::string what = std::string(options.adjoint ? "backward launch" : "launch") + " of kernel '" + k.name() + "'";
    if (debug)
        refuse_in_capture(d, "a debug-mode " + what,
                          "debug launches read their bounds record back after each launch; capture without debug mode");
    if (!k.module()->is_loaded(d, debug, options.adjoint))
        refuse_in_capture(d, "the first " + what + " on " + d.str(),
                          options.adjoint && backend(d).loads_backward_separately()
                              ? "it loads the kernel's backward code, which a capture cannot record; run the "
                                "backward pass once before capturing"
                              : "it loads the kernel's module, which a capture cannot record; launch the kernel "
                                "once before capturing");
    if (!options.adjoint && config().verify_finite)
        refuse_in_capture(d, "a " + what + " with verify_finite on",
                          "it reads every float argument back after the launch; capture with verify_finite off");
    if (options.adjoint && !options.adjoint_status.valid())
        refuse_in_capture(d, "a " + what + " without an adjoint_status",
                          "it reads its per-thread tape status back after the launch; pass LaunchOptions::adjoint_status "
                          "(a Tape's backward pass does: tape::deferred_adjoint_status)");
}

// The backward launch: K_args_adj = { K_args, gradient arrays, status }. See compiler/codegen/adjoint_codegen.h.
void launch_adjoint(const Kernel& k, const std::vector<LaunchArg>& args, const LaunchOptions& options, LaunchRequest& req) {
    const compiler::KernelInfo& info = k.info();
    std::string where = "backward launch of kernel '" + info.name + "'";
    if (!info.has_backward) throw RuntimeError(where + ": the kernel has no adjoint, because " + info.backward_unavailable);
    if (!options.adj_args.empty() && options.adj_args.size() != args.size())
        throw RuntimeError(where + ": adj_args has " + std::to_string(options.adj_args.size()) +
                           " entries; expected one per parameter (" + std::to_string(args.size()) + ") or none");
    std::vector<std::byte> block(info.adj_args_size);
    std::memcpy(block.data(), req.args.data(), req.args.size());
    for (size_t j = 0; j < info.adj_params.size(); ++j) {
        const compiler::KernelParamInfo& ap = info.adj_params[j];
        size_t i = static_cast<size_t>(info.adj_param_of[j]);
        const compiler::KernelParamInfo& p = info.params[i];
        if (compiler::is_struct(ap.type)) {
            // A struct holding arrays: the struct with each array's gradient at that array's
            // offset (null descriptors where an array has none), as the adjoint body reads it.
            for (const auto& [offset, held] : args[i].held) {
                if (!held.grad()) continue;
                const Array& hg = *held.grad();
                if (hg.device() != options.device)
                    throw RuntimeError(where + ": the gradient of an array in '" + p.name + "' is on " + hg.device().str() +
                                       " but the launch is on " + options.device.str());
                auto d = hg.descriptor();
                std::memcpy(block.data() + ap.offset + offset, d.data(), d.size());
            }
            continue;
        }
        Array g;
        if (!options.adj_args.empty() && options.adj_args[i].valid())
            g = options.adj_args[i];
        else if (compiler::is_array(p.type) && args[i].array.grad())
            g = *args[i].array.grad();
        if (!g.valid()) continue;  // a null gradient array: this parameter's adjoint is dropped
        bool ok = compiler::is_array(p.type) ? (g.dtype() == p.type->elem && g.shape() == args[i].array.shape())
                                             : (g.dtype() == p.type && g.size() == 1);
        if (!ok)
            throw RuntimeError(where + ": the gradient of '" + p.name + "' is " + g.describe() + "; expected " +
                               (compiler::is_array(p.type) ? "the shape and dtype of the array"
                                                           : "1 element of " + compiler::type_name(p.type)));
        if (g.device() != options.device)
            throw RuntimeError(where + ": the gradient of '" + p.name + "' is on " + g.device().str() + " but the launch is on " +
                               options.device.str());
        auto d = g.descriptor();
        std::memcpy(block.data() + ap.offset, d.data(), d.size());
    }
    const bool deferred = options.adjoint_status.valid();
    if (deferred && (options.adjoint_status.dtype() != compiler::int32_type() || options.adjoint_status.size() != 4 ||
                     options.adjoint_status.device() != options.device))
        throw RuntimeError(where + ": adjoint_status must be 4 int32 on " + options.device.str() + ", got " +
                           options.adjoint_status.describe());
    Array status = deferred ? options.adjoint_status : Array::zeros(compiler::int32_type(), {4}, options.device);
    auto sd = status.descriptor();
    std::memcpy(block.data() + info.adj_status_offset, sd.data(), sd.size());
    req.args = std::move(block);
    req.adjoint = true;
    if (req.size == 0) return;
    const compiler::CompiledModule& cm = k.module()->compiled(req.debug);
    req.kernel = cm.find_kernel(info.name);
    run_interruptible(k, options.device, req);
    if (deferred) return;
    int32_t st[4] = {0, 0, 0, 0};
    status.copy_to_host(st, sizeof st);
    std::string problem = adjoint_overflow_message(k, st);
    if (!problem.empty()) throw RuntimeError(problem);
}

}  // namespace

std::string adjoint_overflow_message(const Kernel& k, const int32_t st[4]) {
    if (!st[0]) return "";
    const compiler::KernelInfo& info = k.info();
    return "backward launch of kernel '" + info.name + "' (" +
           (info.loc.valid() ? info.loc.file->path + ":" + std::to_string(st[1]) : std::string("?")) +
           "): a thread needed more than the " + std::to_string(st[2]) +
           " bytes of its per-thread tape (values that loops overwrite are kept there); raise "
           "CompileOptions::adjoint_tape_bytes, or shorten the loops of one thread; gradients of this launch are incomplete";
}

void launch(const Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& args, const LaunchOptions& options) {
    if (!k.valid()) throw RuntimeError("launch of an empty kernel handle");
    const compiler::KernelInfo& info = k.info();
    if (dim.empty() || dim.size() > 4)
        throw RuntimeError("launch of kernel '" + info.name + "': dim has " + std::to_string(dim.size()) +
                           " entries; expected 1 to 4");
    LaunchRequest req;
    req.ndim = static_cast<int>(dim.size());
    req.size = 1;
    for (size_t i = 0; i < dim.size(); ++i) {
        if (dim[i] < 0) throw RuntimeError("launch of kernel '" + info.name + "': negative dimension " + std::to_string(dim[i]));
        if (dim[i] > INT32_MAX)  // launch_bounds_t holds 32-bit extents
            throw RuntimeError("launch of kernel '" + info.name + "': dimension " + std::to_string(dim[i]) +
                               " exceeds the largest extent of a launch (2147483647)");
        req.shape[i] = dim[i];
        req.size *= dim[i];
    }
    if (req.size > (1ll << 40)) throw RuntimeError("launch of kernel '" + info.name + "': too many threads");
    req.block_dim = options.block_dim > 0 ? options.block_dim : info.block_dim > 0 ? info.block_dim : 256;
    if (req.block_dim > 1024)
        throw RuntimeError("launch of kernel '" + info.name + "': block_dim " + std::to_string(req.block_dim) + " exceeds 1024");
    if (info.block_dim > 0 && options.block_dim > 0 && options.block_dim != info.block_dim)
        throw RuntimeError("launch of kernel '" + info.name + "': block_dim=" + std::to_string(options.block_dim) +
                           " differs from the kernel's @wp.kernel(block_dim=" + std::to_string(info.block_dim) + ")");
    if (info.uses_sync && req.size % req.block_dim != 0)
        throw RuntimeError("launch of kernel '" + info.name + "': it calls wp.sync_threads(), so its launch size (" +
                           std::to_string(req.size) + ") must be a multiple of its block size (" + std::to_string(req.block_dim) +
                           ")");
    bool debug = options.debug < 0 ? config().debug : options.debug != 0;
    req.debug = debug;
    if (req.size > 0 && capturing(options.device)) refuse_uncapturable_launch(k, options, debug);
    req.args = pack_arguments(k, args, options.device);
    std::vector<Array> arrays(args.size());
    for (size_t i = 0; i < args.size(); ++i)
        if (args[i].kind == LaunchArg::ArrayArg) arrays[i] = args[i].array;
    check_launch_shape(info, dim, arrays);
    if (LaunchCollector* c = active_launch_collector()) {  // a LaunchList collects: keep, do not run
        collect_launch(*c, k, options, std::move(req));
        return;
    }
    if (options.adjoint) {
        launch_adjoint(k, args, options, req);
        return;
    }
    if (req.size > 0) {
        const compiler::CompiledModule& cm = k.module()->compiled(debug);
        req.kernel = cm.find_kernel(info.name);
        run_interruptible(k, options.device, req);
        for (size_t i = 0; i < args.size() && i < info.params.size(); ++i)  // for the Tape (runtime/write_versions.h)
            if (args[i].kind == LaunchArg::ArrayArg && info.params[i].written) note_launch_write(args[i].array, info.name);
    }
    if (req.size > 0 && config().verify_finite) {
        for (size_t i = 0; i < args.size(); ++i) {
            if (args[i].kind != LaunchArg::ArrayArg) continue;
            const Array& a = args[i].array;
            if (!compiler::is_float(compiler::scalar_type(a.dtype()->scalar)) || compiler::is_struct(a.dtype())) continue;
            std::vector<std::byte> host(a.nbytes());
            a.copy_to_host(host.data(), host.size());
            bool f64 = a.dtype()->scalar == compiler::ScalarKind::Float64;
            bool f32 = a.dtype()->scalar == compiler::ScalarKind::Float32;
            size_t n = f64 ? host.size() / 8 : host.size() / 4;
            for (size_t j = 0; j < n && (f32 || f64); ++j) {
                double v;
                if (f64)
                    std::memcpy(&v, host.data() + 8 * j, 8);
                else {
                    float f;
                    std::memcpy(&f, host.data() + 4 * j, 4);
                    v = f;
                }
                if (!std::isfinite(v))
                    throw RuntimeError("launch of kernel '" + info.name + "' left a non-finite value (" + std::to_string(v) +
                                       ") in argument '" + info.params[i].name + "' at scalar " + std::to_string(j));
            }
        }
    }
    // Recorded only once it has succeeded: a failed launch leaves the Tape as it was.
    if (options.record_tape)
        if (Recorder* r = active_recorder()) r->on_launch(k, dim, args, options);
}

}  // namespace weft::runtime
