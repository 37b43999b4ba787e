// The shared-memory traffic a whole launch is predicted to make: warp-level load and store
// requests, their wavefronts and ideal wavefronts, summed over every block and warp.
//
// These are the numbers Nsight Compute measures (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld
// / _op_st, smsp__sass_inst_executed_op_shared_ld / _st, and bank conflicts = wavefronts -
// ideal), so scripts/audit-h200 can put prediction and measurement side by side. The bank-conflict
// check reports per access; this sums the same requests (shared_requests.h, gpusim's bank model)
// over the launch. Shared atomics are counted apart (Nsight Compute counts them as op_atom).
//
// A prediction is `exact` when every shared access of every block had known lane addresses and a
// decided path (no "maybe" lanes, no abstractly run loop); otherwise the sums are lower bounds
// and `why` says where the interpreter lost track. Given the kernel's machine code
// (compiled_shared.h), the accesses ptxas merged into wider instructions are counted as those
// instructions (merged_accesses.h: `s[2*t]` and `s[2*t+1]` stored by one STS.64 are one 8-byte
// request per warp); without it, each IR access is one request as written. A compiler that
// removes shared accesses makes the measured requests differ, which the comparison shows as a
// request-count mismatch rather than hiding it; `forwarded` names the loads that store-to-load
// forwarding would remove.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/audit/compiled_shared.h"
#include "compiler/audit/simt_eval.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::audit {

struct SharedCounters {
    int64_t requests = 0;  // warp-level requests (SASS shared instructions executed)
    int64_t wavefronts = 0;
    int64_t ideal = 0;  // wavefronts without bank conflicts
};

struct SharedProfile {
    SharedCounters load, store;
    // Of `load`: warp requests whose every lane reads an element that the same thread stored
    // earlier in the same barrier interval (no barrier, and no atomic or unknown-index store of
    // that thread to the array, in between). An optimising compiler serves those from the
    // register it stored (store-to-load forwarding; NVRTC does), so the GPU may execute
    // `load - forwarded` shared loads. Reported apart, not subtracted: it is the compiler's choice.
    SharedCounters forwarded;
    int64_t atomic_requests = 0;  // warp-level shared atomics (not part of load/store)
    int64_t blocks = 0;           // blocks of the launch (0: unknown, no --dim)
    bool exact = true;
    std::string why;                 // the first reason the prediction is not exact
    bool from_machine_code = false;  // access widths read from the SASS (else as the source writes them)
    int64_t merged_requests = 0;     // of load + store: warp requests of accesses ptxas merged
};

// Simulates every block of the launch (at most kMaxProfiledBlocks; more makes it inexact).
// `compiled`: the kernel's machine code, or null (widths as written).
SharedProfile shared_profile(const ir::Function& k, const LaunchModel& launch, const CompiledShared* compiled = nullptr);

constexpr int64_t kMaxProfiledBlocks = 4096;

}  // namespace weft::compiler::audit
