// Walking and rewriting the IR: the one place that switches over node kinds.
//
//   ExprFunctor<R(Node, Args...)>   dispatch on an expression's kind to visit_<Kind>(e, args...),
//   StmtFunctor<R(Node, Args...)>   and on a statement's; every visit_ is pure, so an emitter or an
//                                   evaluator that returns a value per node (the C++ code generator,
//                                   the audit's SIMT evaluator) is told of every kind it misses
//   IRVisitor                       void visits whose defaults recurse into operands, assignment
//                                   paths, loop bounds and nested blocks: override the kinds you
//                                   care about and call IRVisitor::visit_<Kind> to go on below
//   IRMutator                       the same for rewrites: each default rebuilds a node only when
//                                   one of its parts changed, and returns the node itself otherwise
//
// The kinds come from ir.h's X-macros, so a new node kind is one line there plus its visit_
// methods, which the compiler then asks for. As in Halide's IRVisitor/IRMutator (and TVM's
// ExprFunctor), a pass overrides what it changes and leaves the walk to the defaults.
//
// A statement's mutation returns a Block, not a statement: a rewrite may turn one statement into
// several (lower_jumps turns a `for` into set-up assignments and a `while`). Halide has a Block
// node for that; here a block is a vector.
#pragma once

#include <string>
#include <utility>

#include "compiler/ir/ir.h"

namespace weft::compiler::ir {

inline ExprKind kind_of(const Expr& e) { return e.kind; }
inline ExprKind kind_of(const ExprPtr& e) { return e->kind; }
inline StmtKind kind_of(const Stmt& s) { return s.kind; }
inline StmtKind kind_of(const StmtPtr& s) { return s->kind; }

// An internal error: a node kind outside the X-macros (memory corruption or a Weft bug).
[[noreturn]] void unknown_node_kind(const char* where, int kind);

template <typename F>
class ExprFunctor;

template <typename R, typename Node, typename... Args>
class ExprFunctor<R(Node, Args...)> {
public:
    virtual ~ExprFunctor() = default;
    R visit(Node e, Args... args) {
        switch (kind_of(e)) {
#define WEFT_IR_DISPATCH(n) \
    case ExprKind::n: return visit_##n(e, std::forward<Args>(args)...);
            WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
        }
        unknown_node_kind("expression", static_cast<int>(kind_of(e)));
    }

protected:
#define WEFT_IR_DECLARE(n) virtual R visit_##n(Node e, Args... args) = 0;
    WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
};

template <typename F>
class StmtFunctor;

template <typename R, typename Node, typename... Args>
class StmtFunctor<R(Node, Args...)> {
public:
    virtual ~StmtFunctor() = default;
    R visit(Node s, Args... args) {
        switch (kind_of(s)) {
#define WEFT_IR_DISPATCH(n) \
    case StmtKind::n: return visit_##n(s, std::forward<Args>(args)...);
            WEFT_FOR_EACH_IR_STMT(WEFT_IR_DISPATCH)
#undef WEFT_IR_DISPATCH
        }
        unknown_node_kind("statement", static_cast<int>(kind_of(s)));
    }

protected:
#define WEFT_IR_DECLARE(n) virtual R visit_##n(Node s, Args... args) = 0;
    WEFT_FOR_EACH_IR_STMT(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
};

// Read-only walk. visit_expr and visit_block are where every operand and every nested block
// pass: override them to act on all nodes of a kind-independent walk (a null operand, such as a
// bare `return`'s value, is skipped).
class IRVisitor : public ExprFunctor<void(const Expr&)>, public StmtFunctor<void(const Stmt&)> {
public:
    using ExprFunctor<void(const Expr&)>::visit;
    using StmtFunctor<void(const Stmt&)>::visit;

    virtual void visit_expr(const ExprPtr& e);
    virtual void visit_block(const Block& b);

protected:
    // Operands in order; then, for statements: the assignment path's indices, the store's array
    // and indices, the value or condition, the loop bounds, the body and the else branch.
    void visit_args(const Expr& e);
    void visit_children(const Stmt& s);

#define WEFT_IR_DECLARE(n) void visit_##n(const Expr& e) override;
    WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
#define WEFT_IR_DECLARE(n) void visit_##n(const Stmt& s) override;
    WEFT_FOR_EACH_IR_STMT(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
};

// Rewrite. mutate() returns its argument itself wherever nothing below it changed, so a pass
// can tell "unchanged" by pointer comparison and shares every untouched subtree.
class IRMutator : public ExprFunctor<ExprPtr(const ExprPtr&)>, public StmtFunctor<Block(const StmtPtr&)> {
public:
    using ExprFunctor<ExprPtr(const ExprPtr&)>::visit;
    using StmtFunctor<Block(const StmtPtr&)>::visit;

    ExprPtr mutate(const ExprPtr& e);            // null stays null
    Block mutate(const StmtPtr& s);              // the statements that replace `s` ({s} if unchanged)
    virtual Block mutate_block(const Block& b);  // the replacements of its statements, in order

protected:
    ExprPtr mutate_args(const ExprPtr& e);    // e, or a copy with its mutated operands
    Block mutate_children(const StmtPtr& s);  // {s}, or {a copy with its mutated parts}

#define WEFT_IR_DECLARE(n) ExprPtr visit_##n(const ExprPtr& e) override;
    WEFT_FOR_EACH_IR_EXPR(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
#define WEFT_IR_DECLARE(n) Block visit_##n(const StmtPtr& s) override;
    WEFT_FOR_EACH_IR_STMT(WEFT_IR_DECLARE)
#undef WEFT_IR_DECLARE
};

}  // namespace weft::compiler::ir
