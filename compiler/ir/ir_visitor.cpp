// The default walks of IRVisitor and IRMutator. See ir_visitor.h.
#include "compiler/ir/ir_visitor.h"

#include <stdexcept>

namespace weft::compiler::ir {

void unknown_node_kind(const char* where, int kind) {
    throw std::logic_error("internal error (compiler/ir/ir_visitor.cpp): " + std::string(where) + " of unknown kind " +
                           std::to_string(kind));
}

// ---- IRVisitor ----

void IRVisitor::visit_expr(const ExprPtr& e) {
    if (e) visit(*e);
}

void IRVisitor::visit_block(const Block& b) {
    for (const auto& s : b) visit(*s);
}

void IRVisitor::visit_args(const Expr& e) {
    for (const auto& a : e.args) visit_expr(a);
}

void IRVisitor::visit_children(const Stmt& s) {
    for (const auto& p : s.path)
        for (const auto& i : p.indices) visit_expr(i);
    visit_expr(s.array);
    for (const auto& i : s.indices) visit_expr(i);
    visit_expr(s.value);
    visit_expr(s.start);
    visit_expr(s.stop);
    visit_expr(s.step);
    visit_block(s.body);
    visit_block(s.orelse);
}

#define WEFT_IR_DEFINE(n) \
    void IRVisitor::visit_##n(const Expr& e) { visit_args(e); }
WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DEFINE)
#undef WEFT_IR_DEFINE
#define WEFT_IR_DEFINE(n) \
    void IRVisitor::visit_##n(const Stmt& s) { visit_children(s); }
WEFT_FOR_EACH_IR_STMT(WEFT_IR_DEFINE)
#undef WEFT_IR_DEFINE

// ---- IRMutator ----

ExprPtr IRMutator::mutate(const ExprPtr& e) { return e ? visit(e) : e; }

Block IRMutator::mutate(const StmtPtr& s) { return visit(s); }

Block IRMutator::mutate_block(const Block& b) {
    Block out;
    for (const auto& s : b) {
        Block r = mutate(s);
        out.insert(out.end(), r.begin(), r.end());
    }
    return out;
}

ExprPtr IRMutator::mutate_args(const ExprPtr& e) {
    std::vector<ExprPtr> args;
    bool changed = false;
    for (const auto& a : e->args) {
        args.push_back(mutate(a));
        changed = changed || args.back() != a;
    }
    if (!changed) return e;
    auto n = std::make_shared<Expr>(*e);
    n->args = std::move(args);
    return n;
}

namespace {
bool same(const Block& a, const Block& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i] != b[i]) return false;
    return true;
}
}  // namespace

Block IRMutator::mutate_children(const StmtPtr& s) {
    bool changed = false;
    auto one = [&](const ExprPtr& e) {
        ExprPtr r = mutate(e);
        changed = changed || r != e;
        return r;
    };
    auto many = [&](const std::vector<ExprPtr>& v) {
        std::vector<ExprPtr> r;
        for (const auto& e : v) r.push_back(one(e));
        return r;
    };
    std::vector<PathStep> path = s->path;
    for (auto& p : path) p.indices = many(p.indices);
    ExprPtr array = one(s->array);
    std::vector<ExprPtr> indices = many(s->indices);
    ExprPtr value = one(s->value), start = one(s->start), stop = one(s->stop), step = one(s->step);
    Block body = mutate_block(s->body), orelse = mutate_block(s->orelse);
    if (!changed && same(body, s->body) && same(orelse, s->orelse)) return {s};
    auto n = std::make_shared<Stmt>(*s);
    n->path = std::move(path);
    n->array = std::move(array);
    n->indices = std::move(indices);
    n->value = std::move(value);
    n->start = std::move(start);
    n->stop = std::move(stop);
    n->step = std::move(step);
    n->body = std::move(body);
    n->orelse = std::move(orelse);
    return {n};
}

#define WEFT_IR_DEFINE(n) \
    ExprPtr IRMutator::visit_##n(const ExprPtr& e) { return mutate_args(e); }
WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DEFINE)
#undef WEFT_IR_DEFINE
#define WEFT_IR_DEFINE(n) \
    Block IRMutator::visit_##n(const StmtPtr& s) { return mutate_children(s); }
WEFT_FOR_EACH_IR_STMT(WEFT_IR_DEFINE)
#undef WEFT_IR_DEFINE

}  // namespace weft::compiler::ir
