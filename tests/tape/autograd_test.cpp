// Jacobians and gradcheck (tape/autograd.h): the Jacobian of a linear kernel is its matrix, a
// wrong custom adjoint is caught against central differences, errors name the kernel.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/errors.h"
#include "tape/autograd.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::Array;

compiler::Type f64() { return compiler::float64_type(); }

// Jacobians and gradcheck.

const char* kLinear = R"(
@wp.kernel
def matvec(a: wp.array(dtype=wp.float64, ndim=2), x: wp.array(dtype=wp.vec2d), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = a[i, 0] * x[0][0] + a[i, 1] * x[0][1] + a[i, 2] * x[1][0] * x[1][1]

@wp.func
def cube(v: wp.float64) -> wp.float64:
    return v * v * v

@wp.func_grad(cube)
def cube_grad(v: wp.float64, adj_ret: wp.float64) -> wp.float64:
    return 2.0 * v * v * adj_ret

@wp.kernel
def wrong(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = cube(x[i])
)";

TEST(Autograd, JacobianOfALinearKernelIsItsMatrix) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    std::vector<double> av = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    Array a = array_of(f64(), av, cpu, {3, 3});
    Array x = array_of(compiler::vector_type(2, compiler::ScalarKind::Float64), std::vector<double>{0.5, -1.0, 2.0, 3.0}, cpu);
    Array y = Array::zeros(f64(), {3}, cpu);
    tape::JacobianOptions o;
    o.device = cpu;
    auto jac = tape::jacobian(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, o);
    ASSERT_EQ(jac.size(), 2u);  // (a, y) and (x, y)
    const auto& jx = jac[1];
    EXPECT_EQ(jx.input_name, "x");
    EXPECT_EQ(jx.output_name, "y");
    ASSERT_EQ(jx.matrix.rows(), 3);
    ASSERT_EQ(jx.matrix.cols(), 4);
    for (int i = 0; i < 3; ++i) {
        EXPECT_DOUBLE_EQ(jx.matrix(i, 0), av[3 * i]);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 1), av[3 * i + 1]);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 2), av[3 * i + 2] * 3.0);
        EXPECT_DOUBLE_EQ(jx.matrix(i, 3), av[3 * i + 2] * 2.0);
    }
    auto fd = tape::jacobian_fd(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, o);
    EXPECT_LT((fd[1].matrix - jx.matrix).cwiseAbs().maxCoeff(), 1e-8);
    EXPECT_LT((fd[0].matrix - jac[0].matrix).cwiseAbs().maxCoeff(), 1e-8);

    tape::GradcheckOptions g;
    g.jacobian = o;
    auto res = tape::gradcheck(m->kernel("matvec"), {3}, {arg(a), arg(x)}, {arg(y)}, g);
    EXPECT_TRUE(res.passed) << res.report;
    EXPECT_NE(res.report.find("x -> y"), std::string::npos);
}

TEST(Autograd, GradcheckNamesTheEntriesOfAWrongAdjoint) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    Array x = array_of(f64(), std::vector<double>{1.0, 2.0}, cpu), y = Array::zeros(f64(), {2}, cpu);
    tape::GradcheckOptions g;
    g.jacobian.device = cpu;
    auto res = tape::gradcheck(m->kernel("wrong"), {2}, {arg(x)}, {arg(y)}, g);
    EXPECT_FALSE(res.passed);
    // d cube / dx = 3 x^2 = 3 and 12; the custom gradient says 2 x^2 = 2 and 8.
    EXPECT_NE(res.report.find("x -> y"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("FAIL (2 entries)"), std::string::npos) << res.report;
    EXPECT_NE(res.report.find("d y[1] / d x[1]: adjoint 8, finite difference 12"), std::string::npos) << res.report;
    EXPECT_NEAR(res.max_abs_error, 4.0, 1e-6);
}

TEST(Autograd, ErrorsNameTheKernel) {
    runtime::Device cpu;
    if (!runtime::device_available(cpu)) GTEST_SKIP() << "the CPU device is not built here";
    auto m = module_of(kLinear, "autograd.py");
    Array x = array_of(f64(), std::vector<double>{1.0}, cpu);
    tape::JacobianOptions o;
    o.device = cpu;
    try {
        tape::jacobian(m->kernel("wrong"), {1}, {arg(x)}, {}, o);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "kernel 'wrong' takes 2 arguments; 1 inputs and 0 outputs given");
    }
    try {
        tape::jacobian(m->kernel("wrong"), {1}, {arg(x)}, {arg(x)}, o);
        tape::jacobian_fd(m->kernel("wrong"), {1}, {arg(x)}, {arg(x)}, {cpu, 0, -1, -1.0});
        FAIL();
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "jacobian_fd: eps must be positive"); }
}

}  // namespace
