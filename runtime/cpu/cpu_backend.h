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

// The optimisation level of a module's CPU code, by the size of its largest function (IR
// statements, nested ones included): LLVM's -O3 pipeline (InstCombine, the SLP vectorizer) takes
// time superlinear in a function's size, so a module with a huge kernel is compiled at -O1, one
// with a larger still at -O0, rather than for minutes. The thresholds are measured
// (bench/results/cpu_compile_size.md; docs/cpu-device.md, "Limits"); the engine's largest kernel
// has under 100 statements. A compile that takes more than 5 s says so on stderr.
inline constexpr int64_t kCpuO3MaxStatements = 300;
inline constexpr int64_t kCpuO1MaxStatements = 1200;
int cpu_opt_level(int64_t largest_function_statements);

// The cache key of the CPU object for a module (exposed for tests and `weft compile`).
std::string cpu_cache_key(const compiler::CompiledModule& m);

}  // namespace weft::runtime
