// compiler/launch_list.h: one persistent CUDA entry that runs a list of launches, of kernels from
// any number of modules, in order and in a single launch.
//
// A physics frame is a fixed sequence of short launches (16 substeps of 3 kernels for a cloth);
// at small sizes each costs more to start than to run, even replayed from a CUDA graph. A launch
// list puts every module's forward code in one translation unit, each in a namespace of its own,
// and adds the entry
//
//     extern "C" __global__ void weft_launch_list(const weft_list_params p, int first_step,
//                                                 int count, unsigned int* barrier)
//
// The list's distinct launches are its *cases*: a kernel with one launch shape and one argument
// block (a frame of 16 substeps that swap two states has 6 cases for 48 launches). `p` holds
// every case's launch bounds and argument block, so that, as in the kernels' own entries, the
// bodies read their arguments from the parameter space at fixed offsets (the constant bank):
// nothing of them occupies registers until used. The order of the cases is in the source, a
// constant table (the constant cache gives every thread the next case at once); the entry runs
// steps first_step, ..., first_step + count - 1 of it; each runs its kernel's body over its bounds, each thread
// taking the launch indices first, first + stride, ... exactly as the kernel's own entry does.
// Between two steps every thread of the grid waits for every other: a block barrier (bar.sync)
// when the grid is one block, else a grid barrier, where one thread per block counts itself in at
// `barrier` (zero at launch) and waits until every block has. A grid barrier needs the whole grid
// resident at once, so a grid of several blocks must be a cooperative launch (runtime/launch_list.h
// chooses the grid and launches it).
//
// The bodies are the kernels' own K_body templates, so a list computes what the launches would,
// bit for bit (the same operations in the same order; NVRTC contracts nothing: --fmad=false).
// Kernels that use shared memory, block barriers or warp collectives cannot be listed: their
// blocks must be the launch's own (launch_list_refusal says so).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/driver.h"

namespace weft::compiler {

// The entry's name.
extern const char* const kLaunchListEntry;

// One case of a list: a kernel (launched with the bounds and arguments the caller puts in `p`).
struct ListedKernel {
    const CompiledModule* module = nullptr;  // compiled without debug checks
    const KernelInfo* kernel = nullptr;      // one of module->gen.kernels
};

// Where each case's launch bounds and argument block lie in `p` (weft_list_params); the source
// asserts the same offsets.
struct LaunchListLayout {
    std::vector<size_t> bounds_offset;  // a wp::launch_bounds_t per case
    std::vector<size_t> args_offset;    // the case's kernel's K_args
    size_t size = 0;                    // sizeof(weft_list_params)
};
LaunchListLayout launch_list_layout(const std::vector<ListedKernel>& cases);

// The most parameter bytes a CUDA launch takes (sm_70 and later, CUDA 12.1 and later).
constexpr size_t kLaunchParamLimit = 32764;
// The most steps of a list: its order table is constant memory (64 KiB in all).
constexpr size_t kLaunchListMaxSteps = 8192;

// Why `k` cannot run in a launch list, or "" when it can.
std::string launch_list_refusal(const KernelInfo& k);

// The CUDA C++ translation unit of a list of these cases run in the order `sequence` (case
// indices). Throws std::invalid_argument for a kernel that launch_list_refusal refuses, an empty
// list or a sequence naming no case.
std::string launch_list_source(const std::vector<ListedKernel>& cases, const std::vector<int32_t>& sequence);

}  // namespace weft::compiler
