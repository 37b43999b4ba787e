// Events of the interpreter's trace (see trace_recorder.h).
#include "compiler/audit/trace_recorder.h"

#include <algorithm>

namespace weft::compiler::audit {

namespace {

// Byte offset of field `k` in struct `t` (C layout: each field aligned to its own alignment).
size_t field_offset(Type t, int k) {
    size_t off = 0;
    auto round_up = [](size_t x, size_t a) { return (x + a - 1) / a * a; };
    for (int j = 0; j <= k && j < static_cast<int>(t->fields.size()); ++j) {
        off = round_up(off, type_align(t->fields[static_cast<size_t>(j)].type));
        if (j < k) off += type_size(t->fields[static_cast<size_t>(j)].type);
    }
    return off;
}

}  // namespace

MemberBytes load_member_bytes(Type t, const std::vector<const ir::Expr*>& steps) {
    MemberBytes b;
    for (const ir::Expr* s : steps) {
        if (s->kind == ir::ExprKind::Field && t->kind == TypeKind::Struct) {
            b.offset += static_cast<int>(field_offset(t, static_cast<int>(s->int_value)));
            t = s->type;
        } else if (s->kind == ir::ExprKind::Extract && s->args.size() == 2 && ir::is_const(s->args[1])) {
            b.offset += static_cast<int>(s->args[1]->int_value * static_cast<int64_t>(type_size(s->type)));
            t = s->type;
        } else {
            break;
        }
    }
    b.width = static_cast<int>(type_size(t));
    return b;
}

MemberBytes store_member_bytes(Type t, const std::vector<ir::PathStep>& path) {
    MemberBytes b;
    for (const auto& p : path) {
        if (p.kind == ir::PathStep::Field && t->kind == TypeKind::Struct) {
            b.offset += static_cast<int>(field_offset(t, p.field));
        } else if (p.kind == ir::PathStep::Index && p.indices.size() == 1 && ir::is_const(p.indices[0])) {
            b.offset += static_cast<int>(p.indices[0]->int_value * static_cast<int64_t>(type_size(p.type)));
        } else {
            break;
        }
        t = p.type;
    }
    b.width = static_cast<int>(type_size(t));
    return b;
}

void TraceRecorder::access(const ir::Var* array, SourceLoc loc, bool write, bool atomic, MemberBytes bytes,
                           std::vector<LaneVal> indices, const Mask& active, Mask maybe) {
    AccessEvent ev;
    ev.loc = loc;
    ev.array = array;
    ev.shared = array->kind == ir::VarKind::Shared;
    ev.write = write;
    ev.atomic = atomic;
    ev.elem_bytes = static_cast<int>(type_size(array->type->elem));
    ev.width_bytes = bytes.width > 0 ? bytes.width : ev.elem_bytes;
    ev.offset_bytes = bytes.offset;
    ev.indices = std::move(indices);
    ev.active = active;
    ev.maybe = std::move(maybe);
    ev.interval = interval_;
    ev.interval_start = interval_start_;
    ev.call_sites = call_sites_;
    out_.accesses.push_back(std::move(ev));
}

void TraceRecorder::branch(const ir::Stmt& s, const SourceLoc& cond_loc, bool loop, const LaneVal& c, const Mask& m,
                           bool bound_guard) {
    BranchStats& st = out_.branches[&s];
    st.loc = cond_loc;
    st.loop = loop;
    st.varying = st.varying || c.varying;
    st.bound_guard = bound_guard;
    const int n = static_cast<int>(m.size());
    for (int w = 0; w * kWarpSize < n; ++w) {
        int64_t tr = 0, fa = 0, un = 0;
        for (int t = w * kWarpSize; t < std::min(n, (w + 1) * kWarpSize); ++t) {
            if (!m[static_cast<size_t>(t)]) continue;
            if (!c.exact(t))
                ++un;
            else if (c.off[static_cast<size_t>(t)])
                ++tr;
            else
                ++fa;
        }
        if (tr + fa + un == 0) continue;
        st.lanes_true += tr, st.lanes_false += fa, st.lanes_unknown += un;
        ++st.warp_evals;
        if (tr > 0 && fa > 0) {
            if (st.divergent_warp_evals == 0)
                st.first_divergent_warp = w, st.first_divergent_true = tr, st.first_divergent_false = fa;
            ++st.divergent_warp_evals;
        }
    }
}

void TraceRecorder::sync(const ir::Stmt& s, SyncEvent ev) {
    ev.stmt = &s;
    ev.loc = s.loc;
    ev.interval_before = interval_;
    ev.interval_start = interval_start_;
    ev.call_sites = call_sites_;
    out_.syncs.push_back(std::move(ev));
    ++interval_;
    interval_start_ = &s;
}

void TraceRecorder::warp_call(const ir::Expr& call, WarpCallEvent ev) {
    ev.call = &call;
    ev.loc = call.loc;
    ev.call_sites = call_sites_;
    out_.warp_calls.push_back(std::move(ev));
}

}  // namespace weft::compiler::audit
