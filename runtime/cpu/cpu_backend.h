// runtime/cpu/cpu_backend.h: the `cpu` device.
//
// Memory is ordinary host memory (64-byte aligned). A module is compiled by the in-process Clang
// JIT from the generated C++ (or loaded from the disk cache) and its kernels are launched over
// the thread pool: the grid is cut into chunks of whole blocks; kernels that synchronise run
// each block as fibers (block_fibers.h); kernels with shared memory get one zeroed shared buffer
// per block.
#pragma once

#include <memory>

#include "runtime/device.h"

namespace weft::runtime {

std::unique_ptr<DeviceBackend> make_cpu_backend();

// The cache key of the CPU object for a module (exposed for tests and `weft compile`).
std::string cpu_cache_key(const compiler::CompiledModule& m);

}  // namespace weft::runtime
