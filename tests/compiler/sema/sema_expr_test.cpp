// Semantic analysis of expressions (compiler/sema/sema_expr.cpp), checked on the printed IR:
// literal adaptation, constant folding, Warp's division semantics, module attributes.
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

// A kernel module of funcs, handed over with the module that imports it, as the engine does
// (engine/solver_kernels.cpp: kernels/geometry.py, then kernels/xpbd.py).
const char* kGeometryModule = R"(import weft as wp
SCALE = wp.constant(2.0)

@wp.func
def f(x: float) -> float:
    return x * SCALE
)";

std::string ir_of_modules(const std::vector<ModuleSource>& sources) {
    auto m = compile_module(sources, {});
    return ir::print(*m->ir);
}

TEST(Sema, LiteralsAdaptToTheOtherOperand) {
    std::string ir = ir_of(R"(
@wp.kernel
def k(a: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    a[i] = a[i] * 2 + 0.1
    v[i] = v[i] * 3.0
)");
    expect_contains(ir, "((a.0[i.2] * 2:float64) + 0.10000000000000001:float64)");
    expect_contains(ir, "(v.1[i.2] * 3:float64)");
}

TEST(Sema, ConstantsFold) {
    std::string ir = ir_of(R"(
N = wp.constant(4)
HALF = wp.constant(N * 0.5 + 1.0)
@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = HALF * float(N // 3) + wp.float32(7 % 4)
)");
    expect_contains(ir, "a.0[0:int32] = 6:float32");
}

TEST(Sema, IntegerDivisionFollowsWarp) {
    // `/` truncates on ints, `//` floors, `%` truncates (C fmod), folded at compile time here.
    std::string ir = ir_of(R"(
@wp.kernel
def k(a: wp.array(dtype=int)):
    a[0] = -7 / 2
    a[1] = -7 // 2
    a[2] = -7 % 2
)");
    expect_contains(ir, "a.0[0:int32] = -3:int32");
    expect_contains(ir, "a.0[1:int32] = -4:int32");
    expect_contains(ir, "a.0[2:int32] = -1:int32");
}

TEST(Sema, ModuleAttributeIsTheModulesNeverACallersLocal) {
    // The caller has locals named `f` and `SCALE`; `geo.f` and `geo.SCALE` still mean geometry's.
    std::string ir = ir_of_modules({{"kernels/geometry.py", kGeometryModule, 0},
                                    {"kernels/user.py", R"(import weft as wp
import geometry as geo

@wp.func
def g(x: float) -> float:
    f = x + 1.0
    return geo.f(f)

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    f = a[i]
    SCALE = 5.0
    a[i] = geo.f(f) + g(f) + geo.SCALE * SCALE
)",
                                     0}});
    expect_contains(ir, "return f(f.1)");
    expect_contains(ir, "a.0[i.1] = ((f(f.2) + g(f.2)) + (2:float32 * SCALE.3))");
}

TEST(Sema, ModuleAttributeOfChunksFromPython) {
    // Python's SourceCollector (python/weft/sources.py) hands over synthetic chunks of imports and
    // constants, then each definition at its line of its own file. The module's constants sit in
    // "<weft constants>", which belongs to every module.
    std::string ir = ir_of_modules({
        {"<weft imports>", "import weft as wp\nimport tests.python.helpers_mod as helpers\n", 0},
        {"<weft constants>", "BLEND = wp.constant(0.5)\n", 0},
        {"/src/tests/python/helpers_mod.py", "@wp.func\ndef lerp(a: float, b: float) -> float:\n    return a + (b - a) * BLEND\n",
         20},
        {"/src/tests/python/test_modules.py",
         "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    lerp = a[i]\n    a[i] = helpers.lerp(lerp, 1.0) * "
         "helpers.BLEND\n",
         40},
    });
    expect_contains(ir, "(lerp(lerp.2, 1:float32) * 0.5:float32)");
}

}  // namespace
