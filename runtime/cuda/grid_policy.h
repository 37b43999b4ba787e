// runtime/cuda/grid_policy.h: how many blocks a grid-stride launch gets.
//
// Forward entries of kernels without wp.sync_threads() loop over a grid stride (cpp_codegen.cpp),
// so a launch may use fewer blocks than one per block_dim threads. Measured on the H200
// (bench/results/gpu-check-2026-12-02-3.md, bench_cuda): kernels whose threads load little are
// bounded by memory-level parallelism, and a full grid's block turnover leaves SMs below full
// occupancy part of the time. saxpy (8 bytes loaded per thread) runs at 0.65 of the copy
// bandwidth with the full grid and at 0.85-0.86 capped at 1-16 waves of resident blocks; the vec3
// particle update (24 bytes and more) runs at 0.99 with the full grid and drops to 0.84-0.87
// capped. So by default (`auto`) a kernel whose array parameters it reads hold fewer than
// kStreamedBytesThreshold bytes per element in total is capped at kAutoWaves waves; others get
// the full grid.
#pragma once

#include <cstddef>

#include "compiler/codegen/cpp_codegen.h"

namespace weft::runtime {

constexpr int kGridWavesAuto = -1;  // the default setting: choose per kernel
constexpr int kAutoWaves = 8;       // waves of resident blocks for light kernels
constexpr size_t kStreamedBytesThreshold = 16;

// Bytes one thread loads if it reads one element of each array parameter it reads (param_access):
// the estimate of the bytes a streaming thread keeps in flight.
size_t streamed_bytes_per_thread(const compiler::KernelInfo& k);

// Waves of resident blocks to cap a grid-stride launch at (0: the full grid), for the context's
// setting: kGridWavesAuto chooses by streamed_bytes_per_thread, 0 is always the full grid, W > 0
// always W waves.
int grid_waves_for(const compiler::KernelInfo& k, int setting);

// The setting WEFT_CUDA_GRID_WAVES gives ("auto" or W; unset or empty: `fallback`). Read by the
// cuda device at context start-up and by the sim device, which launches as the cuda device would.
int grid_waves_from_env(int fallback);

}  // namespace weft::runtime
