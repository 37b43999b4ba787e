// runtime/cpu/cpu_backend.h: the `cpu` device.
//
// Memory is ordinary host memory (64-byte aligned). A module is compiled by the in-process Clang
// JIT from the generated C++ (or loaded from the disk cache) and its kernels are launched over
// the thread pool: the grid is cut into chunks of whole blocks; kernels that synchronise run
// each block as fibers (block_fibers.h); kernels with shared memory get one zeroed shared buffer
// per block.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/device.h"

namespace weft::runtime {

std::unique_ptr<DeviceBackend> make_cpu_backend();

// The optimisation level of a module's CPU code, by the size of its generated C++ (lines): LLVM's
// -O3 pipeline (InstCombine above all) takes time superlinear in a function's size, so a large
// module is compiled at -O1, a huge one at -O0, rather than for minutes. The thresholds are
// measured (bench/results/cpu_compile_size.md; docs/runtime.md, "Limits"). Modules past
// CompileProgress's first report (5 s) say on stderr that they are compiling.
inline constexpr int64_t kCpuO3MaxLines = 6000;
inline constexpr int64_t kCpuO1MaxLines = 24000;
int cpu_opt_level(int64_t generated_lines);

// The cache key of the CPU object for a module (exposed for tests and `weft compile`).
std::string cpu_cache_key(const compiler::CompiledModule& m);

}  // namespace weft::runtime
