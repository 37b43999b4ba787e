// runtime/cuda/nvrtc_compiler.h: CUDA C++ -> PTX or cubin through NVRTC, in process.
//
// NVRTC needs no GPU and no driver, only libnvrtc.so from the toolkit, so PTX can be made on any
// machine: the cuda device loads it with the driver, and gpusim runs the very same PTX. Like the
// CPU JIT, the compiler sees only the main file and the headers given here (NVRTC's own CUDA
// builtins aside); `#line` directives in the source make its errors point at kernel files.
//
// [SECTION] options and errors
// [SECTION] compile_cuda_to_ptx / compile_cuda_to_cubin / compile_cuda_to_ptx_and_cubin
// [SECTION] nvrtc_version
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/source_file.h"

namespace weft::runtime {

// [SECTION] options and errors

struct CudaCompileOptions {
    std::string arch = "sm_90";        // "sm_NN" or "sm_NNa"; PTX is made for the matching compute_NN
    bool line_info = true;             // -lineinfo: .loc/.file in the PTX, for gpusim and profilers
    bool debug = false;                // -G: device debug info, optimizations off
    std::vector<std::string> defines;  // "NAME" or "NAME=VALUE", e.g. "WP_DEBUG=1"
    int max_registers = 0;             // -maxrregcount; 0 = let the compiler choose
    bool fmad = true;                  // false: --fmad=false, no a*b+c contraction (the CPU JIT's
                                       // -ffp-contract=off); NVRTC's default is true
};

// NVRTC rejected the source or the options. what() holds NVRTC's log, with each location written
// clang-style, "file:line: error: message", so that both devices report errors alike.
class CudaCompileError : public std::runtime_error {
public:
    explicit CudaCompileError(const std::string& log) : std::runtime_error(log) {}
};

// [SECTION] compile_cuda_to_ptx / compile_cuda_to_cubin

// PTX text for the virtual architecture of options.arch (sm_90 -> compute_90). C++20, no
// fast-math. Throws CudaCompileError with NVRTC's log on error.
std::string compile_cuda_to_ptx(const SourceFile& main, const std::vector<SourceFile>& headers,
                                const CudaCompileOptions& options);

// An ELF cubin for exactly options.arch (nvrtcGetCUBIN). Throws CudaCompileError on error.
std::string compile_cuda_to_cubin(const SourceFile& main, const std::vector<SourceFile>& headers,
                                  const CudaCompileOptions& options);

// PTX and the cubin of one NVRTC compilation for the real architecture options.arch: what the
// cuda device caches (the cubin to load, the PTX for gpusim and the profilers), for the price of
// one compile. The PTX targets sm_NN, as compile_cuda_to_ptx's does for compute_NN.
struct CudaBinaries {
    std::string ptx;
    std::string cubin;
};
CudaBinaries compile_cuda_to_ptx_and_cubin(const SourceFile& main, const std::vector<SourceFile>& headers,
                                           const CudaCompileOptions& options);

// [SECTION] nvrtc_version

// "nvrtc 13.0": part of the module cache's key for anything NVRTC made.
std::string nvrtc_version();

}  // namespace weft::runtime
