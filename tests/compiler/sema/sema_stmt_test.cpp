// Semantic analysis of statements (compiler/sema/sema_stmt.cpp), checked on the printed IR:
// tid() unpacking, atomics from `+=`, shared arrays, the types of locals.
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
)",
                              0}},
                            {});
    const KernelInfo* k = m->find_kernel("k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->block_dim, 128);
    EXPECT_TRUE(k->uses_sync);
    EXPECT_EQ(k->shared_bytes, 512u + 8 * 9 * 24);
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

}  // namespace
