// `weft audit`: static checks of kernels on the typed IR, each with a witness.
//
//   auto findings = audit::audit_kernel(*module->ir->find("reduce"), options);
//
// The pipeline (audit_kernel):
//
//   Function ──simulate_block (block 0, last block)──> Trace ──┬─ divergence      divergent branches / loops
//                                                            ├─ barriers        sync_threads under divergence
//                                                            ├─ warp_sync       full-mask collectives under divergence
//                                                            ├─ races           shared-memory data races
//                                                            ├─ bank_conflicts  wavefronts per request
//                                                            └─ coalescing      32-byte sectors per request
//   Function ──simulate_block (every block, or a sample)──> bounds           array indices vs shapes
//   Function + Module constants ──────────────────────────> constants        oversize wp.constants
//
// One analysis per file; each returns findings and keeps no state. Findings on a line carrying
// `# weft: ignore[check-id]` are dropped here. Resources (registers, occupancy) need ptxas and
// live in apps/cmd_audit.cpp, on gpusim/arch/ (the architecture file, ptxas, occupancy).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/audit/compiled_shared.h"
#include "compiler/audit/finding.h"
#include "compiler/audit/simt_eval.h"
#include "compiler/ir/ir.h"

namespace weft::compiler::audit {

struct AuditOptions {
    std::vector<int64_t> dims;                           // --dim; empty = unknown
    std::map<std::string, std::vector<int64_t>> shapes;  // --shape name=AxB
    std::map<std::string, int64_t> args;                 // --arg name=value: int/bool parameters' values
    int block_dim = 0;                                   // 0: the kernel's block_dim, else 256
    bool keep_suppressed = false;                        // for tests of the suppression itself
    int64_t max_constant_bytes = 64;                     // oversize-constant: larger wp.constants warn
    std::map<std::string, CompiledShared>
        machine_code;  // kernel name -> its shared instructions (ptxas's SASS); none: widths as written
    std::string no_machine_code = "no CUDA toolkit";  // why machine_code is empty (in bank-conflict notes)
};

// The kernel's machine code in `options`, or null.
const CompiledShared* machine_code(const ir::Function& k, const AuditOptions& options);

// The launch model an audit of `k` assumes under `options`.
LaunchModel launch_model(const ir::Function& k, const AuditOptions& options);

// Every check of this file's pipeline on kernel `k` of module `m`; sorted, deduplicated,
// suppressions applied. `dot`, if not null, receives the kernel's sync graph in Graphviz DOT.
std::vector<Finding> audit_kernel(const ir::Module& m, const ir::Function& k, const AuditOptions& options,
                                  std::string* dot = nullptr);

// The analyses (one file each). `traces` are simulated blocks of one launch.
std::vector<Finding> audit_bounds(const ir::Function& k, const LaunchModel& launch);
std::vector<Finding> audit_divergence(const ir::Function& k, const std::vector<Trace>& traces);
std::vector<Finding> audit_barriers(const ir::Function& k, const std::vector<Trace>& traces);
std::vector<Finding> audit_warp_sync(const ir::Function& k, const std::vector<Trace>& traces);
std::vector<Finding> audit_races(const ir::Function& k, const std::vector<Trace>& traces);
std::vector<Finding> audit_bank_conflicts(const ir::Function& k, const std::vector<Trace>& traces, const CompiledShared* compiled,
                                          const std::string& no_machine_code);
std::vector<Finding> audit_coalescing(const ir::Function& k, const LaunchModel& launch, const std::vector<Trace>& traces);
std::vector<Finding> audit_constants(const ir::Module& m, const ir::Function& k, int64_t max_constant_bytes);

// The barrier intervals of a block and the shared accesses in each, as a Graphviz digraph.
std::string sync_graph_dot(const ir::Function& k, const Trace& trace);

// Notes naming the @wp.func calls through which an access was reached (innermost first), so a
// finding inside a func body says which call site of which kernel produced its witness.
void add_call_notes(Finding& f, const std::vector<SourceLoc>& call_sites);

// Element index of a shared access for thread t, flattened row-major over the array's shape;
// false if some index is unknown. `sym` receives the symbol the index is relative to (0: none).
bool shared_element(const AccessEvent& ev, int t, int64_t* element, uint32_t* sym,
                    const std::vector<int>* shape_override = nullptr);

}  // namespace weft::compiler::audit
