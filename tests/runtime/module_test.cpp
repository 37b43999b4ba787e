// runtime/module.cpp on the CPU device: a launch checks every argument against the kernel's
// signature and names the parameter of a mismatch; a near kernel name is suggested; verify-finite
// names the launch that left a NaN or Inf; zero-sized launches and arrays are fine.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

TEST(Launch, ArgumentMismatchesNameTheParameter) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule);
    auto x = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    auto xi = runtime::Array::zeros(compiler::int32_type(), {4}, {});
    auto x2 = runtime::Array::zeros(compiler::float32_type(), {2, 2}, {});
    EXPECT_EQ(error_of([&] {
                  run(m, "scale", {4}, {arg(x), num(2.0)});
              }),
              "kernel 'scale' takes 3 argument(s) (x, s, out), 2 given");
    EXPECT_EQ(error_of([&] {
                  run(m, "scale", {4}, {arg(xi), num(2.0), arg(x)});
              }),
              "kernel 'scale': argument 'x' expects array(float32), got array(int32, shape=(4,), device=cpu)");
    EXPECT_EQ(error_of([&] {
                  run(m, "scale", {4}, {arg(x), arg(x), arg(x)});
              }),
              "kernel 'scale': argument 's' expects float32, got array(float32, shape=(4,), device=cpu)");
    EXPECT_EQ(error_of([&] {
                  run(m, "scale", {4}, {arg(x2), num(1.0), arg(x)});
              }),
              "kernel 'scale': argument 'x' expects array(float32), got array(float32, shape=(2,2), device=cpu)");
    EXPECT_EQ(error_of([&] {
                  run(m, "gather", {4}, {arg(x), num(1.5), arg(x)});
              }),
              "kernel 'gather': argument 'idx' expects array(int32), got float 1.500000");
    EXPECT_EQ(error_of([&] { m->kernel("scal"); }), "module 'test_kernels.py' has no kernel 'scal'; did you mean 'scale'?");
    EXPECT_EQ(error_of([&] {
                  run(m, "scale", {}, {arg(x), num(2.0), arg(x)});
              }),
              "launch of kernel 'scale': dim has 0 entries; expected 1 to 4");
    EXPECT_EQ(error_of([&] { runtime::parse_device("gpu"); }),
              "invalid device 'gpu': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'");
}

TEST(Launch, VerifyFiniteNamesTheLaunch) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule);
    std::vector<float> xs = {1, 0, 3};
    auto x = array_of(compiler::float32_type(), xs);
    auto out = runtime::Array::zeros(compiler::float32_type(), {3}, {});
    runtime::config().verify_finite = true;
    std::string e = error_of([&] { run(m, "scale", {3}, {arg(x), num(INFINITY), arg(out)}); });
    runtime::config().verify_finite = false;
    EXPECT_EQ(e.rfind("launch of kernel 'scale' left a non-finite value", 0), 0u) << e;
    EXPECT_NE(e.find("in argument 'out' at scalar 0"), std::string::npos) << e;
}

TEST(Launch, ZeroSizedLaunchesAndArraysAreFine) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule);
    auto x = runtime::Array::zeros(compiler::float32_type(), {0}, {});
    EXPECT_NO_THROW(run(m, "scale", {0}, {arg(x), num(2.0), arg(x)}));
}

}  // namespace
