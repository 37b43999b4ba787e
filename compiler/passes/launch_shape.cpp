// launch_shape: see launch_shape.h.
#include "compiler/passes/launch_shape.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/ir/ir_visitor.h"

namespace weft::compiler::passes {
namespace {

// The dimensions the thread index has in a body and the funcs it calls: 1 for `wp.tid()` as one
// value, k for the k components of an unpacked `wp.tid()` (TidDim 0..k-1).
class TidUse : public ir::IRVisitor {
public:
    int linear = 0;    // 1 when wp.tid() is used as one value
    int unpacked = 0;  // the largest unpacked count
    std::set<const ir::Function*> seen;

protected:
    void visit_Intrinsic(const ir::Expr& e) override {
        if (e.op == static_cast<int>(ir::IntrinsicOp::Tid)) linear = 1;
        if (e.op == static_cast<int>(ir::IntrinsicOp::TidDim)) unpacked = std::max(unpacked, static_cast<int>(e.int_value) + 1);
        IRVisitor::visit_Intrinsic(e);
    }
    void visit_CallFunc(const ir::Expr& e) override {
        if (seen.insert(e.func).second) visit_block(e.func->body);
        IRVisitor::visit_CallFunc(e);
    }
};

// How every local is assigned: the tid component of each assignment (-1: something else).
class Assignments : public ir::IRVisitor {
public:
    std::map<const ir::Var*, std::vector<int>> of;

protected:
    void visit_Assign(const ir::Stmt& s) override {
        int d = -1;
        if (s.path.empty() && s.value && s.value->kind == ir::ExprKind::Intrinsic) {
            if (s.value->op == static_cast<int>(ir::IntrinsicOp::Tid)) d = 0;
            if (s.value->op == static_cast<int>(ir::IntrinsicOp::TidDim)) d = static_cast<int>(s.value->int_value);
        }
        of[s.var].push_back(d);
        IRVisitor::visit_Assign(s);
    }
    void visit_For(const ir::Stmt& s) override {
        of[s.var].push_back(-1);
        IRVisitor::visit_For(s);
    }
};

bool may_return(const ir::Stmt& s) {
    if (s.kind == ir::StmtKind::Return) return true;
    for (const ir::Block* b : {&s.body, &s.orelse})
        for (const auto& c : *b)
            if (may_return(*c)) return true;
    return false;
}

// The accesses of the expressions every thread evaluates in one statement.
class CertainAccesses : public ir::IRVisitor {
public:
    CertainAccesses(const ir::Function& f, const std::map<const ir::Var*, int>& tid_vars, LaunchShape& out)
        : tid_vars_(tid_vars), out_(out) {
        for (size_t i = 0; i < f.params.size(); ++i) params_[f.params[i]] = i;
    }

    void statement(const ir::Stmt& s) {
        switch (s.kind) {
            case ir::StmtKind::Assign:
            case ir::StmtKind::Eval: visit(s); break;
            case ir::StmtKind::Store:
                access(s.array, s.indices, 0, s.loc);
                visit(s);
                break;
            default: break;  // conditions and loop bounds hold no certain access worth listing
        }
    }

protected:
    void visit_Load(const ir::Expr& e) override {
        access(e.args[0], e.args, 1, e.loc);
        IRVisitor::visit_Load(e);
    }
    void visit_Atomic(const ir::Expr& e) override {
        access(e.args[0], e.args, 1, e.loc, 1 + static_cast<size_t>(e.int_value));
        IRVisitor::visit_Atomic(e);
    }
    // Only the condition of `c ? a : b`, and the left operand of `and` / `or`, always run.
    void visit_Select(const ir::Expr& e) override { visit_expr(e.args[0]); }
    void visit_Logical(const ir::Expr& e) override { visit_expr(e.args[0]); }

private:
    void access(const ir::ExprPtr& array, const std::vector<ir::ExprPtr>& idx, size_t from, SourceLoc loc, size_t to = SIZE_MAX) {
        if (!array || array->kind != ir::ExprKind::VarRef) return;
        auto p = params_.find(array->var);
        if (p == params_.end() || !is_array(array->type)) return;
        for (size_t k = from; k < idx.size() && k < to; ++k) {
            int d = tid_component(idx[k]);
            if (d >= 0) out_.tid_indexed.push_back({p->second, static_cast<int>(k - from), d, loc});
        }
    }
    int tid_component(const ir::ExprPtr& e) const {
        if (e->kind == ir::ExprKind::Intrinsic) {
            if (e->op == static_cast<int>(ir::IntrinsicOp::Tid)) return 0;
            if (e->op == static_cast<int>(ir::IntrinsicOp::TidDim)) return static_cast<int>(e->int_value);
        }
        if (e->kind == ir::ExprKind::VarRef) {
            auto it = tid_vars_.find(e->var);
            if (it != tid_vars_.end()) return it->second;
        }
        return -1;
    }

    const std::map<const ir::Var*, int>& tid_vars_;
    LaunchShape& out_;
    std::map<const ir::Var*, size_t> params_;
};

}  // namespace

LaunchShape launch_shape(const ir::Function& kernel) {
    LaunchShape r;
    TidUse use;
    use.visit_block(kernel.body);
    r.tid_ndim = use.unpacked > 0 ? use.unpacked : use.linear;

    Assignments assigns;
    assigns.visit_block(kernel.body);
    std::map<const ir::Var*, int> tid_vars;
    // `first` is a copy: Clang 14 (the fuzz build) cannot capture a structured binding in a lambda.
    for (const auto& [var, ds] : assigns.of) {
        const int first = ds.empty() ? -1 : ds[0];
        if (first >= 0 && std::all_of(ds.begin(), ds.end(), [first](int d) { return d == first; })) tid_vars[var] = first;
    }

    CertainAccesses certain(kernel, tid_vars, r);
    for (const auto& s : kernel.body) {
        if (may_return(*s)) break;
        certain.statement(*s);
    }
    // A 1-D index with an unpacked one in the same kernel: the linear index is not a component.
    if (use.linear && use.unpacked > 1)
        r.tid_indexed.erase(
            std::remove_if(r.tid_indexed.begin(), r.tid_indexed.end(), [](const TidIndexedAccess& a) { return a.tid_dim == 0; }),
            r.tid_indexed.end());
    return r;
}

}  // namespace weft::compiler::passes
