// The code generator: typed IR -> one C++ translation unit that compiles as host C++20 (the CPU
// device's Clang JIT) and as CUDA C++ (NVRTC, for the CUDA device and gpusim).
//
// For each kernel K it emits
//   struct K_args { ...one member per parameter... };          the launch's argument block
//   static WP_FUNC void K_body(ctx, bounds, args);             the kernel body, device-neutral
//   extern "C" __global__ void K_cuda(bounds, args, oob);      CUDA entry (under WP_CUDA)
//   extern "C" void K_cpu_range(bounds, args, ctx, begin, end) CPU: threads begin..end-1 in order
//   extern "C" void K_cpu_range_contig(...)                  same, every array known dense (vectorises)
//   extern "C" void K_cpu_thread(bounds, args, ctx)            CPU: one thread (run as a fiber
//                                                              when the kernel synchronises)
// Funcs become `static WP_FUNC` functions taking the thread context first. Every statement is
// preceded by a `#line` directive naming the kernel source, so a C++ compiler's complaint, a
// debugger and NVRTC's line info all point at the .py file.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/passes/launch_shape.h"
#include "compiler/passes/lower_jumps.h"
#include "compiler/passes/param_access.h"

namespace weft::compiler {

// Which entries a translation unit holds. A module is generated whole (`All`: the CPU JIT compiles
// it as one unit, `weft compile --emit cpp` prints it) and in two halves that the GPU devices
// compile one at a time (runtime/module.h, "Backward code on first use"): `Forward`, without the
// adjoint functions and backward entries, and `Backward`, without the forward entries. Both halves
// keep every struct, argument block and forward function, so each compiles on its own.
enum class CodePart { All, Forward, Backward };

const char* code_part_name(CodePart p);  // "all", "forward", "backward"

struct CodegenOptions {
    CodePart part = CodePart::All;
    bool debug = false;  // bounds-check every array access (wp::checked_address)
    bool line_directives = true;
    int adjoint_tape_bytes = 4096;  // per-thread tape of backward kernels (docs/autodiff.md)
    // Forward code to be placed inside another translation unit (compiler/launch_list.h): no
    // preamble (#define, #include) and no entry points, only structs, funcs and K_body templates.
    bool embedded = false;
};

struct KernelParamInfo {
    std::string name;
    Type type = nullptr;
    size_t offset = 0;     // byte offset in the argument block
    bool read = false;     // arrays: some path loads from it (passes/param_access.h)
    bool written = false;  // arrays: some path stores to it or updates it atomically
};

struct KernelInfo {
    std::string name;
    std::vector<KernelParamInfo> params;
    size_t args_size = 0;  // sizeof(K_args)
    size_t args_align = 1;
    int block_dim = 0;  // 0: the launch chooses
    bool uses_sync = false;
    bool uses_warp_sync = false;  // calls a warp collective: one thread per index, lanes in lock-step (cpu: fibers)
    size_t shared_bytes = 0;
    std::string cpu_range_symbol;
    std::string cpu_range_contig_symbol;  // same, for launches whose arrays are all dense row-major
    bool arrays_in_structs = false;       // a struct parameter holds an array (contiguity unknown)
    std::string cpu_thread_symbol;
    std::string cuda_symbol;
    SourceLoc loc;
    // What its wp.tid() requires of a launch (passes/launch_shape.h; runtime/launch_checks.h):
    int tid_ndim = 0;                                   // 0: any launch shape; else its dimensions
    std::vector<passes::TidIndexedAccess> tid_indexed;  // arrays indexed by tid in every thread
    // Backward (adjoint) entries, when the kernel has an adjoint (adjoint_codegen.h). Their argument
    // block is K_args_adj: the forward block at offset 0, then `adj_params` (one gradient array per
    // array parameter and per float parameter: a 1-element array the threads' adjoints add into),
    // then an int32 status array at `adj_status_offset`.
    bool has_backward = false;
    std::string backward_unavailable;  // why not, when !has_backward
    std::vector<KernelParamInfo> adj_params;
    std::vector<int> adj_param_of;  // index in `params` of each adj_params entry
    size_t adj_args_size = 0;
    size_t adj_args_align = 1;
    size_t adj_status_offset = 0;
    int adjoint_tape_bytes = 0;
    std::string cpu_range_backward_symbol;
    std::string cpu_thread_backward_symbol;
    std::string cuda_backward_symbol;
};

struct GeneratedSource {
    std::string cpp;           // CodePart::All
    std::string forward_cpp;   // CodePart::Forward; empty when it would equal `cpp` (no kernel has a backward entry)
    std::string backward_cpp;  // CodePart::Backward; empty when no kernel has a backward entry
    std::vector<KernelInfo> kernels;
    // The text of one part; "" for Backward when no kernel has a backward entry.
    const std::string& source(CodePart p) const;
};

// What the passes before code generation found; compiler/driver.cpp runs them and hands this over.
struct PassResults {
    std::map<const ir::Function*, std::vector<passes::ParamAccess>> param_access;  // every kernel
    // Every kernel that has an adjoint (passes::has_adjoint) and every func it differentiates
    // (passes::differentiated_funcs) but a func with a @wp.func_grad: the body the adjoint reverses.
    std::map<const ir::Function*, passes::JumpFreeBody> jump_free;
};

// Forward code, and the adjoints' (adjoint_codegen.h), in one translation unit (`cpp`), and the
// two halves of it (CodePart). options.part is ignored: every part is generated.
GeneratedSource generate_cpp(const ir::Module& module, const PassResults& passes, const CodegenOptions& options);

// The layout the code generator gives a kernel's argument block (matches the emitted struct).
void layout_params(KernelInfo& info);

}  // namespace weft::compiler
