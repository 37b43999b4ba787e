// The recording half of the lane-vector interpreter: how what the interpreter sees becomes a
// Trace (simt_eval.h), apart from how it evaluates the kernel.
//
// The interpreter (simt_eval.cpp) decides which threads run which statement and what every
// index is; this file turns that into events and stamps each with where in the kernel it
// happened:
//
//   access   the array, per-thread indices, active / maybe masks, and the bytes of the element
//            the access moves (a struct field or vector component: member_bytes below)
//   branch   the per-warp lane split of a condition, summed over its evaluations
//   sync     a barrier; it closes the current barrier interval and opens the next
//   warp     a warp collective, with the first warp where a lane its full mask names is missing
//
// and every event carries the barrier interval it falls in and the @wp.func call sites that led
// to it. The analyses read only the Trace.
#pragma once

#include <vector>

#include "compiler/audit/simt_eval.h"

namespace weft::compiler::audit {

// The bytes of an array element an access moves: `width` bytes from `offset` (width 0: all of it).
struct MemberBytes {
    int offset = 0;
    int width = 0;
};

// `a[i].f`, `a[i][k]` read: `steps` are the Field / constant-index Extract expressions from the
// Load outwards; `t` is the loaded element's type. Stops at the first step it cannot place.
MemberBytes load_member_bytes(Type t, const std::vector<const ir::Expr*>& steps);
// `a[i].f = v`, `a[i][k] = v`: the Store's path below the element of type `t`.
MemberBytes store_member_bytes(Type t, const std::vector<ir::PathStep>& path);

class TraceRecorder {
public:
    explicit TraceRecorder(Trace& out) : out_(out) {}

    // An access of `array` by the threads of `active` (of which those in `maybe` only perhaps).
    void access(const ir::Var* array, SourceLoc loc, bool write, bool atomic, MemberBytes bytes, std::vector<LaneVal> indices,
                const Mask& active, Mask maybe);
    // One evaluation of the condition of `s` (an if or a loop) for the threads of `m`.
    void branch(const ir::Stmt& s, const SourceLoc& cond_loc, bool loop, const LaneVal& c, const Mask& m, bool bound_guard);
    // A barrier reached as `ev` says (threads, why some miss it); ends the current interval.
    void sync(const ir::Stmt& s, SyncEvent ev);
    // A warp collective `call` evaluated as `ev` says.
    void warp_call(const ir::Expr& call, WarpCallEvent ev);
    // The interpreter enters / leaves the body of a @wp.func called at `site`.
    void enter_call(const SourceLoc& site) { call_sites_.push_back(site); }
    void leave_call() { call_sites_.pop_back(); }
    // The kernel's end: records which sync opened the last interval.
    void finish() { out_.final_interval_start = interval_start_; }

    int interval() const { return interval_; }
    const ir::Stmt* interval_start() const { return interval_start_; }
    const std::vector<SourceLoc>& call_sites() const { return call_sites_; }

private:
    Trace& out_;
    int interval_ = 0;                          // barriers passed so far
    const ir::Stmt* interval_start_ = nullptr;  // the sync that opened the current interval
    std::vector<SourceLoc> call_sites_;         // calls being interpreted, outermost first
};

}  // namespace weft::compiler::audit
