// Semantic analysis of a module's funcs (compiler/sema/sema_module.cpp), checked on the printed
// IR: inferred return types and tuple returns, module-level type aliases.
#include <gtest/gtest.h>

#include "compiler/driver.h"
#include "compiler/ir/ir.h"

namespace {

using namespace weft::compiler;

std::string ir_of(const std::string& body_module) {
    auto m = compile_module({{"t.py", "import weft as wp\n" + body_module, 0}}, {});
    return ir::print(*m->ir);
}

void expect_contains(const std::string& hay, const std::string& needle) {
    EXPECT_NE(hay.find(needle), std::string::npos) << "missing: " << needle << "\nin:\n" << hay;
}

TEST(Sema, FuncReturnTypesAreInferredAndTuplesUnpack) {
    std::string ir = ir_of(R"(
@wp.func
def minmax(a: float, b: float):
    if a < b:
        return a, b
    return b, a

@wp.kernel
def k(x: wp.array(dtype=float)):
    lo, hi = minmax(x[0], x[1])
    x[2] = hi - lo
)");
    expect_contains(ir, "func minmax(a.0: float32, b.1: float32) -> tuple(float32, float32)");
    expect_contains(ir, "tmp0.1 = minmax(x.0[0:int32], x.0[1:int32])");
}

TEST(Sema, ModuleTypeAliasesNameTypesAndHostCodeIsSkipped) {
    // Static right sides name types (wp.types.* too); a length from a variable is host code.
    std::string ir = ir_of(R"(
n = 4
H = wp.types.vector(length=n, dtype=float)
W = wp.types.vector(3, dtype=wp.float64)
M = wp.mat((2, 2), wp.float32)
S = wp.vec3d
x = wp.zeros(3)

@wp.kernel
def k(a: wp.array(dtype=W), m: wp.array(dtype=M), s: wp.array(dtype=S)):
    a[0] = W(1.0)
)");
    expect_contains(ir, "kernel k(a.0: array(vec3d), m.1: array(mat22f), s.2: array(vec3d))");
    EXPECT_THROW(ir_of("H = wp.types.vector(length=n, dtype=float)\n@wp.kernel\ndef k(a: wp.array(dtype=H)):\n    pass\n"),
                 CompileError);
}

}  // namespace
