// A lane-vector interpreter of a kernel's IR over the threads of one block: the shared engine of
// the audits.
//
// Every audit needs to know, for each thread of a block, which statements it reaches and which
// array elements it touches. Instead of an affine solver per analysis, this walks the structured
// IR once per simulated block and evaluates every integer expression for all threads at once
// (a `LaneVal`: one int64 per thread, each known or not). Unknowns stay useful:
//
//   thread_idx(), tid(), lane_id()   known, varying           block_idx(), block_dim()   known, uniform
//   int parameter n, a.shape[0]      unknown but uniform: a symbol S, value = S + off[t]
//   loads, float math                unknown; "varying" if any operand varies across lanes
//
// so `a[i + off]` still has known lane-to-lane differences (coalescing, banks), and `s[t + k]`
// with a loop-counted k is exact. Control flow is run with a mask per statement: a condition that
// is known per thread splits the mask (exact divergence fractions, exact barrier reachability);
// an unknown one sends its threads down both sides marked "maybe". Loops with known trip counts
// are unrolled (up to kMaxIterations); others run their body twice with the loop-carried
// variables widened to unknown.
//
// The output is a Trace: every array access (per-thread indices, active mask, barrier interval),
// every branch with its per-warp lane split, and every barrier with the threads that miss it.
// bounds/divergence/barriers/races/bank_conflicts/coalescing read traces; none re-walk the IR.
//
// Calls of @wp.func are interpreted in place, as if inlined: the func's accesses, branches and
// barriers are recorded at their own source lines with the call sites that led there, integer
// arguments and return values keep their per-thread values, and array arguments name the
// caller's array (so a shared array passed to a func is still that shared array).
//
// Not modelled: values stored to memory (a load is always unknown), atomics' return values.
//
// Files: lane_val.h (values and their arithmetic), trace_recorder.h (events of the trace and
// their position), simt_eval.cpp (the interpreter), source_span.h (source text for findings).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/audit/lane_val.h"
#include "compiler/audit/source_span.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::audit {

constexpr int kWarpSize = 32;
constexpr int kMaxIterations = 512;  // unrolled iterations of one loop instance
constexpr int kMaxBlockDim = 1024;
constexpr size_t kMaxCallDepth = 16;  // nested @wp.func calls interpreted (sema rejects recursion)

// The launch the audit assumes.
struct LaunchModel {
    std::vector<int64_t> dims;                           // launch dimensions; empty = unknown
    int block_dim = 256;                                 // threads per block
    std::map<std::string, std::vector<int64_t>> shapes;  // global array parameter -> shape
    std::map<std::string, int64_t> args;                 // int/bool kernel parameter -> value (else a symbol)
    int64_t total_threads() const;                       // product of dims, -1 if unknown
    int64_t block_count() const;                         // -1 if unknown
};

// The threads of `launch` that run the body of `f`, -1 if unknown: the launch size, except for a
// kernel that calls wp.sync_threads() (directly or through funcs, ir::Function::uses_sync): its
// generated code has no early return for tid >= dim (every thread of a block must reach its
// barriers; compiler/codegen/cpp_codegen.cpp), and runtime::launch takes only whole blocks for it
// on every device, so all block_count() * block_dim threads run, the last block's included.
int64_t launched_threads(const ir::Function& f, const LaunchModel& launch);

struct AccessEvent {
    SourceLoc loc;
    const ir::Var* array = nullptr;  // the parameter or shared variable
    bool shared = false;
    bool write = false;
    bool atomic = false;
    int elem_bytes = 0;                        // size of one array element
    int width_bytes = 0;                       // bytes this access moves per thread (a field of a struct: the field)
    int offset_bytes = 0;                      // where in the element those bytes start
    std::vector<LaneVal> indices;              // one per array dimension
    Mask active;                               // threads performing the access
    Mask maybe;                                // ... of which these only perhaps (under an unknown condition)
    int interval = 0;                          // barrier interval (count of barriers passed before it)
    const ir::Stmt* interval_start = nullptr;  // the sync that opened the interval (null: kernel entry)
    std::vector<SourceLoc> call_sites;         // inside @wp.func bodies: the calls that led here, outermost first
};

// Per branch or loop condition: how lanes split, summed over every time it was evaluated.
struct BranchStats {
    SourceLoc loc;  // the condition
    bool loop = false;
    bool varying = false;      // the condition may differ between lanes (taint)
    bool bound_guard = false;  // `tid-like < uniform`: diverges in at most one warp
    int64_t lanes_true = 0, lanes_false = 0, lanes_unknown = 0;
    int64_t warp_evals = 0, divergent_warp_evals = 0;
    int first_divergent_warp = -1;
    int64_t first_divergent_true = 0, first_divergent_false = 0;
};

struct SyncEvent {
    const ir::Stmt* stmt = nullptr;
    SourceLoc loc;
    int interval_before = 0;
    const ir::Stmt* interval_start = nullptr;
    int live = 0;                    // threads of the block that exist
    int reached = 0;                 // threads that reach it
    std::vector<int> missing;        // thread indices (in block) that do not
    std::vector<int> maybe_missing;  // threads that reach it only perhaps
    SourceLoc why_loc;               // the return / break / condition that took the first missing thread away
    std::string why;                 // "returned", "condition is false", ...
    SourceLoc unknown_cond;          // enclosing varying condition the interpreter could not decide
    bool in_abstract_loop = false;
    std::vector<SourceLoc> call_sites;  // a barrier inside @wp.func bodies: the calls that led here
};

// A warp collective (wp.shfl_sync, wp.ballot_sync, ...) as one evaluation of it found it. With the
// full mask every lane of a warp must call it; `warp` names the first warp where some lane does
// not (it took another branch, returned, or lies past the launch), -1 if none.
struct WarpCallEvent {
    const ir::Expr* call = nullptr;
    SourceLoc loc;
    std::string builtin;         // "shfl_down_sync"
    bool full_mask = false;      // the mask argument is 0xffffffff in every calling lane
    int warp = -1;               // warp index within the block
    int reached = 0, lanes = 0;  // of that warp: lanes that reach the call, lanes that exist
    int missing_lane = -1;       // the first lane (0..31) of that warp that does not reach it
    bool missing_maybe = false;  // ... only perhaps (under a condition the interpreter could not decide)
    bool exited = false;         // ... because it returned or does not exist (not waiting elsewhere)
    SourceLoc why_loc;           // the condition, return or break that took it away
    std::string why;
    std::vector<SourceLoc> call_sites;  // inside @wp.func bodies: the calls that led here
};

struct Trace {
    int64_t block_idx = 0;
    int block_dim = 0;
    int nthreads = 0;          // threads of this block that exist
    std::vector<int64_t> tid;  // linear launch index per thread
    std::vector<AccessEvent> accesses;
    std::map<const ir::Stmt*, BranchStats> branches;
    std::vector<SyncEvent> syncs;
    std::vector<WarpCallEvent> warp_calls;
    const ir::Stmt* final_interval_start = nullptr;  // the sync that opened the last interval
    std::vector<std::string> approximations;         // where the interpreter had to widen (for --verbose)
};

// Interprets kernel `f` for block `block_idx` of the launch. Never throws on any IR.
Trace simulate_block(const ir::Function& f, const LaunchModel& launch, int64_t block_idx);

}  // namespace weft::compiler::audit
