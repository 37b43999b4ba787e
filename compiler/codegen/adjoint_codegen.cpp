// Backward bodies of kernels and funcs: the forward sweep with its tape, and the reverse sweep.
// See adjoint_codegen.h for the output and docs/autodiff.md for the method.
//
// Statement rules (FS: forward sweep, RS: reverse sweep; `push`/`pop` use the per-thread tape):
//   x.path = e      FS: push x (if the reverse sweep reads x); x.path = e
//                   RS: pop x; recompute e; g = adj_x.path; adj_x.path = 0; reverse of e with g
//   a[i].path = e   FS: nothing (the forward launch stored it)
//                   RS: recompute e; reverse of e with grad_a[i].path (the output's gradient)
//   eval e          FS: e without memory effects       RS: reverse of e with a zero adjoint
//   if c            FS: the branch taken; push c       RS: pop c; the branch's reverse
//   for / while     FS: iterate, push the trip count   RS: pop n; n times the body's reverse
//                   (for: the loop variable is pushed before each iteration assigns it)
// Vars that a builtin changes in place (random states) are pushed with the statement, and put
// back after the reverse sweep recomputes the statement.
#include "compiler/codegen/adjoint_codegen.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "compiler/codegen/adjoint_expr.h"
#include "compiler/codegen/kernel_entries.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/passes/check_differentiable.h"

namespace weft::compiler {
namespace {

using ir::ExprKind;
using ir::ExprPtr;
using ir::StmtKind;
using passes::is_differentiable;

// Collects the variables that the visited expressions read.
class VarsRead : public ir::IRVisitor {
public:
    std::set<const ir::Var*> vars;

protected:
    void visit_VarRef(const ir::Expr& e) override { vars.insert(e.var); }
};

// Vars passed to an in-place (inout) builtin parameter: the statement changes them too.
class InoutVars : public ir::IRVisitor {
public:
    std::vector<const ir::Var*> vars;

protected:
    void visit_Call(const ir::Expr& e) override {
        if (e.builtin)
            for (size_t i = 0; i < e.args.size() && i < e.builtin->params.size(); ++i)
                if (e.builtin->params[i].inout && e.args[i]->kind == ExprKind::VarRef &&
                    std::find(vars.begin(), vars.end(), e.args[i]->var) == vars.end())
                    vars.push_back(e.args[i]->var);  // once: randn(state) + randn(state) saves state once
        IRVisitor::visit_Call(e);
    }
};

std::vector<const ir::Var*> inout_vars(const ir::Stmt& s) {
    InoutVars v;
    v.visit_expr(s.value);
    for (const auto& i : s.indices) v.visit_expr(i);
    return v.vars;
}

// Variables read by expressions that the reverse sweep recomputes (those of assignments, stores
// and evaluated expressions; not conditions or loop bounds): these are restored.
class ReverseReads : public VarsRead {
public:
    void visit_expr(const ExprPtr& e) override {
        if (recomputed_) VarsRead::visit_expr(e);
    }

protected:
    void recomputed(const ir::Stmt& s) {
        recomputed_ = true;
        visit_children(s);
        recomputed_ = false;
    }
    void visit_Assign(const ir::Stmt& s) override { recomputed(s); }
    void visit_Store(const ir::Stmt& s) override { recomputed(s); }
    void visit_Eval(const ir::Stmt& s) override { recomputed(s); }

private:
    bool recomputed_ = false;
};

// What the two sweeps of one body share: the output, the expression printer, the restored
// variables, the temporaries and the counter that names the sweeps' locals (n0_, n1_, ...: the
// reverse sweep goes on numbering where the forward sweep stopped).
class Sweep : public ir::StmtFunctor<void(const ir::Stmt&, int)> {
public:
    Sweep(std::ostream& os, CppExprPrinter& p, const std::set<const ir::Var*>& reads, TempPool& temps, int& counter)
        : os_(os), p_(p), reads_(reads), temps_(temps), counter_(counter) {}

protected:
    bool restored(const ir::Var* v) const { return reads_.count(v) > 0; }
    std::string pad(int ind) const { return std::string(static_cast<size_t>(ind) * 4, ' '); }
    std::string counter() { return "n" + std::to_string(counter_++) + "_"; }

    std::ostream& os_;
    CppExprPrinter& p_;
    const std::set<const ir::Var*>& reads_;
    TempPool& temps_;
    int& counter_;
};

// The forward sweep: the statements in order, without memory side effects, filling the tape.
class ForwardSweep : public Sweep {
public:
    using Sweep::Sweep;

