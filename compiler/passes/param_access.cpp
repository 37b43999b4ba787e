// param_access: see param_access.h.
#include "compiler/passes/param_access.h"

#include <map>

#include "compiler/ir/ir_visitor.h"

namespace weft::compiler::passes {
namespace {

class ParamAccessAnalysis : public ir::IRVisitor {
public:
    explicit ParamAccessAnalysis(std::map<const ir::Function*, std::vector<ParamAccess>>& memo) : memo_(memo) {}

    std::vector<ParamAccess> run(const ir::Function& f) {
        if (auto it = memo_.find(&f); it != memo_.end()) return it->second;
        memo_[&f] = std::vector<ParamAccess>(f.params.size());  // recursion (not allowed by sema) terminates
        for (size_t i = 0; i < f.params.size(); ++i) root_[f.params[i]] = static_cast<int>(i);
        // Locals that alias a parameter array can be assigned after their first use in a loop;
        // two passes reach the fixed point for straight chains of aliases.
        for (int pass = 0; pass < 2; ++pass) visit_block(f.body);
        std::vector<ParamAccess> out(f.params.size());
        for (auto [i, a] : access_) out[static_cast<size_t>(i)] = a;
        memo_[&f] = out;
        return out;
    }

protected:
    void visit_Load(const ir::Expr& e) override {
        mark(e.args[0], true, false);
        IRVisitor::visit_Load(e);
    }
    void visit_Atomic(const ir::Expr& e) override {
        mark(e.args[0], true, true);
        IRVisitor::visit_Atomic(e);
    }
    void visit_CallFunc(const ir::Expr& e) override {
        std::vector<ParamAccess> callee = ParamAccessAnalysis(memo_).run(*e.func);
        for (size_t i = 0; i < e.args.size() && i < callee.size(); ++i)
            if (is_array(e.args[i]->type)) mark(e.args[i], callee[i].read, callee[i].written);
        IRVisitor::visit_CallFunc(e);
    }

    void visit_Assign(const ir::Stmt& s) override {
        if (s.var && is_array(s.var->type) && s.path.empty()) {
            int r = root_of(s.value);
            if (r >= 0) root_[s.var] = r;
        }
        IRVisitor::visit_Assign(s);
    }
    void visit_Eval(const ir::Stmt& s) override {
        if (s.value && s.value->kind == ir::ExprKind::Atomic &&
            (s.value->op == static_cast<int>(ir::AtomicOp::Add) || s.value->op == static_cast<int>(ir::AtomicOp::Sub))) {
            // wp.atomic_add(a, i, v) as a statement only accumulates: its adjoint reads the
            // gradient of a, never a's values, so a later launch adding into a too is fine.
            mark(s.value->args[0], false, true);
            for (size_t k = 1; k < s.value->args.size(); ++k) visit_expr(s.value->args[k]);
            return;
        }
        IRVisitor::visit_Eval(s);
    }
    void visit_Store(const ir::Stmt& s) override {
        // A store below an element (a[i].x = v) keeps the element's other components: it
        // reads nothing from memory but is still a write.
        mark(s.array, false, true);
        IRVisitor::visit_Store(s);
    }

private:
    // The parameter an array-valued expression refers to, or -1.
    int root_of(const ir::ExprPtr& e) const {
        if (!e || e->kind != ir::ExprKind::VarRef) return -1;
        auto it = root_.find(e->var);
        return it == root_.end() ? -1 : it->second;
    }

    void mark(const ir::ExprPtr& array, bool read, bool written) {
        int r = root_of(array);
        if (r < 0) return;
        access_[r].read |= read;
        access_[r].written |= written;
    }

    std::map<const ir::Function*, std::vector<ParamAccess>>& memo_;
    std::map<const ir::Var*, int> root_;
    std::map<int, ParamAccess> access_;
};

}  // namespace

std::vector<ParamAccess> param_access(const ir::Function& f) {
    std::map<const ir::Function*, std::vector<ParamAccess>> memo;
    return ParamAccessAnalysis(memo).run(f);
}

}  // namespace weft::compiler::passes
