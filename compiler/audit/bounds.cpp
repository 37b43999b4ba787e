// Array bounds: is every index of every access inside the array's shape?
//
// Two layers. With concrete numbers (shared arrays always; global arrays with --shape and --dim),
// the interpreter's per-thread indices are checked against the extents over the blocks of the
// launch (every block up to kAllBlocks blocks, else the first and last two: indices affine in tid
// peak at the ends). An index that is out of range on a path the thread certainly takes is an
// error (certainly out of bounds); on a path it only perhaps takes, a warning (possibly); either
// way the witness is the thread and the index.
//
// Without the numbers, the condition under which the access is safe is stated as a note, from
// the guards that dominate it: `if i < a.shape[0]:` or `if i >= a.shape[0]: return` prove it;
// `if i < n:` gives "safe if n <= a.shape[0]"; an unguarded index tid + c gives
// "safe if dim + c <= a.shape[0]".
//
// The threads are those that run the body (launched_threads): for a kernel that calls
// wp.sync_threads(), every thread of the last block, past dim too, because its generated code
// cannot return early before a barrier and wp.launch takes only whole blocks for it. A witness
// past dim says so, and a --dim that is not a whole number of blocks gets a note saying which
// launch was audited instead (the one wp.launch accepts).
#include <climits>
#include <deque>
#include <map>
#include <set>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

constexpr int64_t kAllBlocks = 64;

using ir::Expr;
using ir::ExprKind;
using ir::Stmt;
using ir::StmtKind;

struct Fact {
    const Expr* cond;
    bool positive;
};

struct Site {
    std::vector<const Expr*> indices;
    std::vector<Fact> facts;
};

using LocKey = std::pair<int, int>;

// Records, for every array access, its index expressions and the conditions that dominate it.
class GuardCollector {
public:
    std::map<LocKey, Site> sites;
    // Array parameters of called funcs -> the caller's array they were passed (first call site).
    std::map<const ir::Var*, const ir::Var*> alias;

    const ir::Var* resolve(const ir::Var* v) const {
        for (int depth = 0; depth < 16; ++depth) {
            auto it = alias.find(v);
            if (it == alias.end()) break;
            v = it->second;
        }
        return v;
    }

    void block(const ir::Block& b, std::vector<Fact> facts) {
        for (const auto& s : b) {
            stmt(*s, facts);
            // `if c: return` (no else) guards the rest of the block with `not c`.
            if (s->kind == StmtKind::If && s->orelse.empty() && !s->body.empty() &&
                (s->body.back()->kind == StmtKind::Return || s->body.back()->kind == StmtKind::Continue))
                facts.push_back({s->value.get(), false});
            if (s->kind == StmtKind::If && s->body.empty() == false && !s->orelse.empty() &&
                s->orelse.back()->kind == StmtKind::Return)
                facts.push_back({s->value.get(), true});
        }
    }

private:
    void expr(const Expr& e, const std::vector<Fact>& facts) {
        if (e.kind == ExprKind::Load || e.kind == ExprKind::Atomic) {
            size_t n = e.kind == ExprKind::Load ? e.args.size() - 1 : static_cast<size_t>(e.int_value);
            Site st;
            for (size_t k = 0; k < n; ++k) st.indices.push_back(e.args[1 + k].get());
            st.facts = facts;
            sites[{e.loc.line, e.loc.col}] = st;
        }
        for (const auto& a : e.args)
            if (a) expr(*a, facts);
        // A func's accesses are guarded by the func's own conditions (the caller's are about
        // other variables), so its body starts with no facts.
        if (e.kind == ExprKind::CallFunc && e.func && visited_.insert(e.func).second) {
            for (size_t k = 0; k < e.args.size() && k < e.func->params.size(); ++k)
                if (e.args[k]->kind == ExprKind::VarRef && e.args[k]->var && is_array(e.args[k]->type))
                    alias.emplace(e.func->params[k], e.args[k]->var);
            block(e.func->body, {});
        }
    }
    std::set<const ir::Function*> visited_;
    void stmt(const Stmt& s, const std::vector<Fact>& facts) {
        for (const ir::ExprPtr* p : {&s.value, &s.start, &s.stop, &s.step})
            if (*p) expr(**p, facts);
        for (const auto& i : s.indices) expr(*i, facts);
        if (s.kind == StmtKind::Store) {
            Site st;
            for (const auto& i : s.indices) st.indices.push_back(i.get());
            st.facts = facts;
            sites[{s.loc.line, s.loc.col}] = st;
        }
        if (s.kind == StmtKind::If) {
            auto t = facts;
            t.push_back({s.value.get(), true});
            block(s.body, t);
            auto f = facts;
            f.push_back({s.value.get(), false});
            block(s.orelse, f);
        } else if (s.kind == StmtKind::While) {
            auto t = facts;
            t.push_back({s.value.get(), true});
            block(s.body, t);
        } else if (s.kind == StmtKind::For) {
            block(s.body, facts);
        }
    }
};

