// IRVisitor and IRMutator (compiler/ir/ir_visitor.cpp): the default walks reach every node, and a
// mutation shares what it did not change.
#include <gtest/gtest.h>

#include "compiler/driver.h"
#include "compiler/ir/ir_visitor.h"

namespace {

using namespace weft::compiler;

const char* kModule = R"(import weft as wp
@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    s = 0.0
    for j in range(0, n, 1):
        if a[j] > 0.5:
            s = s + a[j] * 2.0
        else:
            s = s - 1.0
    a[i] = s
)";

// Counts the nodes of each kind.
class Counter : public ir::IRVisitor {
public:
    int consts = 0, loads = 0, assigns = 0;

protected:
    void visit_Const(const ir::Expr& e) override {
        ++consts;
        IRVisitor::visit_Const(e);
    }
    void visit_Load(const ir::Expr& e) override {
        ++loads;
        IRVisitor::visit_Load(e);
    }
    void visit_Assign(const ir::Stmt& s) override {
        ++assigns;
        IRVisitor::visit_Assign(s);
    }
};

TEST(IRVisitor, DefaultsReachEveryNode) {
    auto m = compile_module({{"k.py", kModule, 0}}, {});
    Counter c;
    c.visit_block(m->ir->find("k")->body);
    EXPECT_EQ(c.loads, 2);    // a[j] in the condition and in the then-branch (a[i] is a store)
    EXPECT_EQ(c.assigns, 4);  // i, s, and s in each branch
    EXPECT_EQ(c.consts, 6);   // 0.0, 0 and 1 of range, 0.5, 2.0, 1.0
}

// Doubles float constants equal to 2.
class DoubleTwos : public ir::IRMutator {
protected:
    ir::ExprPtr visit_Const(const ir::ExprPtr& e) override {
        if (is_float(e->type) && e->float_value == 2.0) return ir::make_float(4.0, e->type, e->loc);
        return e;
    }
};

TEST(IRMutator, ReturnsTheSameNodesWhereNothingChanged) {
    auto m = compile_module({{"k.py", kModule, 0}}, {});
    const ir::Block& body = m->ir->find("k")->body;
    ir::Block unchanged = ir::IRMutator().mutate_block(body);
    ASSERT_EQ(unchanged.size(), body.size());
    for (size_t i = 0; i < body.size(); ++i) EXPECT_EQ(unchanged[i], body[i]);

    ir::Block out = DoubleTwos().mutate_block(body);
    ASSERT_EQ(out.size(), body.size());
    // Only the loop (which holds the 2.0) is rebuilt; its else branch is shared.
    for (size_t i = 0; i < body.size(); ++i) EXPECT_EQ(out[i] == body[i], body[i]->kind != ir::StmtKind::For) << i;
    const ir::Stmt& loop = *out[2];
    const ir::Stmt& branch = *loop.body[0];
    EXPECT_NE(loop.body[0], body[2]->body[0]);
    EXPECT_EQ(branch.orelse[0], body[2]->body[0]->orelse[0]);
    EXPECT_NE(ir::print(*branch.body[0]->value).find("4:float32"), std::string::npos);
    EXPECT_NE(ir::print(*body[2]->body[0]->body[0]->value).find("2:float32"), std::string::npos);  // input untouched
}

}  // namespace
