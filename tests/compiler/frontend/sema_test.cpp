// Semantic analysis, checked on the printed IR (as LLVM's pass tests do with FileCheck):
// literal adaptation, constant folding, tid() unpacking, atomics from `+=`, shared arrays,
// type inference of locals, tuple returns, Warp's division semantics.
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

TEST(Sema, TidUnpacksIntoLaunchDimensions) {
    std::string ir = ir_of(R"(
@wp.kernel
def k(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = 1.0
)");
    expect_contains(ir, "i.1 = tid_dim(0)");
    expect_contains(ir, "j.2 = tid_dim(1)");
}

TEST(Sema, AugmentedAssignmentOnArraysIsAtomic) {
    std::string ir = ir_of(R"(
@wp.kernel
def k(a: wp.array(dtype=float), c: wp.array(dtype=int)):
    a[0] += 1.0
    c[0] -= 2
    a[1] *= 3.0
)");
    expect_contains(ir, "atomic_add(a.0[0:int32], 1:float32)");
    expect_contains(ir, "atomic_sub(c.1[0:int32], 2:int32)");
    expect_contains(ir, "a.0[1:int32] = (a.0[1:int32] * 3:float32)");
}

TEST(Sema, SharedArraysAreLaidOut) {
    auto m = compile_module({{"t.py", R"(import weft as wp
@wp.kernel(block_dim=128)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.shared_array(shape=(8, 9), dtype=wp.vec3d)
    s[wp.thread_idx()] = a[wp.tid()]
    wp.sync_threads()
    t[0, 0] = wp.vec3d(0.0, 0.0, 0.0)
)", 0}}, {});
    const KernelInfo* k = m->find_kernel("k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->block_dim, 128);
    EXPECT_TRUE(k->uses_sync);
    EXPECT_EQ(k->shared_bytes, 512u + 8 * 9 * 24);
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

TEST(Sema, LocalsKeepTheirFirstType) {
    EXPECT_THROW(ir_of(R"(
@wp.kernel
def k(a: wp.array(dtype=float)):
    x = 1
    x = 2.5
)"),
                 CompileError);
    // int literal into a float local adapts
    std::string ir = ir_of(R"(
@wp.kernel
def k(a: wp.array(dtype=float)):
    x = 1.0
    x = 2
    a[0] = x
)");
    expect_contains(ir, "x.1 = 2:float32");
}

TEST(Sema, VerifierAcceptsEveryLoweredFunction) {
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
)", 0}}, {});
    for (const auto& f : m->ir->functions) EXPECT_EQ(ir::verify(*f), "") << f->name;
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

TEST(Sema, ModuleAttributeIsTheModulesNeverACallersLocal) {
    // The caller has locals named `f` and `SCALE`; `geo.f` and `geo.SCALE` still mean geometry's.
    std::string ir = ir_of_modules({{"kernels/geometry.py", kGeometryModule, 0}, {"kernels/user.py", R"(import weft as wp
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
)", 0}});
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
        {"/src/tests/python/helpers_mod.py", "@wp.func\ndef lerp(a: float, b: float) -> float:\n    return a + (b - a) * BLEND\n", 20},
        {"/src/tests/python/test_modules.py",
         "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    lerp = a[i]\n    a[i] = helpers.lerp(lerp, 1.0) * helpers.BLEND\n", 40},
    });
    expect_contains(ir, "(lerp(lerp.2, 1:float32) * 0.5:float32)");
}

}  // namespace
