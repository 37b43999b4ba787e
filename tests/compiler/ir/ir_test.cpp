// The IR's printer and verifier (compiler/ir/ir.cpp): the verifier accepts what sema lowers and
// names the first broken invariant of IR that a pass got wrong.
#include <gtest/gtest.h>

#include "compiler/driver.h"
#include "compiler/ir/ir.h"

namespace {

using namespace weft::compiler;

TEST(Verifier, AcceptsEveryLoweredFunction) {
    auto m = compile_module({{"t.py", R"(import weft as wp
@wp.func
def f(v: wp.vec3, m: wp.mat33) -> wp.vec3:
    r = m @ v
    r[0] = r.y * 2.0
    return r
@wp.kernel
def k(a: wp.array(dtype=wp.vec3), q: wp.quat, t: wp.transform):
    i = wp.tid()
    m = wp.mat33(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
    m[1, 2] = 3.0
    a[i] = f(wp.quat_rotate(q, a[i]), m) + wp.transform_point(t, a[i])
)",
                              0}},
                            {});
    for (const auto& f : m->ir->functions) EXPECT_EQ(ir::verify(*f), "") << f->name;
}

TEST(Verifier, NamesTheFirstBrokenInvariant) {
    auto m = compile_module({{"t.py", R"(import weft as wp
@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
)",
                              0}},
                            {});
    auto& k = const_cast<ir::Function&>(*m->ir->find("k"));
    ir::Block body = k.body;
    body.push_back(std::make_shared<ir::Stmt>(ir::StmtKind::Break, SourceLoc{}));
    std::vector<std::unique_ptr<ir::Var>> none;
    EXPECT_EQ(ir::verify(k, body, none), "in k: break/continue outside a loop");

    // A variable the pass added but does not declare as its own.
    ir::Var stray;
    stray.name = "stray";
    stray.type = float32_type();
    auto assign = std::make_shared<ir::Stmt>(ir::StmtKind::Assign, SourceLoc{});
    assign->var = &stray;
    assign->value = ir::make_float(1.0, float32_type());
    EXPECT_EQ(ir::verify(k, {assign}, none), "in k: assignment to a foreign variable");
    std::vector<std::unique_ptr<ir::Var>> added;
    added.push_back(std::make_unique<ir::Var>(stray));
    assign->var = added.back().get();
    EXPECT_EQ(ir::verify(k, {assign}, added), "");
    EXPECT_NE(ir::print(k, {assign}, added).find("  var stray.0: float32\n  stray.0 = 1:float32\n"), std::string::npos)
        << ir::print(k, {assign}, added);
}

}  // namespace
