// runtime/module.h: kernel modules, kernels and launches.
//
//   auto m = Module::compile({{"kernels/saxpy.py", text}});    // front end runs now: errors now
//   Kernel k = m->kernel("saxpy");
//   launch(k, {n}, {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::number(2.0)}, {parse_device("cpu")});
//
// A module is compiled to C++ once and made ready on each device on first use (through the disk
// cache). launch() checks every argument against the kernel's signature and reports a mismatch
// by parameter name with the expected and the actual type, before anything runs.
//
// Backward code on first use. On the cuda and sim devices (DeviceBackend::loads_backward_separately)
// a module is compiled in two halves (compiler::CodePart): its first launch compiles and loads the
// forward entries only, and its first backward launch the backward ones. A body-centric contact
// kernel's adjoint is several times the size of its forward code and NVRTC's time grows faster
// than the size: the XPBD contact module took over 4 min of NVRTC whole, and a scene that never
// calls Tape.backward need not wait for it. The cpu device compiles the whole module at once (one
// Clang run shares the headers' parse; its optimisation level follows the largest function).
// A graph capture cannot load code: a backward launch whose half is not loaded is refused during
// a capture (runtime/capture_check.h), as a first forward launch is.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/driver.h"
#include "runtime/array.h"
#include "runtime/device.h"

namespace weft::runtime {

// One launch argument: an array, or a value with its kernel-language type and bytes. Numbers
// that come from Python (`number`) convert to the parameter's scalar type; typed values must
// match exactly.
struct LaunchArg {
    enum Kind { ArrayArg, Value, Number } kind = Value;
    Array array;
    compiler::Type type = nullptr;
    std::vector<std::byte> bytes;
    double number = 0.0;
    long long integer = 0;
    bool is_integer = false;
    // The arrays a struct value holds in its fields, by byte offset in `bytes` (their descriptors
    // are there): the backward launch puts their gradients at the same offsets, and a Tape
    // records them as read.
    std::vector<std::pair<size_t, Array>> held;

    static LaunchArg of(const Array& a);
    static LaunchArg value(compiler::Type t, const void* data);
    static LaunchArg number_of(double v);
    static LaunchArg integer_of(long long v);
    std::string describe() const;
};

class Module;

class Kernel {
public:
    Kernel() = default;
    Kernel(std::shared_ptr<Module> m, const compiler::KernelInfo* info) : module_(std::move(m)), info_(info) {}
    const compiler::KernelInfo& info() const { return *info_; }
    const std::string& name() const { return info_->name; }
    const std::shared_ptr<Module>& module() const { return module_; }
    bool valid() const { return info_ != nullptr; }

private:
    std::shared_ptr<Module> module_;
    const compiler::KernelInfo* info_ = nullptr;
};

class Module : public std::enable_shared_from_this<Module> {
public:
    // Runs the front end now (CompileError on bad source); device code is built on first launch.
    static std::shared_ptr<Module> compile(const std::vector<compiler::ModuleSource>& sources,
                                           const compiler::CompileOptions& options = {});
    static std::shared_ptr<Module> load_file(const std::string& path, const compiler::CompileOptions& options = {});

    Kernel kernel(const std::string& name);  // RuntimeError with did-you-mean when missing
    std::vector<std::string> kernel_names() const;
    const compiler::CompiledModule& compiled() const { return *compiled_; }
    // The module made ready on a device (compiling or loading from the disk cache) for forward
    // launches, or for backward ones (`backward`). See "Backward code on first use" above.
    LoadedModule& loaded(const Device& d, bool debug, bool backward = false);
    bool is_loaded(const Device& d, bool debug, bool backward = false);  // loaded() would neither compile nor load
    // Debug builds (bounds checks) are a second compilation of the same sources.
    const compiler::CompiledModule& compiled(bool debug);

private:
    std::vector<compiler::ModuleSource> sources_;
    compiler::CompileOptions options_;
    std::shared_ptr<compiler::CompiledModule> compiled_;
    std::shared_ptr<compiler::CompiledModule> compiled_debug_;
    std::map<std::string, std::unique_ptr<LoadedModule>> loaded_;
    std::mutex mu_;
};

struct LaunchOptions {
    Device device;
    int block_dim = 0;  // 0: the kernel's @wp.kernel(block_dim=N), else 256
    int debug = -1;     // -1: config().debug
    // Reverse mode: run the kernel's backward entry (docs/autodiff.md). Gradients flow from the
    // gradient arrays of the outputs into those of the inputs (accumulating). `adj_args` may give,
    // per parameter, the gradient array to use instead of `args[i].array.grad()`; for a float
    // parameter, a 1-element array of its type that receives the parameter's adjoint. Empty
    // entries (or an empty vector) mean the default: the array's grad(), and no float adjoints.
    bool adjoint = false;
    std::vector<Array> adj_args;
    // Backward launches only: where the launch reports that a thread's per-thread tape overflowed
    // (int32, 4 elements, zeroed by the caller). When given, the launch does not wait to read it
    // back: the caller checks it later with adjoint_overflow_message (the Tape does, once per
    // backward pass, so a pass of many launches synchronises once). Otherwise the launch reads
    // its own status back and throws at once.
    Array adjoint_status;
    // Forward launches are reported to the thread's active recorder (the Tape) unless this is false.
    bool record_tape = true;
};

// Checks the arguments against the kernel's signature and packs the argument block. Throws
// RuntimeError naming the parameter on any mismatch.
std::vector<std::byte> pack_arguments(const Kernel& k, const std::vector<LaunchArg>& args, const Device& device);

void launch(const Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& args, const LaunchOptions& options);

// The error of a backward launch of `k` whose status (LaunchOptions::adjoint_status, read back to
// the host) is `status`; "" when no thread's tape overflowed.
std::string adjoint_overflow_message(const Kernel& k, const int32_t status[4]);

}  // namespace weft::runtime
