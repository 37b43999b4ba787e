// The lane-vector interpreter (see simt_eval.h for what it models and why): expressions,
// @wp.func calls and control flow under per-thread masks. Integer arithmetic on lane vectors is
// lane_val.cpp; what becomes an event of the trace, and with which position, trace_recorder.cpp.
#include "compiler/audit/simt_eval.h"

#include <algorithm>
#include <functional>
#include <set>
#include <unordered_map>

#include "compiler/audit/trace_recorder.h"
#include "compiler/ir/ir_visitor.h"

namespace weft::compiler::audit {

namespace {

using ir::Expr;
using ir::ExprKind;
using ir::Stmt;
using ir::StmtKind;

class Simulator : private ir::ExprFunctor<LaneVal(const Expr&, const Mask&)>,
                  private ir::StmtFunctor<void(const Stmt&, const Mask&)> {
public:
    Simulator(const ir::Function& f, const LaunchModel& launch, int64_t block, Trace& out)
        : f_(f), launch_(launch), out_(out), rec_(out) {
        bd_ = std::clamp(launch.block_dim, 1, kMaxBlockDim);
        n_ = bd_;
        out_.block_idx = block;
        out_.block_dim = bd_;
        out_.tid.resize(static_cast<size_t>(n_));
        valid_.assign(static_cast<size_t>(n_), 0);
        int64_t total = launched_threads(f, launch);
        for (int t = 0; t < n_; ++t) {
            out_.tid[static_cast<size_t>(t)] = block * bd_ + t;
            valid_[static_cast<size_t>(t)] = total < 0 || block * bd_ + t < total;
        }
        out_.nthreads = static_cast<int>(std::count(valid_.begin(), valid_.end(), 1));
        returned_.assign(static_cast<size_t>(n_), 0);
        maybe_.assign(static_cast<size_t>(n_), 0);
        maybe_div_.assign(static_cast<size_t>(n_), 0);
        maybe_gone_.assign(static_cast<size_t>(n_), 0);
        maybe_exited_.assign(static_cast<size_t>(n_), 0);
        gone_loc_.assign(static_cast<size_t>(n_), SourceLoc{});
        gone_why_.assign(static_cast<size_t>(n_), "");
    }

    void run() {
        exec_block(f_.body, valid_);
        rec_.finish();
    }

private:
    struct LoopFrame {
        Mask broken, continued;
    };
    struct Ctl {
        SourceLoc cond;
        Mask entering, taken;
        bool unknown_varying = false;
        bool varying = false;
        const char* side = "";
    };

    const ir::Function& f_;
    const LaunchModel& launch_;
    Trace& out_;
    TraceRecorder rec_;
    int bd_ = 0, n_ = 0;
    Mask valid_, returned_, maybe_, maybe_div_, maybe_exited_,
        maybe_gone_;  // maybe_gone_: perhaps returned  // maybe_div_: under an undecided *varying* condition
    std::vector<SourceLoc> gone_loc_;
    std::vector<std::string> gone_why_;
    std::unordered_map<int, LaneVal> env_;
    std::unordered_map<int, const ir::Var*> alias_;
    std::vector<LoopFrame> loops_;
    std::vector<Ctl> ctl_;
    int abstract_loops_ = 0;
    int quiet_ = 0;  // > 0: evaluate without recording accesses (re-evaluations)
    // Calls of @wp.func being interpreted: where each was called, and what its returns produced.
    struct CallFrame {
        LaneVal value;  // the return value per thread (known where every return agreed)
        Mask set;       // threads that executed a return with a value
        bool have_sym = false;
    };
    std::vector<CallFrame> frames_;
    SymbolTable syms_;

    // ---- helpers ----
    uint32_t sym(const std::string& key) { return syms_.get(key); }
    bool any(const Mask& m) const { return std::find(m.begin(), m.end(), 1) != m.end(); }
    int count(const Mask& m) const { return static_cast<int>(std::count(m.begin(), m.end(), 1)); }
    bool ctl_varying() const {
        for (const auto& c : ctl_)
            if (c.varying) return true;
        return false;
    }
    Mask live(const Mask& m) const {
        Mask r = m;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (returned_[i]) r[i] = 0;
            if (!loops_.empty() && (loops_.back().broken[i] || loops_.back().continued[i])) r[i] = 0;
        }
        return r;
    }
    const ir::Var* array_var(const Expr& e) {
        if (e.kind != ExprKind::VarRef || !e.var) return nullptr;
        auto it = alias_.find(e.var->id);
        return it != alias_.end() ? it->second : e.var;
    }

    // ---- expressions ----
    LaneVal opaque(const Expr& e, const Mask& m, bool extra_varying = false) {
        bool v = extra_varying;
        for (const auto& a : e.args)
            if (a) v = eval(*a, m).varying || v;
        return LaneVal::unknown(n_, v);
    }

