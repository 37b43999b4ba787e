// check_differentiable. See check_differentiable.h.
//
// Walks every kernel that has an adjoint and every func it reaches (once each; a func with a
// @wp.func_grad is not entered, its custom adjoint replaces its body's). A call of a builtin is on
// a differentiable path when its result and at least one argument are differentiable; such a call
// needs BuiltinFlags_Differentiable.
#include "compiler/passes/check_differentiable.h"

#include <set>

#include "compiler/ir/ir_visitor.h"

namespace weft::compiler::passes {

bool is_differentiable(Type t) {
    if (!t) return false;
    switch (t->kind) {
        case TypeKind::Scalar:
        case TypeKind::Vector:
        case TypeKind::Matrix:
        case TypeKind::Quat:
        case TypeKind::Transform: return t->scalar == ScalarKind::Float32 || t->scalar == ScalarKind::Float64;
        case TypeKind::Struct:
            for (const auto& f : t->fields)
                if (is_differentiable(f.type)) return true;
            return false;
        case TypeKind::Tuple:
            for (Type i : t->items)
                if (is_differentiable(i)) return true;
            return false;
        default: return false;
    }
}

Type custom_grad_return_type(const ir::Function& f) {
    std::vector<Type> items;
    for (const ir::Var* p : f.params)
        if (!is_array(p->type)) items.push_back(p->type);
    if (items.empty()) return void_type();
    if (items.size() == 1) return items[0];
    return tuple_type(items);
}

bool has_adjoint(const ir::Function& k, std::string* why_not) {
    std::string why;
    if (!k.enable_backward)
        why = "it is declared with enable_backward=False";
    else if (k.uses_sync)
        why = "it calls wp.sync_threads() (adjoints of block-synchronised kernels are not supported)";
    else if (k.shared_bytes > 0)
        why = "it uses wp.shared_array (adjoints of shared memory are not supported)";
    if (why_not) *why_not = why;
    return why.empty();
}

namespace {

// Collects the funcs that the visited code calls, and those they call.
class CalledFuncs : public ir::IRVisitor {
public:
    std::set<const ir::Function*> called;

protected:
    void visit_CallFunc(const ir::Expr& e) override {
        IRVisitor::visit_CallFunc(e);
        if (e.func && called.insert(e.func).second) visit_block(e.func->body);
    }
};

}  // namespace

std::set<const ir::Function*> differentiated_funcs(const ir::Module& m) {
    CalledFuncs c;
    for (const auto& f : m.functions)
        if (f->kind == ir::FunctionKind::Kernel && has_adjoint(*f)) c.visit_block(f->body);
    return c.called;
}

namespace {

// A call is reported when (1) its result is needed as a float (not only cast to an integer,
// compared, or used as a condition or index), and (2) a float argument is active: it depends on
// an array element, a float parameter or an active variable (a fixed point over assignments).
// `wp.floor(-2.5)` and `int(wp.floor(x[i]))` are not differentiable paths; `wp.floor(x[i]) * y`
// is.
// Builtins whose derivative is zero wherever it exists: their adjoint is zero, which is what the
// code generator emits for them (nothing). d floor(x) = d ceil(x) = d round(x) = d trunc(x) =
// d sign(x) = d step(x) = d (a // b) = 0, almost everywhere.
bool piecewise_constant(const std::string& name) {
    static const std::set<std::string> names = {"floor", "ceil", "round", "rint", "trunc", "sign", "step", "nonzero", "floordiv"};
    return names.count(name) > 0;
}

class Checker {
public:
    Checker(DiagnosticEngine& d) : diags_(d) {}

    void kernel(const ir::Function& k) {
        kernel_ = &k;
        function_body(k);
    }

    bool reported = false;

private:
    void function(const ir::Function& f) {
        if (!visited_.insert(&f).second) return;
        if (f.custom_grad) {
            check_custom_grad(f);
            return;
        }
        function_body(f);
    }

    void function_body(const ir::Function& f) {
        std::set<const ir::Var*> saved = active_;
        active_.clear();
        for (const ir::Var* p : f.params)
            if (is_differentiable(p->type)) active_.insert(p);
        for (bool changed = true; changed;) {
            changed = false;
            propagate(f.body, changed);
        }
        block(f.body);
        active_ = saved;
    }

