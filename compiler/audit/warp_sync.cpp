// Warp collectives under divergence: a shuffle or vote whose mask is the full 0xffffffff says that
// every lane of the warp takes part, so every lane must reach it (CUDA: "all non-exited threads
// named in mask must execute the same intrinsic with the same mask"). The interpreter records, for
// each collective it evaluates, the first warp that some of its lanes reach and others do not.
//
//   a lane that took another branch or left a loop   error: it never arrives; on the GPU the
//                                                    collective hangs or reads undefined values
//   a lane that returned or lies past the launch     warning: exited lanes are allowed, but a
//                                                    shuffle that reads one gets an undefined value
//   a lane under a condition that varies by data     warning: whether it arrives depends on data
//
// The fix is a mask of the lanes that arrive (wp.ballot_sync(0xffffffff, cond) taken before the
// branch, where every lane is present), or moving the collective out of the branch.
#include <set>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

std::vector<Finding> audit_warp_sync(const ir::Function&, const std::vector<Trace>& traces) {
    std::vector<Finding> out;
    std::set<const ir::Expr*> reported;
    for (const Trace& tr : traces) {
        for (const WarpCallEvent& ev : tr.warp_calls) {
            if (!ev.full_mask || ev.warp < 0 || reported.count(ev.call)) continue;
            Finding f;
            f.check = Check::WarpSyncDivergence;
            f.severity = ev.exited || ev.missing_maybe ? FindingSeverity::Warning : FindingSeverity::Error;
            f.loc = capture_loc(ev.loc);
            f.message = "wp." + ev.builtin + " with the full mask 0xffffffff is reached by " + std::to_string(ev.reached) +
                        " of the " + std::to_string(ev.lanes) + " lanes of warp " + std::to_string(ev.warp) + " in block " +
                        std::to_string(tr.block_idx) + "; " +
                        (ev.missing_maybe ? "the others may not arrive"
                         : ev.exited      ? "the others have exited"
                                          : "the others never arrive");
            const std::string line = ev.why_loc.valid() ? " (line " + std::to_string(ev.why_loc.display_line()) + ")" : "";
            f.notes.push_back(
                {capture_loc(ev.why_loc),
                 "lane " + std::to_string(ev.missing_lane) + " " +
                     (ev.why.rfind("does", 0) == 0 || ev.why.rfind("may", 0) == 0 ? ev.why : "skips it: " + ev.why) + line});
            f.notes.push_back(
                {{},
                 ev.exited ? "a shuffle that reads an exited lane gets an undefined value; name only the lanes that take part "
                             "(wp.ballot_sync(0xffffffff, cond) before the branch gives their mask)"
                           : "every lane the mask names must call it, or the GPU hangs or reads undefined values; name only the "
                             "lanes that take part (wp.ballot_sync(0xffffffff, cond) before the branch gives their mask)"});
            reported.insert(ev.call);
            add_call_notes(f, ev.call_sites);
            out.push_back(std::move(f));
        }
    }
    return out;
}

}  // namespace weft::compiler::audit