// Splits conjunctions and normalises each comparison to `lhs < rhs` / `lhs <= rhs` form.
void upper_bounds(const Fact& f, std::vector<std::pair<const Expr*, std::pair<const Expr*, bool>>>& out) {
    const Expr& c = *f.cond;
    if (c.kind == ExprKind::Logical && f.positive && static_cast<ir::LogicalOp>(c.op) == ir::LogicalOp::And) {
        upper_bounds({c.args[0].get(), true}, out);
        upper_bounds({c.args[1].get(), true}, out);
        return;
    }
    if (c.kind == ExprKind::Logical && !f.positive && static_cast<ir::LogicalOp>(c.op) == ir::LogicalOp::Or) {
        upper_bounds({c.args[0].get(), false}, out);
        upper_bounds({c.args[1].get(), false}, out);
        return;
    }
    if (c.kind != ExprKind::Compare) return;
    using C = ir::CompareOp;
    C op = static_cast<C>(c.op);
    if (!f.positive) {
        switch (op) {
            case C::Lt: op = C::Ge; break;
            case C::Le: op = C::Gt; break;
            case C::Gt: op = C::Le; break;
            case C::Ge: op = C::Lt; break;
            default: return;
        }
    }
    const Expr* a = c.args[0].get();
    const Expr* b = c.args[1].get();
    // (x, (bound, strict)): x < bound (strict) or x <= bound
    if (op == C::Lt) out.push_back({a, {b, true}});
    if (op == C::Le) out.push_back({a, {b, false}});
    if (op == C::Gt) out.push_back({b, {a, true}});
    if (op == C::Ge) out.push_back({b, {a, false}});
}

bool same(const Expr* a, const Expr* b) { return ir::print(*a) == ir::print(*b); }

struct Witness {
    bool have = false;
    int64_t tid = 0, thread = 0, block = 0, index = 0;
    std::vector<SourceLoc> calls;  // the func calls that led to the access
};

struct Check1 {
    const AccessEvent* ev = nullptr;
    int64_t extent = -1;
    Witness certain, maybe;
    bool unresolved = false;  // some index unknown
    bool all_exact = true;
    int64_t max_index = INT64_MIN;
    bool tid_relative = true;  // index == tid + c for every thread seen
    int64_t tid_offset = 0;
    bool have_offset = false;
};

// The note of a barrier kernel audited with a --dim that is not a whole number of blocks, at its
// first barrier (block 0 reaches it, else the kernel's definition).
Finding whole_blocks_note(const ir::Function& k, const LaunchModel& launch, const Trace& block0) {
    Finding f;
    f.check = Check::Bounds;
    f.severity = FindingSeverity::Note;
    f.loc = capture_loc(block0.syncs.empty() ? k.loc : block0.syncs.front().loc);
    const int64_t stated = launch.total_threads(), blocks = launch.block_count();
    f.message = "launch of " + std::to_string(stated) + " threads is not a whole number of blocks of " +
                std::to_string(launch.block_dim) +
                ": wp.launch rejects it for a kernel that calls wp.sync_threads(); audited as " + std::to_string(blocks) +
                " blocks (" + std::to_string(blocks * launch.block_dim) + " threads), every thread of which runs the kernel";
    if (!block0.syncs.empty()) add_call_notes(f, block0.syncs.front().call_sites);
    return f;
}

}  // namespace