    LaneVal intrinsic(const Expr& e) {
        using I = ir::IntrinsicOp;
        LaneVal r = LaneVal::constant(n_, 0);
        const auto& dims = launch_.dims;
        switch (static_cast<I>(e.op)) {
            case I::Tid:
                if (!is_intlike(e.type)) return LaneVal::unknown(n_, true);
                for (int t = 0; t < n_; ++t) r.off[static_cast<size_t>(t)] = out_.tid[static_cast<size_t>(t)];
                r.varying = true;
                return r;
            case I::TidDim: {
                if (dims.size() < 2 && e.int_value == 0) {
                    for (int t = 0; t < n_; ++t) r.off[static_cast<size_t>(t)] = out_.tid[static_cast<size_t>(t)];
                    r.varying = true;
                    return r;
                }
                if (dims.empty() || e.int_value >= static_cast<int64_t>(dims.size())) return LaneVal::unknown(n_, true);
                int64_t inner = 1;
                for (size_t k = static_cast<size_t>(e.int_value) + 1; k < dims.size(); ++k)
                    inner *= std::max<int64_t>(1, dims[k]);
                int64_t d = std::max<int64_t>(1, dims[static_cast<size_t>(e.int_value)]);
                for (int t = 0; t < n_; ++t) r.off[static_cast<size_t>(t)] = (out_.tid[static_cast<size_t>(t)] / inner) % d;
                r.varying = true;
                return r;
            }
            case I::BlockDim: return LaneVal::constant(n_, bd_);
            case I::BlockIdx: return LaneVal::constant(n_, out_.block_idx);
            case I::ThreadIdx:
                for (int t = 0; t < n_; ++t) r.off[static_cast<size_t>(t)] = t;
                r.varying = true;
                return r;
            case I::LaneId:
                for (int t = 0; t < n_; ++t) r.off[static_cast<size_t>(t)] = t % kWarpSize;
                r.varying = true;
                return r;
            case I::GridDim: {
                int64_t b = launch_.block_count();
                if (b >= 0) return LaneVal::constant(n_, b);
                r.sym = sym("grid_dim");
                return r;
            }
            default: return LaneVal::unknown(n_, false);
        }
    }

    LaneVal shape(const Expr& e) {
        const ir::Var* a = e.args.empty() ? nullptr : array_var(*e.args[0]);
        int dim = static_cast<int>(e.int_value);
        if (a && a->kind == ir::VarKind::Shared && dim < static_cast<int>(a->shared_shape.size()))
            return LaneVal::constant(n_, a->shared_shape[static_cast<size_t>(dim)]);
        if (a) {
            auto it = launch_.shapes.find(a->name);
            if (it != launch_.shapes.end() && dim < static_cast<int>(it->second.size()))
                return LaneVal::constant(n_, it->second[static_cast<size_t>(dim)]);
        }
        LaneVal r = LaneVal::constant(n_, 0);
        r.sym = sym("shape(" + (a ? std::to_string(a->id) : std::string("?")) + "," + std::to_string(dim) + ")");
        return r;
    }

    // Evaluates the indices and records the access; returns whether any index varies.
    bool record(const Expr* array, const std::vector<ir::ExprPtr>& idx_exprs, size_t first, size_t count, SourceLoc loc,
                bool write, bool atomic, const Mask& m, MemberBytes bytes) {
        std::vector<LaneVal> idx;
        bool varying = false;
        for (size_t k = 0; k < count; ++k) {
            idx.push_back(eval(*idx_exprs[first + k], m));
            varying = varying || idx.back().varying;
        }
        const ir::Var* a = array ? array_var(*array) : nullptr;
        if (!a || !is_array(a->type) || quiet_ > 0) return varying;
        Mask maybe(static_cast<size_t>(n_), 0);
        for (int t = 0; t < n_; ++t)
            if (m[static_cast<size_t>(t)] &&
                (maybe_[static_cast<size_t>(t)] || maybe_gone_[static_cast<size_t>(t)] || abstract_loops_ > 0))
                maybe[static_cast<size_t>(t)] = 1;
        rec_.access(a, loc, write, atomic, bytes, std::move(idx), m, std::move(maybe));
        return varying;
    }

    LaneVal load(const Expr& e, const Mask& m, MemberBytes bytes) {
        bool v = record(e.args[0].get(), e.args, 1, e.args.size() - 1, e.loc, false, false, m, bytes);
        return LaneVal::unknown(n_, v);
    }

    LaneVal eval(const Expr& e, const Mask& m) { return ExprFunctor::visit(e, m); }

