// check_differentiable. See check_differentiable.h.
//
// Walks every kernel that has an adjoint and every func it reaches (once each; a func with a
// @wp.func_grad is not entered, its custom adjoint replaces its body's). A call of a builtin is on
// a differentiable path when its result and at least one argument are differentiable; such a call
// needs BuiltinFlags_Differentiable.
#include "compiler/passes/check_differentiable.h"

#include <set>

namespace weft::compiler::passes {

bool is_differentiable(Type t) {
    if (!t) return false;
    switch (t->kind) {
        case TypeKind::Scalar:
        case TypeKind::Vector:
        case TypeKind::Matrix:
        case TypeKind::Quat:
        case TypeKind::Transform:
            return t->scalar == ScalarKind::Float32 || t->scalar == ScalarKind::Float64;
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
    if (!k.enable_backward) why = "it is declared with enable_backward=False";
    else if (k.uses_sync) why = "it calls wp.sync_threads() (adjoints of block-synchronised kernels are not supported)";
    else if (k.shared_bytes > 0) why = "it uses wp.shared_array (adjoints of shared memory are not supported)";
    if (why_not) *why_not = why;
    return why.empty();
}

namespace {

class Checker {
public:
    Checker(DiagnosticEngine& d) : diags_(d) {}

    void kernel(const ir::Function& k) {
        kernel_ = &k;
        block(k.body);
    }

    bool reported = false;

private:
    void function(const ir::Function& f) {
        if (!visited_.insert(&f).second) return;
        if (f.custom_grad) {
            check_custom_grad(f);
            return;
        }
        block(f.body);
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
            for (const auto& i : p.indices) expr(i);
        for (const auto& i : s.indices) expr(i);
        for (const ir::ExprPtr* e : {&s.array, &s.value, &s.start, &s.stop, &s.step})
            if (*e) expr(*e);
        block(s.body);
        block(s.orelse);
    }

    void expr(const ir::ExprPtr& e) {
        for (const auto& a : e->args) expr(a);
        if (e->kind == ir::ExprKind::CallFunc && e->func) function(*e->func);
        if (e->kind != ir::ExprKind::Call || !e->builtin) return;
        if (e->builtin->flags & BuiltinFlags_Differentiable) return;
        if (!is_differentiable(e->type)) return;
        bool diff_arg = false;
        for (const auto& a : e->args) diff_arg = diff_arg || is_differentiable(a->type);
        if (!diff_arg) return;
        diags_.report(DiagId::err_no_adjoint, e->loc, {e->builtin->name, kernel_->name});
        reported = true;
    }

    DiagnosticEngine& diags_;
    const ir::Function* kernel_ = nullptr;
    std::set<const ir::Function*> visited_;
};

}  // namespace

bool check_differentiable(const ir::Module& m, DiagnosticEngine& diags) {
    Checker c(diags);
    for (const auto& f : m.functions)
        if (f->kind == ir::FunctionKind::Kernel && has_adjoint(*f)) c.kernel(*f);
    return c.reported;
}

}  // namespace weft::compiler::passes