    void block(const ir::Block& b, int ind) {
        for (const auto& s : b) {
            os_ << p_.line_directive(s->loc);
            visit(*s, ind);
        }
    }

protected:
    void visit_Assign(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        for (const ir::Var* v : inout_vars(s)) os_ << P << "tape_.push(" << cpp_var_name(v) << ");\n";
        if (restored(s.var)) os_ << P << "tape_.push(" << cpp_var_name(s.var) << ");\n";
        os_ << P << p_.path_ref(cpp_var_name(s.var), s.var->type, s.path) << " = " << p_.expr(s.value) << ";\n";
        if (is_array(s.var->type) && s.path.empty()) {
            std::string ga = AdjointExpr::adjoint_array(s.value);
            os_ << P << adj_var_name(s.var) << " = " << (ga.empty() ? cpp_type_name(s.var->type) + "{}" : ga) << ";\n";
        }
    }
    void visit_Store(const ir::Stmt& s, int ind) override { store_or_eval(s, ind); }
    void visit_Eval(const ir::Stmt& s, int ind) override { store_or_eval(s, ind); }
    void store_or_eval(const ir::Stmt& s, int ind) {
        std::string P = pad(ind);
        auto inout = inout_vars(s);
        for (const ir::Var* v : inout) os_ << P << "tape_.push(" << cpp_var_name(v) << ");\n";
        bool is_print = s.value->kind == ExprKind::Intrinsic && s.value->op == static_cast<int>(ir::IntrinsicOp::Print);
        if (is_print || (s.kind == StmtKind::Store && inout.empty())) return;
        os_ << P << "(void)(" << p_.expr(s.value) << ");\n";
    }
    void visit_If(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        std::string c = counter();
        // The branch is pushed after the branch's own pushes, so that it is on top of the
        // tape when the reverse sweep reaches this statement.
        os_ << P << "{\n" << P << "const bool " << c << " = " << p_.expr(s.value) << ";\n";
        os_ << P << "if (" << c << ") {\n";
        block(s.body, ind + 1);
        os_ << P << "} else {\n";
        block(s.orelse, ind + 1);
        os_ << P << "}\n" << P << "tape_.push(" << c << ");\n" << P << "}\n";
    }
    void visit_For(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        std::string n = counter(), tn = cpp_type_name(s.var->type);
        std::string it = n + "it", stop = n + "stop", step = n + "step";
        os_ << P << "{\n" << P << "wp::int32 " << n << " = 0;\n";
        os_ << P << "const " << tn << " " << stop << " = " << p_.expr(s.stop) << ";\n";
        os_ << P << "const " << tn << " " << step << " = " << p_.expr(s.step) << ";\n";
        std::string cond = ir::is_const(s.step) ? (s.step->int_value > 0 ? it + " < " + stop : it + " > " + stop)
                                                : "(" + step + " > 0 ? " + it + " < " + stop + " : " + it + " > " + stop + ")";
        os_ << P << "for (" << tn << " " << it << " = " << p_.expr(s.start) << "; " << cond << "; " << it << " = static_cast<"
            << tn << ">(" << it << " + " << step << ")) {\n";
        if (restored(s.var)) os_ << P << "    tape_.push(" << cpp_var_name(s.var) << ");\n";
        os_ << P << "    " << cpp_var_name(s.var) << " = " << it << ";\n";
        os_ << P << "    ++" << n << ";\n";
        os_ << P << "    wp::loop_poll(ctx);\n";
        block(s.body, ind + 1);
        os_ << P << "}\n" << P << "tape_.push(" << n << ");\n" << P << "}\n";
    }
    void visit_While(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        std::string n = counter();
        os_ << P << "{\n" << P << "wp::int32 " << n << " = 0;\n";
        os_ << P << "while (" << p_.expr(s.value) << ") {\n" << P << "    ++" << n << ";\n" << P << "    wp::loop_poll(ctx);\n";
        block(s.body, ind + 1);
        os_ << P << "}\n" << P << "tape_.push(" << n << ");\n" << P << "}\n";
    }
    void visit_Sync(const ir::Stmt&, int ind) override { os_ << pad(ind) << "wp::sync_threads(ctx);\n"; }
    // Lowered by lower_jumps; never here.
    void visit_Break(const ir::Stmt&, int) override {}
    void visit_Continue(const ir::Stmt&, int) override {}
    void visit_Return(const ir::Stmt&, int) override {}
};

// The reverse sweep: the statements backwards, popping the tape and applying the adjoint rules.
class ReverseSweep : public Sweep {
public:
    using Sweep::Sweep;