    LaneVal visit_Const(const Expr& e, const Mask&) override {
        if (is_intlike(e.type)) return LaneVal::constant(n_, e.int_value);
        return LaneVal::unknown(n_, false);
    }
    LaneVal visit_VarRef(const Expr& e, const Mask&) override {
        if (!e.var) return LaneVal::unknown(n_, false);
        auto it = env_.find(e.var->id);
        if (it != env_.end()) return it->second;
        if (e.var->kind == ir::VarKind::Param && is_intlike(e.var->type)) {
            // Kernel parameters only: a func's parameters are always bound in env_.
            if (auto a = launch_.args.find(e.var->name); a != launch_.args.end()) return LaneVal::constant(n_, a->second);
            LaneVal r = LaneVal::constant(n_, 0);
            r.sym = sym("param(" + std::to_string(e.var->id) + ")");
            return r;
        }
        return LaneVal::unknown(n_, false);
    }
    LaneVal visit_Unary(const Expr& e, const Mask& m) override {
        LaneVal a = eval(*e.args[0], m);
        if (!is_intlike(e.type) || a.sym != 0) return LaneVal::unknown(n_, a.varying);
        for (int64_t& x : a.off) {
            switch (static_cast<ir::UnaryOp>(e.op)) {
                case ir::UnaryOp::Neg: x = -x; break;
                case ir::UnaryOp::Not: x = !x; break;
                case ir::UnaryOp::BitNot: x = ~x; break;
            }
        }
        return a;
    }
    LaneVal visit_Binary(const Expr& e, const Mask& m) override {
        LaneVal a = eval(*e.args[0], m), b = eval(*e.args[1], m);
        if (!is_intlike(e.type)) return LaneVal::unknown(n_, a.varying || b.varying);
        return lane_binary(e.op, a, b, m, syms_);
    }
    LaneVal visit_Compare(const Expr& e, const Mask& m) override {
        LaneVal a = eval(*e.args[0], m), b = eval(*e.args[1], m);
        if (!is_intlike(e.args[0]->type) || !is_intlike(e.args[1]->type)) return LaneVal::unknown(n_, a.varying || b.varying);
        return lane_compare(e.op, a, b, m, syms_);
    }
    LaneVal visit_Logical(const Expr& e, const Mask& m) override {
        LaneVal a = eval(*e.args[0], m), b = eval(*e.args[1], m);
        LaneVal r = LaneVal::unknown(n_, a.varying || b.varying);
        bool is_and = static_cast<ir::LogicalOp>(e.op) == ir::LogicalOp::And;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            bool ka = a.exact(t), kb = b.exact(t);
            if (ka && kb)
                r.known[i] = 1, r.off[i] = is_and ? (a.off[i] && b.off[i]) : (a.off[i] || b.off[i]);
            else if (ka && is_and && !a.off[i])
                r.known[i] = 1, r.off[i] = 0;
            else if (ka && !is_and && a.off[i])
                r.known[i] = 1, r.off[i] = 1;
            else if (kb && is_and && !b.off[i])
                r.known[i] = 1, r.off[i] = 0;
            else if (kb && !is_and && b.off[i])
                r.known[i] = 1, r.off[i] = 1;
        }
        return r;
    }
    LaneVal visit_Select(const Expr& e, const Mask& m) override {
        LaneVal c = eval(*e.args[0], m), a = eval(*e.args[1], m), b = eval(*e.args[2], m);
        LaneVal r = LaneVal::unknown(n_, c.varying || a.varying || b.varying);
        if (!is_intlike(e.type) || a.sym != b.sym) return r;
        r.sym = a.sym;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (c.exact(t)) {
                const LaneVal& s = c.off[i] ? a : b;
                r.known[i] = s.known[i], r.off[i] = s.off[i];
            } else if (a.known[i] && b.known[i] && a.off[i] == b.off[i]) {
                r.known[i] = 1, r.off[i] = a.off[i];
            }
        }
        return r;
    }
    LaneVal visit_Call(const Expr& e, const Mask& m) override {
        std::vector<LaneVal> args;
        bool v = false, exact = true;
        for (const auto& a : e.args) {
            args.push_back(eval(*a, m));
            v = v || args.back().varying;
            exact = exact && args.back().sym == 0 && is_intlike(a->type);
        }
        if (e.builtin && (e.builtin->flags & BuiltinFlags_Warp) && !args.empty() && quiet_ == 0) {
            warp_call(e, args[0], m);
            // A shuffle gives each lane another lane's value: varying. A vote gives every lane of
            // the warp the same answer, so a branch on it does not diverge within the warp.
            return LaneVal::unknown(n_, e.builtin->name.rfind("shfl", 0) == 0);
        }
        const std::string name = e.builtin ? e.builtin->name : "";
        LaneVal r = LaneVal::unknown(n_, v);
        if (!exact || !is_intlike(e.type)) return r;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            bool all = true;
            for (const auto& a : args) all = all && a.known[i];
            if (!all) continue;
            if (name == "min" && args.size() == 2)
                r.off[i] = std::min(args[0].off[i], args[1].off[i]);
            else if (name == "max" && args.size() == 2)
                r.off[i] = std::max(args[0].off[i], args[1].off[i]);
            else if (name == "abs" && args.size() == 1)
                r.off[i] = args[0].off[i] < 0 ? -args[0].off[i] : args[0].off[i];
            else if (name == "clamp" && args.size() == 3)
                r.off[i] = std::clamp(args[0].off[i], args[1].off[i], std::max(args[1].off[i], args[2].off[i]));
            else if (name == "floordiv" && args.size() == 2)
                r.off[i] = floordiv(args[0].off[i], args[1].off[i]);
            else
                continue;
            r.known[i] = 1;
        }
        return r;
    }
    LaneVal visit_Cast(const Expr& e, const Mask& m) override {
        LaneVal a = eval(*e.args[0], m);
        if (is_intlike(e.type) && is_intlike(e.args[0]->type)) return a;
        return LaneVal::unknown(n_, a.varying);
    }
    LaneVal visit_Load(const Expr& e, const Mask& m) override { return load(e, m, {}); }
    LaneVal member(const Expr& e, const Mask& m) {
        // a[i].field / a[i][k]: the access moves only the member's bytes.
        std::vector<const Expr*> steps;
        const Expr* base = &e;
        while ((base->kind == ExprKind::Field ||
                (base->kind == ExprKind::Extract && base->args.size() == 2 && ir::is_const(base->args[1]))) &&
               !base->args.empty()) {
            steps.insert(steps.begin(), base);
            base = base->args[0].get();
        }
        if (base->kind == ExprKind::Load) return load(*base, m, load_member_bytes(base->type, steps));
        return opaque(e, m);
    }
    LaneVal visit_Field(const Expr& e, const Mask& m) override { return member(e, m); }
    LaneVal visit_Extract(const Expr& e, const Mask& m) override { return member(e, m); }
    LaneVal visit_TupleGet(const Expr& e, const Mask& m) override {
        const Expr& t = *e.args[0];
        if (t.kind == ExprKind::Intrinsic && static_cast<ir::IntrinsicOp>(t.op) == ir::IntrinsicOp::Tid) {
            auto tid_dim = ir::make_intrinsic(ir::IntrinsicOp::TidDim, int32_type(), e.loc, e.int_value);
            return intrinsic(*tid_dim);
        }
        return opaque(e, m);
    }
    LaneVal visit_Atomic(const Expr& e, const Mask& m) override {
        size_t nidx = static_cast<size_t>(e.int_value);
        record(e.args[0].get(), e.args, 1, nidx, e.loc, true, true, m, {});
        for (size_t k = 1 + nidx; k < e.args.size(); ++k) eval(*e.args[k], m);
        return LaneVal::unknown(n_, true);
    }
    LaneVal visit_Intrinsic(const Expr& e, const Mask&) override { return intrinsic(e); }
    LaneVal visit_Shape(const Expr& e, const Mask&) override { return shape(e); }
    LaneVal visit_CallFunc(const Expr& e, const Mask& m) override { return call_func(e, m); }
    LaneVal visit_Construct(const Expr& e, const Mask& m) override { return opaque(e, m); }
    LaneVal visit_MakeTuple(const Expr& e, const Mask& m) override { return opaque(e, m); }

    // A call of a @wp.func runs the func's body here, for the calling threads, as if it were
    // inlined: its accesses and barriers are recorded at their own lines (with the call site),
    // integer arguments carry their per-thread values in, array arguments name the caller's
    // array, and the return value comes back where every return a thread executed agrees.
    // The func gets its own variables, loops and "has returned" state; the caller's are restored.
    LaneVal call_func(const Expr& e, const Mask& m) {
        std::vector<LaneVal> args;
        std::vector<const ir::Var*> arrays;
        bool v = false;
        for (const auto& a : e.args) {
            args.push_back(eval(*a, m));
            arrays.push_back(is_array(a->type) ? array_var(*a) : nullptr);
            v = v || args.back().varying;
        }
        const ir::Function* fn = e.func;
        if (!fn || quiet_ > 0 || frames_.size() >= kMaxCallDepth || fn->params.size() != e.args.size())
            return LaneVal::unknown(n_, v || ctl_varying());
        auto saved_env = std::move(env_);
        auto saved_alias = std::move(alias_);
        auto saved_loops = std::move(loops_);
        env_.clear(), alias_.clear(), loops_.clear();
        Mask saved_returned = returned_, saved_gone = maybe_gone_, saved_exited = maybe_exited_;
        auto saved_gone_loc = gone_loc_;
        auto saved_gone_why = gone_why_;
        for (size_t k = 0; k < fn->params.size(); ++k) {
            const ir::Var* p = fn->params[k];
            if (is_array(p->type)) {
                if (arrays[k]) alias_[p->id] = arrays[k];
            } else {
                env_[p->id] = args[k];
            }
        }
        rec_.enter_call(e.loc);
        frames_.push_back({LaneVal::unknown(n_, false), Mask(static_cast<size_t>(n_), 0), false});
        exec_block(fn->body, m);
        CallFrame frame = std::move(frames_.back());
        frames_.pop_back();
        rec_.leave_call();
        env_ = std::move(saved_env), alias_ = std::move(saved_alias), loops_ = std::move(saved_loops);
        returned_ = saved_returned, maybe_gone_ = saved_gone, maybe_exited_ = saved_exited;
        gone_loc_ = std::move(saved_gone_loc), gone_why_ = std::move(saved_gone_why);
        LaneVal r = std::move(frame.value);
        for (int t = 0; t < n_; ++t)
            if (!frame.set[static_cast<size_t>(t)]) r.known[static_cast<size_t>(t)] = 0;
        if (!is_intlike(e.type)) r = LaneVal::unknown(n_, r.varying);
        r.varying = r.varying || ctl_varying();
        return r;
    }

    // `return value` inside a func: merge the value into the innermost call's result.
    void merge_return(const LaneVal& v, const Mask& m) {
        CallFrame& f = frames_.back();
        if (!f.have_sym) f.value.sym = v.sym, f.have_sym = true;
        f.value.varying = f.value.varying || v.varying || ctl_varying();
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (!m[i]) continue;
            bool ok = v.known[i] && v.sym == f.value.sym;
            if (!f.set[i]) {
                f.set[i] = 1;
                f.value.known[i] = ok;
                f.value.off[i] = v.off[i];
            } else if (!ok || !f.value.known[i] || f.value.off[i] != v.off[i]) {
                f.value.known[i] = 0;
            }
        }
    }

    // ---- statements ----
    void assign(const ir::Var* v, LaneVal value, const Mask& m) {
        if (!v) return;
        if (ctl_varying()) value.varying = true;
        auto it = env_.find(v->id);
        bool all = true;
        for (int t = 0; t < n_; ++t)
            if (valid_[static_cast<size_t>(t)] && !m[static_cast<size_t>(t)]) all = false;
        if (it == env_.end() || all) {
            for (int t = 0; t < n_; ++t)
                if (maybe_[static_cast<size_t>(t)] && m[static_cast<size_t>(t)] && it != env_.end() &&
                    !(it->second.sym == value.sym && it->second.known[static_cast<size_t>(t)] &&
                      value.known[static_cast<size_t>(t)] &&
                      it->second.off[static_cast<size_t>(t)] == value.off[static_cast<size_t>(t)]))
                    value.known[static_cast<size_t>(t)] = 0;
            env_[v->id] = std::move(value);
            return;
        }
        LaneVal& old = it->second;
        LaneVal merged = value;
        merged.varying = old.varying || value.varying;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            bool same = old.sym == value.sym && old.known[i] && value.known[i] && old.off[i] == value.off[i];
            if (m[i] && !maybe_[i]) continue;  // takes the new value
            if (m[i] && maybe_[i]) {
                if (!same) merged.known[i] = 0;
                continue;
            }
            // keeps its old value: representable only under the same symbol
            if (old.sym == merged.sym)
                merged.known[i] = old.known[i], merged.off[i] = old.off[i];
            else
                merged.known[i] = 0;
        }
        old = std::move(merged);
    }

    void collect_assigned(const ir::Block& b, std::set<const ir::Var*>& out) {
        for (const auto& s : b) {
            if ((s->kind == StmtKind::Assign || s->kind == StmtKind::For) && s->var) out.insert(s->var);
            collect_assigned(s->body, out);
            collect_assigned(s->orelse, out);
        }
    }

    void branch_stats(const Stmt& s, const SourceLoc& cond_loc, bool loop, const LaneVal& c, const Mask& m, bool bound_guard) {
        rec_.branch(s, cond_loc, loop, c, m, bound_guard);
    }

    // `i < n`, `i >= a.shape[0]`…: one side varies with consecutive lanes, the other is uniform.
    bool is_bound_guard(const Expr& cond, const Mask& m) {
        const Expr* c = &cond;
        if (c->kind == ExprKind::Logical) return false;
        if (c->kind != ExprKind::Compare) return false;
        ++quiet_;
        LaneVal a = eval(*c->args[0], m), b = eval(*c->args[1], m);
        --quiet_;
        auto consecutive = [&](const LaneVal& v) {
            int64_t prev = 0;
            bool have = false;
            for (int t = 0; t < n_; ++t) {
                size_t i = static_cast<size_t>(t);
                if (!m[i]) continue;
                if (!v.known[i]) return false;
                if (have && std::llabs(v.off[i] - prev) != 1) return false;
                prev = v.off[i], have = true;
            }
            return have;
        };
        // The uniform side must come from the launch's data sizes (a parameter or a shape), not
        // from a block-level constant like a reduction's stride.
        std::function<bool(const Expr&)> from_data = [&](const Expr& x) {
            if (x.kind == ExprKind::Shape) return true;
            if (x.kind == ExprKind::VarRef && x.var && x.var->kind == ir::VarKind::Param) return true;
            for (const auto& a : x.args)
                if (a && from_data(*a)) return true;
            return false;
        };
        return (consecutive(a) && lane_uniform(b, m) && from_data(*c->args[1])) ||
               (consecutive(b) && lane_uniform(a, m) && from_data(*c->args[0]));
    }

    void exec_if(const Stmt& s, const Mask& m) {
        LaneVal c = eval(*s.value, m);
        Mask then_m(static_cast<size_t>(n_), 0), else_m(static_cast<size_t>(n_), 0), unk(static_cast<size_t>(n_), 0);
        bool unknown_varying = false;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (!m[i]) continue;
            if (c.exact(t))
                (c.off[i] ? then_m : else_m)[i] = 1;
            else
                then_m[i] = else_m[i] = unk[i] = 1, unknown_varying = unknown_varying || c.varying;
        }
        bool guard = c.varying && is_bound_guard(*s.value, m);
        branch_stats(s, expr_span(*s.value), false, c, m, guard);
        Mask saved_maybe = maybe_, saved_div = maybe_div_;
        for (int t = 0; t < n_; ++t)
            if (unk[static_cast<size_t>(t)]) {
                maybe_[static_cast<size_t>(t)] = 1;
                if (c.varying) maybe_div_[static_cast<size_t>(t)] = 1;
            }
        bool split = any(unk);
        auto before = env_;
        ctl_.push_back({expr_span(*s.value), m, then_m, unknown_varying, c.varying, "then"});
        if (any(then_m)) exec_block(s.body, then_m);
        ctl_.pop_back();
        if (!split) {
            ctl_.push_back({expr_span(*s.value), m, else_m, unknown_varying, c.varying, "else"});
            if (any(else_m)) exec_block(s.orelse, else_m);
            ctl_.pop_back();
            maybe_ = saved_maybe, maybe_div_ = saved_div;
            return;
        }
        auto after_then = env_;
        env_ = before;
        ctl_.push_back({expr_span(*s.value), m, else_m, unknown_varying, c.varying, "else"});
        if (any(else_m)) exec_block(s.orelse, else_m);
        ctl_.pop_back();
        maybe_ = saved_maybe, maybe_div_ = saved_div;
        // Threads that took both sides keep a value only where both sides agree.
        for (auto& [id, v] : env_) {
            auto it = after_then.find(id);
            if (it == after_then.end()) continue;
            const LaneVal& tv = it->second;
            for (int t = 0; t < n_; ++t) {
                size_t i = static_cast<size_t>(t);
                if (!unk[i]) continue;
                if (!(tv.sym == v.sym && tv.known[i] && v.known[i] && tv.off[i] == v.off[i])) v.known[i] = 0;
            }
            v.varying = v.varying || tv.varying || c.varying;
        }
        for (auto& [id, v] : after_then)
            if (!env_.count(id)) env_[id] = LaneVal::unknown(n_, true);
    }

    void run_abstract_loop(const Stmt& s, const Mask& m, bool varying, const SourceLoc& cond_loc) {
        out_.approximations.push_back("loop at line " + std::to_string(s.loc.display_line()) + " run abstractly");
        std::set<const ir::Var*> assigned;
        collect_assigned(s.body, assigned);
        for (const ir::Var* v : assigned) {
            auto it = env_.find(v->id);
            bool was = it != env_.end() && it->second.varying;
            env_[v->id] = LaneVal::unknown(n_, was || varying);
        }
        if (s.kind == StmtKind::For && s.var) env_[s.var->id] = LaneVal::unknown(n_, varying);
        ctl_.push_back({cond_loc, m, m, varying, varying, "loop"});
        ++abstract_loops_;
        for (int pass = 0; pass < 2; ++pass) {
            loops_.push_back({Mask(static_cast<size_t>(n_), 0), Mask(static_cast<size_t>(n_), 0)});
            exec_block(s.body, m);
            loops_.pop_back();
            for (const ir::Var* v : assigned) {
                auto it = env_.find(v->id);
                bool vv = it != env_.end() && it->second.varying;
                env_[v->id] = LaneVal::unknown(n_, vv || varying);
            }
        }
        --abstract_loops_;
        ctl_.pop_back();
    }

    void exec_loop(const Stmt& s, const Mask& m0) {
        bool is_for = s.kind == StmtKind::For;
        LaneVal start, stop, step, var;
        if (is_for) {
            start = eval(*s.start, m0);
            stop = eval(*s.stop, m0);
            step = s.step ? eval(*s.step, m0) : LaneVal::constant(n_, 1);
            var = start;
        }
        SourceLoc cond_loc = is_for ? s.loc : expr_span(*s.value);
        Mask m = m0;
        bool taint = is_for && (start.varying || stop.varying || step.varying);
        for (int iter = 0;; ++iter) {
            m = live(m);
            LaneVal c;
            if (is_for) {
                c = LaneVal::unknown(n_, taint);
                bool ok = start.sym == stop.sym && step.sym == 0;
                for (int t = 0; ok && t < n_; ++t) {
                    size_t i = static_cast<size_t>(t);
                    if (!m[i]) continue;
                    if (!var.known[i] || !stop.known[i] || !step.known[i] || step.off[i] == 0) {
                        ok = false;
                        break;
                    }
                    c.known[i] = 1;
                    c.off[i] = step.off[i] > 0 ? var.off[i] < stop.off[i] : var.off[i] > stop.off[i];
                }
                if (!ok) c = LaneVal::unknown(n_, taint);
            } else {
                c = eval(*s.value, m);
                taint = taint || c.varying;
            }
            bool known = true;
            for (int t = 0; t < n_; ++t)
                if (m[static_cast<size_t>(t)] && !c.exact(t)) known = false;
            branch_stats(s, cond_loc, true, c, m, false);
            if (!known || iter >= kMaxIterations) {
                if (any(m)) run_abstract_loop(s, m, taint, cond_loc);
                return;
            }
            Mask body_m(static_cast<size_t>(n_), 0);
            for (int t = 0; t < n_; ++t)
                if (m[static_cast<size_t>(t)] && c.off[static_cast<size_t>(t)]) body_m[static_cast<size_t>(t)] = 1;
            if (!any(body_m)) return;
            bool partial = count(body_m) != count(m);
            if (is_for && s.var) {
                LaneVal v = var;
                v.varying = taint;
                env_[s.var->id] = v;
            }
            loops_.push_back({Mask(static_cast<size_t>(n_), 0), Mask(static_cast<size_t>(n_), 0)});
            ctl_.push_back({cond_loc, m, body_m, false, taint && partial, "loop"});
            exec_block(s.body, body_m);
            ctl_.pop_back();
            Mask broken = loops_.back().broken;
            loops_.pop_back();
            for (int t = 0; t < n_; ++t) {
                size_t i = static_cast<size_t>(t);
                if (!body_m[i] || broken[i]) m[i] = 0;
            }
            if (is_for)
                for (int t = 0; t < n_; ++t) var.off[static_cast<size_t>(t)] += step.off[static_cast<size_t>(t)];
        }
    }

    // What took thread t away from the statement being executed: the enclosing condition that is
    // false for it, the loop that ended, or the return or break it took.
    void why_missing(int t, SourceLoc* loc, std::string* why) const {
        size_t i = static_cast<size_t>(t);
        *why = "";
        for (const auto& c : ctl_)
            if (c.entering[i] && !c.taken[i]) {
                *loc = c.cond;
                *why = std::string(c.side == std::string("then")   ? "the condition is false"
                                   : c.side == std::string("else") ? "the condition is true"
                                                                   : "the loop has ended") +
                       " for it";
                return;
            }
        if (gone_loc_[i].valid()) *loc = gone_loc_[i], *why = gone_why_[i];
    }

    // A warp collective called by the threads of `m` with `mask` (its first argument): for a mask
    // known to be 0xffffffff, the first warp that some of its lanes reach and others do not.
    void warp_call(const Expr& e, const LaneVal& mask, const Mask& m0) {
        Mask m = live(m0);
        WarpCallEvent ev;
        ev.builtin = e.builtin->name;
        ev.full_mask = true;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (m[i] && !(mask.sym == 0 && mask.known[i] && (mask.off[i] & 0xffffffff) == 0xffffffff)) ev.full_mask = false;
        }
        for (int w = 0; ev.full_mask && w * kWarpSize < bd_ && ev.warp < 0; ++w) {
            int reached = 0, first = -1, lanes = 0;
            bool maybe = false;
            for (int l = 0; l < kWarpSize; ++l) {
                const int t = w * kWarpSize + l;
                const bool exists = t < n_ && valid_[static_cast<size_t>(t)];
                lanes += exists;
                if (exists && m[static_cast<size_t>(t)]) {
                    ++reached;
                    if (first < 0 && (maybe_div_[static_cast<size_t>(t)] || maybe_exited_[static_cast<size_t>(t)]))
                        first = l, maybe = true;
                } else if (first < 0 || maybe) {
                    first = l, maybe = false;
                }
            }
            if (reached == 0 || first < 0) continue;
            ev.warp = w, ev.reached = reached, ev.lanes = lanes, ev.missing_lane = first, ev.missing_maybe = maybe;
            const int t = w * kWarpSize + first;
            if (t >= n_ || !valid_[static_cast<size_t>(t)]) {
                ev.why = "does not exist (the block's threads end at " + std::to_string(out_.nthreads) + ")";
                ev.exited = true;
            } else if (maybe) {
                ev.why = "may not reach it";
                for (const auto& c : ctl_)
                    if (c.unknown_varying) {
                        ev.why_loc = c.cond;
                        ev.why = "may not reach it: the condition varies between lanes";
                        break;
                    }
                if (maybe_exited_[static_cast<size_t>(t)])
                    ev.why_loc = gone_loc_[static_cast<size_t>(t)], ev.why = "may have returned";
            } else {
                why_missing(t, &ev.why_loc, &ev.why);
                ev.exited = returned_[static_cast<size_t>(t)] != 0;
                if (ev.why.empty()) ev.why = "does not reach it";
            }
        }
        rec_.warp_call(e, std::move(ev));
    }

    void exec_sync(const Stmt& s, const Mask& m) {
        SyncEvent ev;
        ev.in_abstract_loop = abstract_loops_ > 0;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (!valid_[i]) continue;
            ++ev.live;
            if (m[i]) {
                ++ev.reached;
                if (maybe_div_[i] || maybe_exited_[i]) ev.maybe_missing.push_back(t);
            } else {
                ev.missing.push_back(t);
            }
        }
        for (const auto& c : ctl_)
            if (c.unknown_varying) {
                ev.unknown_cond = c.cond;
                break;
            }
        if (!ev.missing.empty()) {
            why_missing(ev.missing.front(), &ev.why_loc, &ev.why);
        } else if (!ev.maybe_missing.empty()) {
            size_t i = static_cast<size_t>(ev.maybe_missing.front());
            if (maybe_exited_[i]) ev.why_loc = gone_loc_[i], ev.why = "may have " + gone_why_[i];
        }
        rec_.sync(s, std::move(ev));
    }

    void exec_stmt(const Stmt& s, const Mask& m) { StmtFunctor::visit(s, m); }

    void visit_Assign(const Stmt& s, const Mask& m) override {
        if (!s.var) return;
        if (is_array(s.var->type) && s.path.empty()) {
            if (const ir::Var* a = s.value ? array_var(*s.value) : nullptr) alias_[s.var->id] = a;
            return;
        }
        LaneVal v = s.value ? eval(*s.value, m) : LaneVal::unknown(n_, false);
        for (const auto& p : s.path)
            for (const auto& ix : p.indices) v.varying = eval(*ix, m).varying || v.varying;
        if (!s.path.empty() || !is_intlike(s.var->type)) {
            bool was = env_.count(s.var->id) && env_[s.var->id].varying;
            v = LaneVal::unknown(n_, v.varying || (!s.path.empty() && was));
        }
        assign(s.var, std::move(v), m);
    }
    void visit_Store(const Stmt& s, const Mask& m) override {
        if (s.value) eval(*s.value, m);
        MemberBytes bytes;
        if (!s.path.empty() && s.array && is_array(s.array->type)) bytes = store_member_bytes(s.array->type->elem, s.path);
        record(s.array.get(), s.indices, 0, s.indices.size(), s.loc, true, false, m, bytes);
    }
    void visit_Eval(const Stmt& s, const Mask& m) override {
        if (s.value) eval(*s.value, m);
    }
    void visit_If(const Stmt& s, const Mask& m) override { exec_if(s, m); }
    void visit_For(const Stmt& s, const Mask& m) override { exec_loop(s, m); }
    void visit_While(const Stmt& s, const Mask& m) override { exec_loop(s, m); }
    void leave_iteration(const Stmt& s, const Mask& m) {
        if (loops_.empty()) return;
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (!m[i] || maybe_[i]) continue;
            (s.kind == StmtKind::Break ? loops_.back().broken : loops_.back().continued)[i] = 1;
            if (s.kind == StmtKind::Break) gone_loc_[i] = s.loc, gone_why_[i] = "left the loop (break)";
        }
    }
    void visit_Break(const Stmt& s, const Mask& m) override { leave_iteration(s, m); }
    void visit_Continue(const Stmt& s, const Mask& m) override { leave_iteration(s, m); }
    void visit_Return(const Stmt& s, const Mask& m) override {
        if (s.value) {
            LaneVal v = eval(*s.value, m);
            if (!frames_.empty()) merge_return(v, m);
        }
        for (int t = 0; t < n_; ++t) {
            size_t i = static_cast<size_t>(t);
            if (!m[i]) continue;
            if (!maybe_[i])
                returned_[i] = 1;
            else
                maybe_gone_[i] = 1;
            if (maybe_[i] && maybe_div_[i]) maybe_exited_[i] = 1;
            gone_loc_[i] = s.loc, gone_why_[i] = "returned";
        }
    }
    void visit_Sync(const Stmt& s, const Mask& m) override { exec_sync(s, m); }

    void exec_block(const ir::Block& b, const Mask& mask) {
        for (const auto& s : b) {
            Mask m = live(mask);
            if (!any(m)) return;
            exec_stmt(*s, m);
        }
    }
};

}  // namespace

int64_t LaunchModel::total_threads() const {
    if (dims.empty()) return -1;
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

int64_t LaunchModel::block_count() const {
    int64_t n = total_threads();
    if (n < 0 || block_dim <= 0) return -1;
    return (n + block_dim - 1) / block_dim;
}

int64_t launched_threads(const ir::Function& f, const LaunchModel& launch) {
    int64_t n = launch.total_threads();
    int64_t blocks = launch.block_count();
    if (n < 0 || blocks < 0 || !f.uses_sync) return n;
    return blocks * launch.block_dim;
}

Trace simulate_block(const ir::Function& f, const LaunchModel& launch, int64_t block_idx) {
    Trace t;
    Simulator sim(f, launch, block_idx, t);
    sim.run();
    return t;
}

}  // namespace weft::compiler::audit
