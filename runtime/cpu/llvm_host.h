// runtime/cpu/llvm_host.h: LLVM's one-time global set-up and a description of the host target.
//
// LLVM keeps its target registry in process-wide state that must be filled exactly once before
// any compile or JIT link; std::call_once makes that safe from any thread. The host description
// (triple, CPU, features) is computed once too, since both the compiler (-target-cpu/-feature)
// and the cache key (host_target_triple_and_cpu) need the same answer.
// Internal to weft_cpu_jit: this header includes nothing of LLVM.
#pragma once

#include <string>
#include <vector>

namespace weft::runtime::detail {

struct HostTarget {
    std::string triple;                 // normalized, e.g. "x86_64-pc-linux-gnu"
    std::string cpu;                    // llvm::sys::getHostCPUName(), e.g. "znver3"
    std::vector<std::string> features;  // "+avx2", "-avx512f", ... sorted by name
};

// Registers the native target, its asm printer and asm parser. Idempotent and thread-safe.
void ensure_llvm_initialized();

// The host as LLVM sees it; computed on first use.
const HostTarget& host_target();

}  // namespace weft::runtime::detail