    void block(const ir::Block& b, int ind) {
        for (auto it = b.rbegin(); it != b.rend(); ++it) {
            os_ << p_.line_directive((*it)->loc);
            visit(**it, ind);
        }
    }

protected:
    // Pops the in-place vars of a statement and keeps their values, to put back after the
    // statement's recomputation changed them again.
    std::string restore_inout(const std::vector<const ir::Var*>& vars, std::string& put_back, const std::string& P) {
        std::string s;
        for (auto it = vars.rbegin(); it != vars.rend(); ++it) s += P + "tape_.pop(" + cpp_var_name(*it) + ");\n";
        for (const ir::Var* v : vars) {
            std::string keep = "keep_" + cpp_var_name(v);
            s += P + "const " + cpp_type_name(v->type) + " " + keep + " = " + cpp_var_name(v) + ";\n";
            put_back += P + cpp_var_name(v) + " = " + keep + ";\n";
        }
        return s;
    }

    static Type type_at(Type t, const std::vector<ir::PathStep>& path) { return path.empty() ? t : path.back().type; }

    void visit_Assign(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        os_ << P << "{\n";
        if (restored(s.var)) os_ << P << "tape_.pop(" << cpp_var_name(s.var) << ");\n";
        std::string put_back;
        os_ << restore_inout(inout_vars(s), put_back, P);
        Type t = type_at(s.var->type, s.path);
        if (is_differentiable(t) && !is_array(t)) {
            AdjointExpr a(p_, temps_);
            auto root = a.linearize(s.value);
            os_ << a.forward();
            std::string target = p_.path_ref(adj_var_name(s.var), s.var->type, s.path);
            if (!root.adj.empty()) os_ << P << "wp::adj_accum(" << root.adj << ", " << target << ");\n";
            os_ << P << target << " = " << cpp_type_name(t) << "{};\n";
            os_ << a.reverse();
        } else if (!put_back.empty()) {
            os_ << P << "(void)(" << p_.expr(s.value) << ");\n";
        }
        if (is_array(s.var->type) && restored(s.var))
            os_ << P << adj_var_name(s.var) << " = " << cpp_type_name(s.var->type) << "{};\n";
        os_ << put_back << P << "}\n";
    }
    void visit_Store(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        os_ << P << "{\n";
        std::string put_back;
        os_ << restore_inout(inout_vars(s), put_back, P);
        std::string ga = AdjointExpr::adjoint_array(s.array);
        Type t = type_at(s.array->type->elem, s.path);
        if (!ga.empty() && is_differentiable(t)) {
            AdjointExpr a(p_, temps_);
            auto root = a.linearize(s.value);
            os_ << a.forward();
            std::vector<std::string> idx;
            for (const auto& i : s.indices) idx.push_back(p_.expr(i));
            std::string g = p_.path_ref("(*" + p_.address(ga, idx, s.loc) + ")", s.array->type->elem, s.path);
            if (!root.adj.empty()) os_ << P << "if ((" << ga << ").data) wp::adj_accum(" << root.adj << ", " << g << ");\n";
            os_ << a.reverse();
        } else if (!put_back.empty()) {
            os_ << P << "(void)(" << p_.expr(s.value) << ");\n";
        }
        os_ << put_back << P << "}\n";
    }
    void visit_Eval(const ir::Stmt& s, int ind) override {
        if (s.value->kind == ExprKind::Intrinsic) return;
        std::string P = pad(ind);
        os_ << P << "{\n";
        std::string put_back;
        os_ << restore_inout(inout_vars(s), put_back, P);
        AdjointExpr a(p_, temps_);
        a.linearize(s.value);
        os_ << a.forward() << a.reverse() << put_back << P << "}\n";
    }
    void visit_If(const ir::Stmt& s, int ind) override {
        std::string P = pad(ind);
        std::string c = counter();
        os_ << P << "{\n" << P << "bool " << c << " = false;\n" << P << "tape_.pop(" << c << ");\n";
        os_ << P << "if (" << c << ") {\n";
        block(s.body, ind + 1);
        os_ << P << "} else {\n";
        block(s.orelse, ind + 1);
        os_ << P << "}\n" << P << "}\n";
    }
    void visit_For(const ir::Stmt& s, int ind) override { loop(s, ind); }
    void visit_While(const ir::Stmt& s, int ind) override { loop(s, ind); }
    void loop(const ir::Stmt& s, int ind) {
        std::string P = pad(ind);
        std::string n = counter();
        os_ << P << "{\n" << P << "wp::int32 " << n << " = 0;\n" << P << "tape_.pop(" << n << ");\n";
        os_ << P << "for (wp::int32 " << n << "k = 0; " << n << "k < " << n << "; ++" << n << "k) {\n";
        block(s.body, ind + 1);
        if (s.kind == StmtKind::For && restored(s.var)) os_ << P << "    tape_.pop(" << cpp_var_name(s.var) << ");\n";
        os_ << P << "}\n" << P << "}\n";
    }
    void visit_Sync(const ir::Stmt&, int ind) override { os_ << pad(ind) << "wp::sync_threads(ctx);\n"; }
    // Lowered by lower_jumps; never here.
    void visit_Break(const ir::Stmt&, int) override {}
    void visit_Continue(const ir::Stmt&, int) override {}
    void visit_Return(const ir::Stmt&, int) override {}
};

class ReverseEmitter {
public:
    ReverseEmitter(std::ostream& os, CppExprPrinter& p, const ir::Function& f, const passes::JumpFreeBody& lowered)
        : os_(os), p_(p), f_(f), lowered_(lowered) {
        ReverseReads r;
        r.visit_block(lowered_.body);
        reads_ = std::move(r.vars);
    }

