// tests/runtime/cuda/launch_log_test.cpp: a kernel that faults raises RuntimeError naming it.
//
// Built twice (a fault leaves the CUDA context unusable for the rest of the process):
//   cuda_fault_sync_test   WEFT_CUDA_SYNC=1: the faulting launch itself raises, naming kernel, dim, device
//   cuda_fault_async_test  default: the next synchronising call raises, naming the one launch in flight
// The kernel writes far out of bounds on purpose, in release mode (no bounds checks). Skipped,
// with the reason, on a machine without a GPU.
#include <cstdlib>

#include "cuda_test_support.h"
#include "runtime/cuda/stream.h"
#include "runtime/errors.h"

namespace weft::runtime {
namespace {

using namespace testing;
using compiler::float32_type;

TEST(CudaFault, OutOfBoundsWriteNamesTheKernel) {
    WEFT_REQUIRE_GPU();
    ::setenv("WEFT_CUDA_SYNC", WEFT_FAULT_TEST_SYNC ? "1" : "0", 1);  // read when the device is first used
    auto m = test_module();
    LaunchOptions o;
    o.device = cuda0();
    o.debug = 0;
    Array a = Array::zeros(float32_type(), {16}, cuda0());
    Array b = Array::zeros(float32_type(), {16}, cuda0());
    launch(m->kernel("add_one"), {16}, {LaunchArg::of(b)}, o);  // a good launch first
    synchronize(cuda0());

    std::string message;
    try {
        // a[2^31 - 1]: 8 GiB past a 64-byte array.
        launch(m->kernel("write_at"), {1}, {LaunchArg::of(a), LaunchArg::integer_of(2147483647)}, o);
        if (WEFT_FAULT_TEST_SYNC) ADD_FAILURE() << "with WEFT_CUDA_SYNC=1 the launch itself must raise";
        std::vector<float> host(16);
        b.copy_to_host(host.data(), 64);  // an unrelated call notices the fault
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) { message = e.what(); }
    EXPECT_NE(message.find("kernel 'write_at' (tests/runtime/cuda/test_kernels.py:"), std::string::npos) << message;
    EXPECT_NE(message.find("dim (1,)"), std::string::npos) << message;
    EXPECT_NE(message.find("device cuda:0"), std::string::npos) << message;
    EXPECT_NE(message.find("faulted: CUDA_ERROR_"), std::string::npos) << message;
    EXPECT_EQ(message.find("add_one"), std::string::npos) << "the earlier, finished launch is not a suspect: " << message;

    // Everything afterwards says the device is lost, and why.
    try {
        launch(m->kernel("add_one"), {16}, {LaunchArg::of(b)}, o);
        FAIL() << "expected RuntimeError after the fault";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("unusable after a kernel fault"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace weft::runtime
