// runtime/cuda/ptx.h: a compiled module's PTX and cubin for one CUDA architecture, through the
// disk cache.
//
// This is the one place that decides how Weft's generated C++ becomes GPU code, so that the cuda
// device, `weft compile --emit ptx --arch sm_90` and the gpusim device all see the same PTX:
//
//     generated C++ + builtins headers ──NVRTC (-lineinfo, --fmad=false, C++20)──> PTX + cubin
//
// Both are cached (runtime/module_cache.h, kinds "ptx" and "cubin") under one key, the hash of
// the generated source, every builtins header, the compiler and NVRTC versions, the options and
// the architecture. NVRTC needs no GPU, so PTX can be made on any machine with the toolkit.
//
// Floating point: NVRTC contracts a*b+c into one fused multiply-add by default; the CPU JIT
// compiles with -ffp-contract=off. Weft passes --fmad=false so that +, -, *, / and sqrt round the
// same way on both devices (results agree bitwise for such kernels, and within a few ulps where
// CUDA's libdevice and the host's libm differ: sin, exp, ...). Memory-bound kernels, most of a
// physics step, lose nothing; an FMA-bound kernel can lose up to half its arithmetic rate.
//
// [SECTION] options and keys
// [SECTION] generate_ptx / build_cuda_binaries
#pragma once

#include <string>

#include "compiler/driver.h"
#include "runtime/cuda/nvrtc_compiler.h"

namespace weft::runtime {

// [SECTION] options and keys

// The NVRTC options Weft uses for modules: arch ("sm_90"), -lineinfo, --fmad=false, no -G.
CudaCompileOptions cuda_module_options(const std::string& arch);

// The cache key of a module's PTX and cubin for these options (both kinds share it), for one
// part of the module (compiler::CodePart: the whole, or its forward or backward half).
std::string cuda_cache_key(const compiler::CompiledModule& m, const CudaCompileOptions& options,
                           compiler::CodePart part = compiler::CodePart::All);
// The same for generated C++ that is not one module's (a launch list: compiler/launch_list.h).
std::string cuda_cache_key(const std::string& source, const CudaCompileOptions& options);

// [SECTION] generate_ptx / build_cuda_binaries

// PTX with line info for `arch` ("sm_90", "sm_90a", "sm_89", ...). Needs no GPU. The `.file`
// table names the kernel sources as the module spelled them, and `.loc` lines point into them.
// Throws RuntimeError for a malformed arch, or when NVRTC rejects the generated code (a Weft bug;
// the message carries NVRTC's log). `part` picks the whole module (what `weft compile --emit ptx`
// and the audit read) or one half of it (what the cuda and sim devices load: runtime/module.h).
std::string generate_ptx(const compiler::CompiledModule& m, const std::string& arch,
                         compiler::CodePart part = compiler::CodePart::All);

// PTX and the cubin for exactly `arch`, from the cache or one NVRTC compilation.
CudaBinaries build_cuda_binaries(const compiler::CompiledModule& m, const std::string& arch,
                                 compiler::CodePart part = compiler::CodePart::All);
// The same for generated C++ that is not one module's; `what` names it in NVRTC's errors.
CudaBinaries build_cuda_binaries(const std::string& source, const std::string& arch, const std::string& what);

}  // namespace weft::runtime
