// runtime/oob_report.cpp on the CPU device: in debug mode an out-of-range index raises an error
// naming the kernel, file:line, the index and the array's shape; in-range indices run normally.
#include <gtest/gtest.h>

#include <functional>

#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

TEST(Launch, DebugModeReportsOutOfRangeIndices) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule);
    std::vector<float> xs = {1, 2, 3, 4};
    std::vector<int> idx = {0, 3, 9, 1};
    auto x = array_of(compiler::float32_type(), xs);
    auto ia = array_of(compiler::int32_type(), idx);
    auto out = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    EXPECT_EQ(
        error_of([&] {
            run(m, "gather", {4}, {arg(x), arg(ia), arg(out)}, {}, 1);
        }),
        "kernel 'gather' (test_kernels.py:11): index 9 is out of range for dimension 0 of an array of shape (4,) (indices (9,))");
    // In-range indices run normally in debug mode.
    idx[2] = 2;
    ia.copy_from_host(idx.data(), 16);
    run(m, "gather", {4}, {arg(x), arg(ia), arg(out)}, {}, 1);
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 4, 3, 2}));
}

}  // namespace
