// Uniformity and divergence: a branch or loop whose condition differs between the lanes of one
// warp makes the warp run both sides (or the longest trip count) with lanes masked off.
//
// Uniformity is the interpreter's `varying` taint: thread_idx, tid, lane_id and what is computed
// or loaded from them vary; block_idx, block_dim, parameters, shapes and constants do not; a value
// assigned under a varying condition varies. Where the condition is known per thread, the lane
// split is exact: the report gives how many warp-evaluations diverged and the share of lanes on
// each side (`if t < stride` with block 64 at stride 32: half the lanes, no warp split; at 16:
// warp 0 split 16/16). Bound guards (`if i < n`, `if i >= a.shape[0]: return` with i consecutive
// across lanes) are not reported: they split at most the one warp at the end of the data.
#include <cstdio>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

std::vector<Finding> audit_divergence(const ir::Function&, const std::vector<Trace>& traces) {
    std::vector<Finding> out;
    if (traces.empty()) return out;
    // Block 0 speaks for the launch; the last block only adds branches block 0 never reached.
    std::map<const ir::Stmt*, BranchStats> merged;
    for (const Trace& tr : traces)
        for (const auto& [s, st] : tr.branches)
            if (!merged.count(s)) merged[s] = st;
    for (const auto& [s, st] : merged) {
        if (st.bound_guard || !st.varying) continue;
        bool split = st.divergent_warp_evals > 0;
        bool unknown = st.lanes_unknown > 0;
        if (!split && !unknown) continue;
        Finding f;
        f.check = Check::Divergence;
        f.severity = FindingSeverity::Warning;
        f.loc = capture_loc(st.loc);
        std::string cond = source_text(st.loc);
        f.message =
            std::string(st.loop ? "divergent loop" : "divergent branch") + ": '" + cond + "' differs between the lanes of a warp";
        int64_t known = st.lanes_true + st.lanes_false;
        if (split) {
            f.notes.push_back({{},
                               std::to_string(st.divergent_warp_evals) + " of " + std::to_string(st.warp_evals) +
                                   " warp evaluations diverge; first: warp " + std::to_string(st.first_divergent_warp) +
                                   " with " + std::to_string(st.first_divergent_true) + " lanes " +
                                   (st.loop ? "iterating" : "taking it") + " and " + std::to_string(st.first_divergent_false) +
                                   " not"});
        }
        if (known > 0) {
            char buf[160];
            snprintf(buf, sizeof buf, "over all evaluations %.1f%% of lanes %s, %.1f%% %s", 100.0 * st.lanes_true / double(known),
                     st.loop ? "iterate" : "take the branch", 100.0 * st.lanes_false / double(known),
                     st.loop ? "exit" : "do not");
            f.notes.push_back({{}, buf});
        }
        if (unknown) f.notes.push_back({{}, "the condition depends on per-thread data; the split is not known statically"});
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace weft::compiler::audit