    void propagate(const ir::Block& b, bool& changed) {
        for (const auto& s : b) {
            if (s->kind == ir::StmtKind::Assign && !active_.count(s->var) && is_active(s->value)) {
                active_.insert(s->var);
                changed = true;
            }
            if (s->kind == ir::StmtKind::For && !active_.count(s->var) && is_active(s->start)) {
                active_.insert(s->var);
                changed = true;
            }
            propagate(s->body, changed);
            propagate(s->orelse, changed);
        }
    }

    bool is_active(const ir::ExprPtr& e) const {
        if (!e) return false;
        switch (e->kind) {
            case ir::ExprKind::VarRef: return active_.count(e->var) > 0;
            case ir::ExprKind::Load:
            case ir::ExprKind::Atomic: return is_differentiable(e->type);
            case ir::ExprKind::CallFunc: return true;
            case ir::ExprKind::Compare:
            case ir::ExprKind::Logical:
            case ir::ExprKind::Shape:
            case ir::ExprKind::Intrinsic: return false;
            default: break;
        }
        if (!is_differentiable(e->type)) return false;
        for (const auto& a : e->args)
            if (is_active(a)) return true;
        return false;
    }

    void check_custom_grad(const ir::Function& f) {
        const ir::Function& g = *f.custom_grad;
        bool ok = g.params.size() == f.params.size() + 1;
        for (size_t i = 0; ok && i < f.params.size(); ++i) ok = g.params[i]->type == f.params[i]->type;
        if (ok) ok = g.params.back()->type == f.ret;
        Type want = custom_grad_return_type(f);
        if (ok) ok = g.ret == want;
        if (!ok) {
            diags_.report(DiagId::err_custom_grad_signature, g.loc, {f.name, type_name(want)});
            reported = true;
        }
    }

    void block(const ir::Block& b) {
        for (const auto& s : b) stmt(*s);
    }

    void stmt(const ir::Stmt& s) {
        for (const auto& p : s.path)
            for (const auto& i : p.indices) expr(i, false);
        for (const auto& i : s.indices) expr(i, false);
        bool value_needed = s.kind == ir::StmtKind::Assign || s.kind == ir::StmtKind::Store || s.kind == ir::StmtKind::Return ||
                            s.kind == ir::StmtKind::Eval;
        if (s.value) expr(s.value, value_needed);
        for (const ir::ExprPtr* e : {&s.array, &s.start, &s.stop, &s.step})
            if (*e) expr(*e, false);
        block(s.body);
        block(s.orelse);
    }

    // `needed`: whether the value of `e` flows on as a float.
    void expr(const ir::ExprPtr& e, bool needed) {
        bool pass = needed && is_differentiable(e->type);
        switch (e->kind) {
            case ir::ExprKind::Compare:
            case ir::ExprKind::Logical:
            case ir::ExprKind::Shape: pass = false; break;
            default: break;
        }
        for (size_t i = 0; i < e->args.size(); ++i) {
            bool arg_needed = pass;
            if (e->kind == ir::ExprKind::Select && i == 0) arg_needed = false;
            if ((e->kind == ir::ExprKind::Load || e->kind == ir::ExprKind::Extract) && i > 0) arg_needed = false;
            if (e->kind == ir::ExprKind::Atomic || e->kind == ir::ExprKind::CallFunc) arg_needed = true;
            expr(e->args[i], arg_needed);
        }
        if (e->kind == ir::ExprKind::CallFunc && e->func) function(*e->func);
        if (e->kind != ir::ExprKind::Call || !e->builtin || !pass) return;
        if (e->builtin->flags & BuiltinFlags_Differentiable) return;
        if (piecewise_constant(e->builtin->name)) return;
        bool active_arg = false;
        for (const auto& a : e->args) active_arg = active_arg || (is_differentiable(a->type) && is_active(a));
        if (!active_arg) return;
        diags_.report(DiagId::err_no_adjoint, e->loc, {e->builtin->name, kernel_->name});
        reported = true;
    }

    DiagnosticEngine& diags_;
    const ir::Function* kernel_ = nullptr;
    std::set<const ir::Function*> visited_;
    std::set<const ir::Var*> active_;
};

}  // namespace

bool check_differentiable(const ir::Module& m, DiagnosticEngine& diags) {
    Checker c(diags);
    for (const auto& f : m.functions)
        if (f->kind == ir::FunctionKind::Kernel && has_adjoint(*f)) c.kernel(*f);
    return c.reported;
}

}  // namespace weft::compiler::passes