    const passes::JumpFreeBody& lowered() const { return lowered_; }

    // Declarations of every variable and its adjoint (params excepted: the caller declares them).
    void declare() {
        auto decl = [&](const ir::Var* v) {
            if (v->kind == ir::VarKind::Param) return;
            std::string tn = cpp_type_name(v->type);
            os_ << "    " << tn << " " << cpp_var_name(v) << "{};\n";
            os_ << "    " << tn << " " << adj_var_name(v) << "{};\n";
        };
        for (const auto& v : f_.vars) decl(v.get());
        for (const auto& v : lowered_.vars) decl(v.get());
    }

    void forward_sweep() { ForwardSweep(os_, p_, reads_, temps_, counter_).block(lowered_.body, 1); }
    void reverse_sweep() { ReverseSweep(os_, p_, reads_, temps_, counter_).block(lowered_.body, 1); }

private:
    std::ostream& os_;
    CppExprPrinter& p_;
    const ir::Function& f_;
    const passes::JumpFreeBody& lowered_;
    std::set<const ir::Var*> reads_;
    TempPool temps_;
    int counter_ = 0;
};

std::string adj_param_type(Type t) { return is_array(t) ? cpp_type_name(t) : cpp_type_name(t) + "&"; }

}  // namespace

std::string cpp_sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out += (isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    return out;
}
std::string cpp_var_name(const ir::Var* v) { return cpp_sanitize(v->name) + "_" + std::to_string(v->id); }
std::string cpp_func_name(const ir::Function* f) { return "wpf_" + cpp_sanitize(f->name) + f->cpp_suffix; }

void emit_adjoint_prelude(std::ostream& os, const AdjointOptions& o) {
    os << "using adj_tape_t = wp::adj_tape<" << o.tape_bytes << ">;\n\n";
}

void emit_adjoint_struct(std::ostream& os, Type s) {
    std::string n = cpp_type_name(s);
    os << "namespace wp {\nstatic WP_FUNC void adj_accum(" << n << "& a, const " << n << "& b) {\n";
    for (const auto& f : s->fields)
        os << "    wp::adj_accum(a." << cpp_sanitize(f.name) << ", b." << cpp_sanitize(f.name) << ");\n";
    os << "}\n";
    // d(a[i]) for an array of structs: each differentiable field atomically
    os << "static WP_FUNC void adj_atomic_accum(" << n << "* a, const " << n << "& b) {\n    (void)a; (void)b;\n";
    for (const auto& f : s->fields)
        if (is_differentiable(f.type))
            os << "    wp::adj_atomic_accum(&a->" << cpp_sanitize(f.name) << ", b." << cpp_sanitize(f.name) << ");\n";
    os << "}\n}  // namespace wp\n\n";
}

void emit_adjoint_func(std::ostream& os, CppExprPrinter& p, const ir::Function& f, const passes::JumpFreeBody& lowered) {
    ReverseEmitter r(os, p, f, lowered);
    os << p.line_directive(f.loc);
    os << "template <bool WpC>\nstatic WP_FUNC void adj_" << cpp_func_name(&f)
       << "(const wp::thread_ctx& ctx, const wp::launch_bounds_t& bounds, adj_tape_t& tape_";
    for (const ir::Var* v : f.params) os << ", " << cpp_type_name(v->type) << " " << cpp_var_name(v);
    for (const ir::Var* v : f.params) os << ", " << adj_param_type(v->type) << " " << adj_var_name(v);
    bool has_ret = f.ret && f.ret != void_type();
    if (has_ret) os << ", const " << cpp_type_name(f.ret) << "& adj_ret_";
    os << ") {\n    (void)ctx; (void)bounds;\n";
    os << "    wp::int32 tid_[4]; wp::tid_split(bounds, ctx.tid, tid_); (void)tid_;\n";
    r.declare();
    r.forward_sweep();
    os << "    if (tape_.overflow) return;\n";
    if (has_ret && r.lowered().ret_value) os << "    wp::adj_accum(" << adj_var_name(r.lowered().ret_value) << ", adj_ret_);\n";
    r.reverse_sweep();
    os << "}\n\n";
}

void emit_adjoint_kernel(std::ostream& os, CppExprPrinter& p, const ir::Function& k, const passes::JumpFreeBody& lowered,
                         KernelInfo& info, const AdjointOptions& o) {
    std::string K = cpp_sanitize(k.name);
    // Argument block: the primal K_args, then one gradient array per array or float parameter,
    // then the status array.
    info.adj_params.clear();
    info.adj_param_of.clear();
    size_t off = (info.args_size + 7) / 8 * 8;
    os << "struct " << K << "_args_adj {\n    " << K << "_args primal;\n";
    for (size_t i = 0; i < k.params.size(); ++i) {
        Type t = k.params[i]->type;
        Type at = nullptr;
        if (is_array(t))
            at = t;
        else if (holds_arrays(t))
            at = t;  // the struct with its array fields' gradient arrays (runtime: launch_adjoint)
        else if (is_differentiable(t) && !is_struct(t) && !is_tuple(t))
            at = array_type(t, 1);
        if (!at) continue;
        off = (off + type_align(at) - 1) / type_align(at) * type_align(at);
        info.adj_params.push_back({"adj_" + k.params[i]->name, at, off});
        info.adj_param_of.push_back(static_cast<int>(i));
        os << "    " << cpp_type_name(at) << " adj_" << cpp_sanitize(k.params[i]->name) << ";\n";
        off += type_size(at);
    }
    Type status_t = array_type(int32_type(), 1);
    off = (off + type_align(status_t) - 1) / type_align(status_t) * type_align(status_t);
    info.adj_status_offset = off;
    off += type_size(status_t);
    info.adj_args_align = std::max<size_t>(info.args_align, type_align(status_t));
    info.adj_args_size = (off + info.adj_args_align - 1) / info.adj_args_align * info.adj_args_align;
    os << "    wp::array_t<wp::int32> status_;\n};\n";
    os << "static_assert(sizeof(" << K << "_args_adj) == " << info.adj_args_size << ", \"adjoint argument block of " << k.name
       << "\");\n";

    ReverseEmitter r(os, p, k, lowered);
    os << p.line_directive(k.loc);
    os << "template <bool WpC>\nstatic WP_FUNC void " << K
       << "_body_backward(const wp::thread_ctx& ctx, const wp::launch_bounds_t& bounds, const " << K << "_args_adj& args) {\n";
    os << "    wp::int32 tid_[4]; wp::tid_split(bounds, ctx.tid, tid_); (void)tid_;\n";
    for (const ir::Var* v : k.params) {
        std::string tn = cpp_type_name(v->type);
        os << "    " << tn << " " << cpp_var_name(v) << " = args.primal." << cpp_sanitize(v->name) << ";\n";
        if (is_array(v->type) || holds_arrays(v->type))
            os << "    " << tn << " " << adj_var_name(v) << " = args.adj_" << cpp_sanitize(v->name) << ";\n";
        else
            os << "    " << tn << " " << adj_var_name(v) << "{};\n";
    }
    os << "    adj_tape_t tape_;\n";
    r.declare();
    r.forward_sweep();
    os << "    if (!tape_.overflow) {\n";
    r.reverse_sweep();
    os << "    }\n";
    for (size_t j = 0; j < info.adj_params.size(); ++j) {
        const ir::Var* v = k.params[static_cast<size_t>(info.adj_param_of[j])];
        if (is_array(v->type) || holds_arrays(v->type)) continue;
        std::string a = "args.adj_" + cpp_sanitize(v->name);
        os << "    if (" << a << ".data) wp::adj_atomic_accum(" << a << ".data, " << adj_var_name(v) << ");\n";
    }
    os << "    if (tape_.overflow) wp::adj_report_overflow(args.status_, " << k.loc.display_line() << ", " << o.tape_bytes
       << ");\n";
    os << "}\n";

    info.has_backward = true;
    info.cpu_range_backward_symbol = K + "_cpu_range_backward";
    info.cpu_thread_backward_symbol = K + "_cpu_thread_backward";
    info.cuda_backward_symbol = K + "_cuda_backward";
    emit_backward_entries(os, info);
}

}  // namespace weft::compiler
