// gpusim/ptx/call_graph.h — facts about which functions call which.
//
// Recursion matters to the executor: registers are numbered module-wide (one set per function),
// so a call into a function that may already be active saves and restores its registers, and
// the per-thread stack size cannot be computed statically.
#pragma once

#include <cstdint>
#include <vector>

#include "gpusim/ptx/module.h"

namespace weft::gpusim {

// Sets Function::recursive for every function on a cycle of the call graph.
void mark_recursive_functions(std::vector<Function>& functions, const std::vector<Instr>& code,
                              const std::vector<CallArgs>& calls);

// The functions a launch of `kernel` can run: the kernel and every function its calls reach,
// as indices into module.functions(), ascending. Registers are numbered module-wide, so these
// are also the register rows and instructions a launch can touch.
std::vector<int32_t> reachable_functions(const Module& module, int32_t kernel);

// Bytes of per-thread frame stack a launch of `kernel` needs: the deepest chain of frames
// (each rounded to 16 bytes), or -1 when a recursive function is reachable.
int64_t stack_bytes_needed(const Module& module, int32_t kernel);

}  // namespace weft::gpusim
