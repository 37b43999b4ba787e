// Generic funcs and kernels and func overload sets (compiler/sema/sema_generics.cpp), checked on
// the printed IR and the C++ names of the instances.
#include <gtest/gtest.h>

#include "compiler/driver.h"
#include "compiler/ir/ir.h"

namespace {

using namespace weft::compiler;

std::shared_ptr<CompiledModule> compile(const std::string& body, const CompileOptions& options = {}) {
    return compile_module({{"t.py", "import weft as wp\nfrom typing import Any\n" + body, 0}}, options);
}

void expect_contains(const std::string& hay, const std::string& needle) {
    EXPECT_NE(hay.find(needle), std::string::npos) << "missing: " << needle << "\nin:\n" << hay;
}

int count(const std::string& hay, const std::string& needle) {
    int n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
    return n;
}

TEST(SemaGenerics, GenericFuncIsInstantiatedPerArgumentTypes) {
    auto m = compile(R"(
@wp.func
def add(a: Any, b: Any):
    return a + b

@wp.kernel
def k(f: wp.array(dtype=float), v: wp.array(dtype=wp.vec3d)):
    f[0] = add(f[1], f[2]) + add(1.0, 2.0)
    v[0] = add(v[1], v[2])
)");
    std::string ir = ir::print(*m->ir);
    // float32 twice (one instance), vec3d once
    EXPECT_EQ(count(ir, "func add("), 2) << ir;
    expect_contains(ir, "func add(a.0: float32, b.1: float32) -> float32");
    expect_contains(ir, "func add(a.0: vec3d, b.1: vec3d) -> vec3d");
    expect_contains(m->gen.cpp, "wpf_add_1");
    expect_contains(m->gen.cpp, "wpf_add_2");
}

TEST(SemaGenerics, OverloadsPickExactThenGenericThenConverted) {
    auto m = compile(R"(
@wp.func
def f(a: float, b: float):
    return a * b

@wp.func
def f(a: int, b: int):
    return a - b

@wp.func
def f(a: Any, b: Any):
    return a + b

@wp.func
def g(a: wp.float64):
    return a

@wp.kernel
def k(x: wp.array(dtype=float), i: wp.array(dtype=int), v: wp.array(dtype=wp.vec2), d: wp.array(dtype=wp.float64)):
    x[0] = f(x[1], x[2])
    i[0] = f(i[1], i[2])
    v[0] = f(v[1], v[2])
    d[0] = g(1.0)
)");
    std::string ir = ir::print(*m->ir);
    expect_contains(ir, "func f(a.0: float32, b.1: float32) -> float32");
    expect_contains(ir, "func f(a.0: int32, b.1: int32) -> int32");
    expect_contains(ir, "func f(a.0: vec2f, b.1: vec2f) -> vec2f");
    expect_contains(ir, "(a.0 * b.1)");
    expect_contains(ir, "(a.0 - b.1)");
}

TEST(SemaGenerics, ShapesAndConstraintsMatch) {
    auto m = compile(R"(
@wp.func
def first(v: wp.vec(length=Any, dtype=wp.Float)):
    return v[0]

@wp.func
def corner(m: wp.types.matrix(shape=(Any, 2), dtype=Any)):
    return m[0, 1]

@wp.kernel
def k(a: wp.array(dtype=wp.types.vector(5, dtype=wp.float64)), m: wp.array(dtype=wp.mat((3, 2), dtype=float)), out: wp.array(dtype=wp.float64)):
    out[0] = first(a[0]) + wp.float64(corner(m[0]))
)");
    std::string ir = ir::print(*m->ir);
    expect_contains(ir, "func first(v.0: vec(length=5, dtype=float64)) -> float64");
    expect_contains(ir, "func corner(m.0: mat(shape=(3, 2), dtype=float32)) -> float32");
}

TEST(SemaGenerics, NoMatchingOverloadListsTheDefinitions) {
    try {
        compile(R"(
@wp.func
def first(v: wp.vec(length=Any, dtype=wp.Int)):
    return v[0]

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    x = first(a[0])
)");
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        std::string what = e.what();
        expect_contains(what, "error: no overload of 'first' for (vec3f)");
        expect_contains(what, "note: candidate: this definition of 'first'");
    }
}

TEST(SemaGenerics, GenericKernelIsATemplateUntilInstantiated) {
    const char* src = R"(
@wp.kernel
def fill(a: wp.array(dtype=Any), value: Any, n: int):
    a[wp.tid()] = value
)";
    auto m = compile(src);
    EXPECT_EQ(m->ir->find("fill"), nullptr);

    CompileOptions o;
    o.kernel_arg_types["fill"] = {array_type(vector_type(3, ScalarKind::Float64), 1), vector_type(3, ScalarKind::Float64),
                                  nullptr};
    auto inst = compile(src, o);
    ASSERT_NE(inst->find_kernel("fill"), nullptr);
    std::string ir = ir::print(*inst->ir);
    expect_contains(ir, "kernel fill(a.0: array(vec3d), value.1: vec3d, n.2: int32)");
}

TEST(SemaGenerics, KernelInstanceErrorsNameTheParameter) {
    const char* src = R"(
@wp.kernel
def fill(a: wp.array(dtype=Any), value: wp.Float):
    a[wp.tid()] = value
)";
    CompileOptions o;
    o.kernel_arg_types["fill"] = {array_type(float32_type(), 1), int32_type()};
    try {
        compile(src, o);
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        expect_contains(e.what(), "error: parameter 'value' of kernel 'fill' does not take int32");
    }
    o.kernel_arg_types["fill"] = {array_type(float32_type(), 1), nullptr};
    try {
        compile(src, o);
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        expect_contains(e.what(), "error: generic parameter 'value' of kernel 'fill' has no concrete type");
    }
}

TEST(SemaGenerics, SameSignatureTwiceIsARedefinition) {
    try {
        compile(R"(
@wp.func
def f(a: float):
    return a

@wp.func
def f(b: float):
    return b
)");
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) { expect_contains(e.what(), "error: redefinition of 'f'"); }
}

TEST(SemaGenerics, SameNameInAnotherModuleIsStillARedefinition) {
    // only definitions in one file form an overload set; modules of a compile share one namespace
    try {
        compile_module({{"geo.py", "import weft as wp\n@wp.func\ndef f(a: float):\n    return a\n", 0},
                        {"xpbd.py", "import weft as wp\n@wp.func\ndef f(a: int):\n    return a\n", 0}},
                       {});
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) { expect_contains(e.what(), "xpbd.py:3:5: error: redefinition of 'f'"); }
}

TEST(SemaGenerics, TypeOfAValueAndDtype) {
    auto m = compile(R"(
@wp.kernel
def k(a: wp.array(dtype=wp.vec3d), b: wp.array(dtype=wp.float64)):
    z = type(a[0])()
    s = a.dtype.dtype(2.0)
    b[0] = type(b[0])(1) + s + z[0]
)");
    std::string ir = ir::print(*m->ir);
    expect_contains(ir, "var z.2: vec3d");
    expect_contains(ir, "var s.3: float64");
}

}  // namespace
