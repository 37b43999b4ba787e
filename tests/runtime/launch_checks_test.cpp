// runtime/launch_checks.cpp on the CPU device: a launch whose dimensions differ from the kernel's
// wp.tid() is refused naming both; an array that every thread indexes with tid, shorter than
// the launch, is refused naming the kernel, the array, its shape and dim; guarded accesses and
// long-enough arrays launch; extents past 32 bits are refused. And the deepest expression the
// parser accepts (256 levels) compiles and runs (Clang's default bracket limit once rejected it).
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

const char* kShapes = R"(
@wp.kernel
def one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0

@wp.kernel
def two(a: wp.array2d(dtype=float), b: wp.array(dtype=float)):
    i, j = wp.tid()
    a[i, j] = b[j]

@wp.kernel
def guarded(a: wp.array(dtype=float)):
    i = wp.tid()
    if i >= a.shape[0]:
        return
    a[i] = 1.0

@wp.kernel
def conditional(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    x = a[i] if i < n else 0.0
    if i < n:
        a[i] = x + 1.0

@wp.kernel
def reassigned(a: wp.array(dtype=float)):
    i = wp.tid()
    i = i / 2
    a[i] = 1.0
)";

TEST(LaunchChecks, DimensionsMustMatchTheKernelsTid) {
    REQUIRE_CPU();
    auto m = module_of(kShapes, "shapes.py");
    auto a = runtime::Array::zeros(compiler::float32_type(), {64}, {});
    EXPECT_EQ(error_of([&] {
                  run(m, "one", {8, 8}, {arg(a)});
              }),
              "shapes.py:4:5: launch of kernel 'one' with dim=(8, 8) (2-D): the kernel reads a 1-D thread index (`i = "
              "wp.tid()`), so its launch needs 1 dimension(s); launch it with 1 or read `i, j = wp.tid()`");
    auto a2 = runtime::Array::zeros(compiler::float32_type(), {8, 8}, {});
    EXPECT_EQ(error_of([&] {
                  run(m, "two", {64}, {arg(a2), arg(a)});
              }),
              "shapes.py:9:5: launch of kernel 'two' with dim=(64,) (1-D): the kernel reads a 2-D thread index (`i, j = "
              "wp.tid()`), so its launch needs 2 dimension(s); launch it with 2 or read `i = wp.tid()`");
    EXPECT_NO_THROW(run(m, "two", {8, 8}, {arg(a2), arg(a)}));
    EXPECT_NO_THROW(run(m, "one", {64}, {arg(a)}));
    EXPECT_EQ(values_of<float>(a)[63], 1.0f);
}

TEST(LaunchChecks, ArraysIndexedByTidMustCoverTheLaunch) {
    REQUIRE_CPU();
    auto m = module_of(kShapes, "shapes.py");
    auto a = runtime::Array::zeros(compiler::float32_type(), {8}, {});
    EXPECT_EQ(error_of([&] { run(m, "one", {1000000000000ll / 1000}, {arg(a)}); }),
              "shapes.py:6:5: launch of kernel 'one' with dim=(1000000000,): array 'a' has shape (8,), but every thread "
              "indexes its axis 0 with the thread index i (0 to 999999999), unguarded; pass an array of at least 1000000000 "
              "along axis 0, launch 8 threads along it, or guard the access (`if i < a.shape[0]:`)");
    auto a2 = runtime::Array::zeros(compiler::float32_type(), {8, 4}, {});
    auto b = runtime::Array::zeros(compiler::float32_type(), {8}, {});
    EXPECT_EQ(error_of([&] {
                  run(m, "two", {8, 8}, {arg(a2), arg(b)});
              }),
              "shapes.py:11:5: launch of kernel 'two' with dim=(8, 8): array 'a' has shape (8, 4), but every thread indexes "
              "its axis 1 with the thread index j (0 to 7), unguarded; pass an array of at least 8 along axis 1, launch 4 "
              "threads along it, or guard the access (`if j < a.shape[1]:`)");
    // guarded, conditional and rewritten indices are not the launch's business
    EXPECT_NO_THROW(run(m, "guarded", {100}, {arg(a)}));
    EXPECT_NO_THROW(run(m, "conditional", {100}, {arg(a), integer(8)}));
    EXPECT_NO_THROW(run(m, "reassigned", {16}, {arg(a)}));
    EXPECT_EQ(values_of<float>(a), std::vector<float>(8, 1.0f));
    EXPECT_EQ(error_of([&] { run(m, "one", {1ll << 31}, {arg(a)}); }),
              "launch of kernel 'one': dimension 2147483648 exceeds the largest extent of a launch (2147483647)");
}

TEST(LaunchChecks, DeepestAcceptedExpressionCompilesAndRuns) {
    REQUIRE_CPU();
    std::string e = "a[i]";  // 2 levels, then one per `+`: 256 in all
    for (int k = 0; k < 254; ++k) e += " + 1.0";
    auto m = module_of("@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = " + e + "\n");
    auto a = array_of(compiler::float32_type(), std::vector<float>{0.0f, 0.5f});
    run(m, "k", {2}, {arg(a)});
    EXPECT_EQ(values_of<float>(a), (std::vector<float>{254.0f, 254.5f}));
}

// The docs said debug mode finds an integer division by zero; it gave 0 silently. Now it is a
// located error in debug mode (and still 0 in release launches).
TEST(LaunchChecks, DebugModeReportsIntegerDivisionByZero) {
    REQUIRE_CPU();
    auto m = module_of(R"(
@wp.kernel
def divide(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    q = 7 / a[i]
    out[i] = q + 7 % a[i] + 7 // a[i]
)",
                       "div.py");
    auto a = array_of(compiler::int32_type(), std::vector<int32_t>{1, 0, 2});
    auto out = runtime::Array::zeros(compiler::int32_type(), {3}, {});
    run(m, "divide", {3}, {arg(a), arg(out)}, {}, /*debug=*/0);
    EXPECT_EQ(values_of<int32_t>(out), (std::vector<int32_t>{14, 0, 7}));
    EXPECT_EQ(error_of([&] {
                  run(m, "divide", {3}, {arg(a), arg(out)}, {}, /*debug=*/1);
              }),
              "kernel 'divide' (div.py:6): integer division by zero (`/`, `//` or `%` with a zero divisor; it gives 0 "
              "without --debug)");
}

}  // namespace