std::vector<Finding> audit_bounds(const ir::Function& k, const LaunchModel& launch) {
    GuardCollector guards;
    guards.block(k.body, {});

    std::vector<int64_t> blocks = {0};
    int64_t nb = launch.block_count();
    if (nb > 1) {
        blocks.clear();
        if (nb <= kAllBlocks) {
            for (int64_t b = 0; b < nb; ++b) blocks.push_back(b);
        } else {
            blocks = {0, 1, nb - 2, nb - 1};
        }
    }
    bool dims_known = !launch.dims.empty();
    const int64_t stated = launch.total_threads();
    const int64_t launched = launched_threads(k, launch);
    std::map<std::pair<LocKey, size_t>, Check1> checks;
    std::deque<AccessEvent> kept;  // the first event of each access (the blocks' traces are dropped)
    std::vector<Finding> out;
    for (int64_t b : blocks) {
        Trace tr = simulate_block(k, launch, b);
        if (b == 0 && launched != stated) out.push_back(whole_blocks_note(k, launch, tr));
        for (const AccessEvent& ev : tr.accesses) {
            for (size_t d = 0; d < ev.indices.size(); ++d) {
                Check1& c = checks[{{ev.loc.line, ev.loc.col}, d}];
                if (!c.ev) {
                    kept.push_back(ev);
                    c.ev = &kept.back();
                }
                int64_t extent = -1;
                if (ev.shared) {
                    if (d < ev.array->shared_shape.size()) extent = ev.array->shared_shape[d];
                } else if (auto it = launch.shapes.find(ev.array->name); it != launch.shapes.end() && d < it->second.size()) {
                    extent = it->second[d];
                }
                c.extent = extent;
                const LaneVal& v = ev.indices[d];
                for (int t = 0; t < static_cast<int>(ev.active.size()); ++t) {
                    size_t i = static_cast<size_t>(t);
                    if (!ev.active[i]) continue;
                    if (!v.exact(t)) {
                        c.unresolved = true, c.all_exact = false;
                        continue;
                    }
                    int64_t x = v.off[i];
                    c.max_index = std::max(c.max_index, x);
                    int64_t off = x - tr.tid[i];
                    if (!c.have_offset)
                        c.tid_offset = off, c.have_offset = true;
                    else if (off != c.tid_offset)
                        c.tid_relative = false;
                    // Without --dim, tid-derived indices of global arrays are only block 0's.
                    bool trusted = ev.shared || dims_known;
                    if (extent < 0 || !trusted || (x >= 0 && x < extent)) continue;
                    Witness& w = ev.maybe[i] ? c.maybe : c.certain;
                    if (!w.have) w = {true, tr.tid[i], t, tr.block_idx, x, ev.call_sites};
                }
            }
        }
    }

    for (const auto& [key, c] : checks) {
        const AccessEvent& ev = *c.ev;
        size_t d = key.second;
        std::string name = ev.array->name;
        std::string idx_text = access_text(ev.loc);
        std::string dim_text = ev.indices.size() > 1 ? " in dimension " + std::to_string(d) : "";
        const char* what = ev.atomic ? "updates" : ev.write ? "writes" : "reads";
        const Witness& w = c.certain.have ? c.certain : c.maybe;
        // A possible overrun behind a guard on this very index (`if i >= n: return`) is the
        // guard's business: say what the guard must satisfy instead of warning.
        std::string guard_condition;
        if (!c.certain.have && c.maybe.have) {
            auto site_it = guards.sites.find(key.first);
            if (site_it != guards.sites.end() && d < site_it->second.indices.size()) {
                std::vector<std::pair<const Expr*, std::pair<const Expr*, bool>>> ubs;
                for (const Fact& f : site_it->second.facts) upper_bounds(f, ubs);
                for (const auto& [x, bound] : ubs)
                    if (same(x, site_it->second.indices[d]) && bound.first->kind != ExprKind::Load) {
                        guard_condition = "safe if " + source_text(expr_span(*bound.first)) + (bound.second ? " <= " : " < ") +
                                          std::to_string(c.extent) + " (" + name + ".shape[" + std::to_string(d) + "])";
                        break;
                    }
            }
        }
        if (!guard_condition.empty()) {
            Finding f;
            f.check = Check::Bounds;
            f.severity = FindingSeverity::Note;
            f.loc = capture_loc(ev.loc);
            f.message = "bounds of '" + idx_text + "' not proven" + dim_text + ": " + guard_condition;
            out.push_back(std::move(f));
            continue;
        }
        if (w.have) {
            Finding f;
            f.check = Check::Bounds;
            f.severity = c.certain.have ? FindingSeverity::Error : FindingSeverity::Warning;
            f.loc = capture_loc(ev.loc);
            f.message = std::string(c.certain.have ? "out-of-bounds access" : "possibly out-of-bounds access") + ": '" +
                        idx_text + "' " + what + " index " + std::to_string(w.index) + dim_text + " of '" + name + "' (size " +
                        std::to_string(c.extent) + ")";
            f.notes.push_back({{},
                               "witness: thread " + std::to_string(w.thread) + " of block " + std::to_string(w.block) + " (tid " +
                                   std::to_string(w.tid) + ")" +
                                   (c.certain.have ? "" : ", on a path that depends on a condition the audit cannot decide")});
            if (stated >= 0 && w.tid >= stated)
                f.notes.push_back({{},
                                   "tid " + std::to_string(w.tid) + " is past the launch's " + std::to_string(stated) +
                                       " threads, yet runs: a kernel that calls wp.sync_threads() runs every thread of its "
                                       "last block (" +
                                       std::to_string(launched) + " threads); guard the access with `if i < n:`"});
            add_call_notes(f, w.calls);
            out.push_back(std::move(f));
            continue;
        }
        bool trusted = ev.shared || dims_known;
        if (c.extent >= 0 && c.all_exact && trusted) continue;  // proven for every thread simulated
        // Symbolic: is it guarded?
        auto site_it = guards.sites.find(key.first);
        const Expr* index =
            site_it != guards.sites.end() && d < site_it->second.indices.size() ? site_it->second.indices[d] : nullptr;
        std::string shape_text = name + ".shape[" + std::to_string(d) + "]";
        std::string condition;
        if (index) {
            std::vector<std::pair<const Expr*, std::pair<const Expr*, bool>>> ubs;
            for (const Fact& f : site_it->second.facts) upper_bounds(f, ubs);
            bool proven = false;
            for (const auto& [x, bound] : ubs) {
                if (!same(x, index)) continue;
                const Expr* b = bound.first;
                if (bound.second && b->kind == ExprKind::Shape && b->int_value == static_cast<int64_t>(d) && !b->args.empty() &&
                    b->args[0]->kind == ExprKind::VarRef && guards.resolve(b->args[0]->var) == ev.array) {
                    proven = true;
                    break;
                }
                if (condition.empty())
                    condition = "safe if " + source_text(expr_span(*b)) + (bound.second ? " <= " : " < ") + shape_text;
            }
            if (proven) continue;
        }
        if (c.extent >= 0 && !ev.shared && !dims_known && c.tid_relative && c.have_offset && !c.unresolved) {
            condition = "safe if dim " +
                        (c.tid_offset ? (c.tid_offset > 0 ? "+ " : "- ") + std::to_string(std::llabs(c.tid_offset)) + " "
                                      : std::string()) +
                        "<= " + std::to_string(c.extent) + " (" + shape_text + ")";
        }
        if (condition.empty()) {
            if (c.all_exact && dims_known)
                condition = "safe if " + shape_text + " >= " + std::to_string(c.max_index + 1);
            else if (c.all_exact && c.tid_relative && c.have_offset)
                condition = "safe if dim " +
                            (c.tid_offset ? (c.tid_offset > 0 ? "+ " : "- ") + std::to_string(std::llabs(c.tid_offset)) + " "
                                          : std::string()) +
                            "<= " + shape_text;
            else
                condition = "safe if every value of '" + (index ? source_text(expr_span(*index)) : std::string("the index")) +
                            "' is in [0, " + (c.extent >= 0 ? std::to_string(c.extent) : shape_text) + ")";
        }
        Finding f;
        f.check = Check::Bounds;
        f.severity = FindingSeverity::Note;
        f.loc = capture_loc(ev.loc);
        f.message = "bounds of '" + idx_text + "' not proven" + dim_text + ": " + condition;
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace weft::compiler::audit
