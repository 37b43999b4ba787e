// adjoint_accumulators: see adjoint_accumulators.h.
#include "compiler/sema/adjoint_accumulators.h"

#include <map>

namespace weft::compiler::sema {
namespace {

using ast::Expr;
using ast::ExprKind;
using ast::ExprPtr;
using ast::Stmt;
using ast::StmtPtr;

ExprPtr clone(const ExprPtr& e);

StmtPtr clone(const StmtPtr& s) {
    if (!s) return nullptr;
    auto c = std::make_unique<Stmt>(s->kind, s->loc);
    c->target = clone(s->target);
    c->value = clone(s->value);
    c->annotation = clone(s->annotation);
    c->op = s->op;
    for (const auto& b : s->body) c->body.push_back(clone(b));
    for (const auto& b : s->orelse) c->orelse.push_back(clone(b));
    return c;
}

ExprPtr clone(const ExprPtr& e) {
    if (!e) return nullptr;
    auto c = std::make_unique<Expr>(e->kind, e->loc);
    c->id = e->id;
    c->int_value = e->int_value;
    c->float_value = e->float_value;
    c->bool_value = e->bool_value;
    c->binop = e->binop;
    c->unop = e->unop;
    c->boolop = e->boolop;
    c->cmpops = e->cmpops;
    c->value = clone(e->value);
    for (const auto& a : e->args) c->args.push_back(clone(a));
    for (const auto& k : e->keywords) c->keywords.push_back({k.name, k.loc, clone(k.value)});
    return c;
}

ExprPtr name(const std::string& id, SourceLoc loc) {
    auto e = std::make_unique<Expr>(ExprKind::Name, loc);
    e->id = id;
    return e;
}

class Rewriter {
public:
    Rewriter(const std::function<bool(const std::string&)>& is_weft, const std::map<std::string, std::string>& locals)
        : is_weft_(is_weft), locals_(locals) {}

    // `wp.adjoint[x]` -> the accumulator of x (x must be an input with one).
    bool is_adjoint_ref(const Expr& e) const {
        return e.kind == ExprKind::Subscript && e.value && e.value->kind == ExprKind::Attribute && e.value->id == "adjoint" &&
               e.value->value && e.value->value->kind == ExprKind::Name && is_weft_(e.value->value->id) && e.args.size() == 1 &&
               e.args[0]->kind == ExprKind::Name && locals_.count(e.args[0]->id);
    }

    bool uses(const ExprPtr& e) const {
        if (!e) return false;
        if (is_adjoint_ref(*e)) return true;
        if (uses(e->value)) return true;
        for (const auto& a : e->args)
            if (uses(a)) return true;
        for (const auto& k : e->keywords)
            if (uses(k.value)) return true;
        return false;
    }
    bool uses(const ast::Body& b) const {
        for (const auto& s : b)
            if (uses(s->target) || uses(s->value) || uses(s->body) || uses(s->orelse)) return true;
        return false;
    }

    void rewrite(ExprPtr& e) const {
        if (!e) return;
        if (is_adjoint_ref(*e)) {
            e = name(locals_.at(e->args[0]->id), e->loc);
            return;
        }
        rewrite(e->value);
        for (auto& a : e->args) rewrite(a);
        for (auto& k : e->keywords) rewrite(k.value);
    }
    void rewrite(ast::Body& b) const {
        for (auto& s : b) {
            rewrite(s->target);
            rewrite(s->value);
            rewrite(s->body);
            rewrite(s->orelse);
        }
    }

private:
    const std::function<bool(const std::string&)>& is_weft_;
    const std::map<std::string, std::string>& locals_;
};

bool is_array_annotation(const ExprPtr& a) {
    if (!a) return false;
    const Expr* f = a->kind == ExprKind::Call ? a->value.get() : a.get();
    return f && ((f->kind == ExprKind::Attribute && f->id.rfind("array", 0) == 0) ||
                 (f->kind == ExprKind::Name && f->id.rfind("array", 0) == 0));
}

}  // namespace

const ast::FunctionDef* rewrite_adjoint_accumulators(const ast::FunctionDef& def, std::deque<ast::FunctionDef>& storage,
                                                     const std::function<bool(const std::string&)>& is_weft_module) {
    if (def.params.empty()) return &def;
    // The inputs are every parameter but the last (the adjoint of the result); arrays have none.
    std::map<std::string, std::string> locals;
    std::vector<const ast::Param*> inputs;
    for (size_t i = 0; i + 1 < def.params.size(); ++i) {
        if (is_array_annotation(def.params[i].annotation)) continue;
        locals[def.params[i].name] = "adj__" + def.params[i].name;
        inputs.push_back(&def.params[i]);
    }
    Rewriter r(is_weft_module, locals);
    if (inputs.empty() || !r.uses(def.body)) return &def;

    ast::FunctionDef out;
    out.kind = def.kind;
    out.name = def.name;
    out.loc = def.loc;
    for (const auto& p : def.params) out.params.push_back({p.name, p.loc, clone(p.annotation)});
    // The return type is inferred from the appended return (Warp's form declares none).
    if (def.returns && def.returns->kind != ExprKind::None) out.returns = clone(def.returns);
    out.docstring = def.docstring;
    for (const auto& k : def.decorator_args) out.decorator_args.push_back({k.name, k.loc, clone(k.value)});
    out.grad_of = def.grad_of;
    for (const ast::Param* p : inputs) {  // adj__x = x - x: a zero of x's type
        auto s = std::make_unique<Stmt>(ast::StmtKind::Assign, p->loc);
        s->target = name(locals[p->name], p->loc);
        auto zero = std::make_unique<Expr>(ExprKind::BinOp, p->loc);
        zero->binop = ast::BinOp::Sub;
        zero->args.push_back(name(p->name, p->loc));
        zero->args.push_back(name(p->name, p->loc));
        s->value = std::move(zero);
        out.body.push_back(std::move(s));
    }
    for (const auto& s : def.body) out.body.push_back(clone(s));
    r.rewrite(out.body);
    auto ret = std::make_unique<Stmt>(ast::StmtKind::Return, def.loc);
    if (inputs.size() == 1) {
        ret->value = name(locals[inputs[0]->name], def.loc);
    } else {
        auto t = std::make_unique<Expr>(ExprKind::Tuple, def.loc);
        for (const ast::Param* p : inputs) t->args.push_back(name(locals[p->name], def.loc));
        ret->value = std::move(t);
    }
    out.body.push_back(std::move(ret));
    storage.push_back(std::move(out));
    return &storage.back();
}

}  // namespace weft::compiler::sema
