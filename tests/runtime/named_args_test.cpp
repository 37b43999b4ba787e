// runtime/named_args.h: arguments by parameter name bind in the kernel's order whatever their
// order at the call; an unknown, repeated or missing name is an error naming it and the kernel;
// and a swap of two same-typed values is no longer silent.
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::NamedArgs;

const char* kModule = R"(
@wp.kernel
def affine(x: wp.array(dtype=float), scale: float, shift: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * scale + shift
)";

TEST(NamedArgs, BindsInTheKernelsOrder) {
    auto k = module_of(kModule)->kernel("affine");
    auto x = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    auto out = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    std::vector<runtime::LaunchArg> b =
        NamedArgs{{"out", arg(out)}, {"shift", num(1.0)}, {"x", arg(x)}, {"scale", num(2.0)}}.bind(k);
    ASSERT_EQ(b.size(), 4u);
    EXPECT_EQ(b[0].array.data(), x.data());
    EXPECT_EQ(b[1].number, 2.0);
    EXPECT_EQ(b[2].number, 1.0);
    EXPECT_EQ(b[3].array.data(), out.data());
}

TEST(NamedArgs, NameMistakesNameTheParameterAndKernel) {
    auto k = module_of(kModule)->kernel("affine");
    auto x = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    EXPECT_EQ(error_of([&] {
                  NamedArgs{{"x", arg(x)}, {"scael", num(2.0)}, {"shift", num(1.0)}, {"out", arg(x)}}.bind(k);
              }),
              "kernel 'affine' has no parameter 'scael' (did you mean 'scale'?)");
    EXPECT_EQ(error_of([&] { NamedArgs{{"x", arg(x)}, {"zzz", num(2.0)}}.bind(k); }), "kernel 'affine' has no parameter 'zzz'");
    EXPECT_EQ(
        error_of([&] {
            NamedArgs{{"x", arg(x)}, {"scale", num(2.0)}, {"scale", num(3.0)}, {"shift", num(1.0)}, {"out", arg(x)}}.bind(k);
        }),
        "kernel 'affine': argument 'scale' is given twice");
    EXPECT_EQ(error_of([&] {
                  NamedArgs{{"x", arg(x)}, {"scale", num(2.0)}, {"out", arg(x)}}.bind(k);
              }),
              "kernel 'affine': no argument for parameter 'shift'");
    EXPECT_EQ(error_of([&] {
                  NamedArgs{{"x", arg(x)}, {"out", arg(x)}}.bind(k);
              }),
              "kernel 'affine': no argument for parameters 'scale', 'shift'");
    EXPECT_EQ(error_of([&] { NamedArgs{}.bind(runtime::Kernel()); }), "launch of an empty kernel handle");
}

TEST(NamedArgs, TypesAreStillCheckedByParameter) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT";
    auto k = module_of(kModule)->kernel("affine");
    auto x = array_of(compiler::float32_type(), std::vector<float>{1, 2, 3, 4});
    auto out = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    runtime::LaunchOptions o;
    EXPECT_EQ(error_of([&] {
                  runtime::launch(k, {4}, NamedArgs{{"x", arg(x)}, {"scale", arg(x)}, {"shift", num(1.0)}, {"out", arg(out)}}, o);
              }),
              "kernel 'affine': argument 'scale' expects float32, got array(float32, shape=(4,), device=cpu)");
    // The two floats in either order at the call: the same launch.
    runtime::launch(k, {4}, NamedArgs().add("shift", num(1.0)).add("scale", num(10.0)).add("x", arg(x)).add("out", arg(out)), o);
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{11, 21, 31, 41}));
    runtime::launch(k, {4}, {{"x", arg(x)}, {"scale", num(10.0)}, {"shift", num(1.0)}, {"out", arg(out)}}, o);
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{11, 21, 31, 41}));
}

}  // namespace
