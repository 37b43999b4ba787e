// tests/runtime/jit/cuda_driver_test.cpp: the CUDA driver loaded at run time.
//
// On a machine without a GPU or without libcuda, cuda_available() must be a clean false with a
// reason; the tests that need a GPU are then skipped (and say why). On a GPU machine, saxpy goes
// the whole way: NVRTC -> PTX -> cuModuleLoadData -> cuLaunchKernel, checked against the host.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/nvrtc_compiler.h"

namespace weft::runtime {
namespace {

TEST(CudaDriver, AvailabilityIsACleanAnswer) {
    if (cuda_available()) {
        EXPECT_EQ(cuda_unavailable_reason(), "");
        EXPECT_GT(cuda_driver().device_count, 0);
        EXPECT_GT(cuda_driver().driver_version, 0);
    } else {
        EXPECT_NE(cuda_unavailable_reason(), "");
        try {
            cuda_driver();
            FAIL() << "cuda_driver() must throw when CUDA is not available";
        } catch (const CudaError& e) {
            EXPECT_NE(std::string(e.what()).find(cuda_unavailable_reason()), std::string::npos);
        }
    }
}

TEST(CudaDriver, CheckThrowsWithTheCallName) {
    EXPECT_NO_THROW(check(CUDA_SUCCESS, "cuInit"));
    try {
        check(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAlloc");
        FAIL() << "expected CudaError";
    } catch (const CudaError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_OUT_OF_MEMORY);
        const std::string text = e.what();
        EXPECT_EQ(text.rfind("cuMemAlloc failed: ", 0), 0u) << text;
        // With a driver the error has its name; without one, its number.
        const std::string expected = cuda_available() ? "CUDA_ERROR_OUT_OF_MEMORY" : "CUDA error 2";
        EXPECT_NE(text.find(expected), std::string::npos) << text;
    }
}

TEST(CudaDriver, SaxpyOnTheGpu) {
    if (!cuda_available()) GTEST_SKIP() << "no CUDA GPU: " << cuda_unavailable_reason();
    const CudaDriver& cu = cuda_driver();

    CUdevice device;
    check(cu.cuDeviceGet(&device, 0), "cuDeviceGet");
    int major = 0, minor = 0;
    check(cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device),
          "cuDeviceGetAttribute");
    check(cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device),
          "cuDeviceGetAttribute");
    char name[256] = {};
    check(cu.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName");
    CUcontext context;
    check(cu.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");

    CudaCompileOptions options;
    options.arch = "sm_" + std::to_string(major * 10 + minor);
    const std::string ptx = compile_cuda_to_ptx(
        {"saxpy.cu",
         "extern \"C\" __global__ void saxpy(int n, float a, const float* x, float* y) {\n"
         "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
         "    if (i < n) y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);\n"
         "}\n"},
        {}, options);

    CUmodule module;
    check(cu.cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
    CUfunction saxpy;
    check(cu.cuModuleGetFunction(&saxpy, module, "saxpy"), "cuModuleGetFunction");

    constexpr int n = 100003;  // not a multiple of the block size: the bounds check matters
    std::vector<float> x(n), y(n), expected(n);
    const float a = 2.5f;
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * static_cast<float>(i % 1000) - 3.0f;
        y[i] = std::sin(static_cast<float>(i));
        expected[i] = a * x[i] + y[i];  // rounded twice, like __fmul_rn then __fadd_rn
    }
    CUdeviceptr dx, dy;
    check(cu.cuMemAlloc(&dx, n * sizeof(float)), "cuMemAlloc");
    check(cu.cuMemAlloc(&dy, n * sizeof(float)), "cuMemAlloc");
    check(cu.cuMemcpyHtoD(dx, x.data(), n * sizeof(float)), "cuMemcpyHtoD");
    check(cu.cuMemcpyHtoD(dy, y.data(), n * sizeof(float)), "cuMemcpyHtoD");

    CUstream stream;
    check(cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    int count = n;
    float scale = a;
    void* params[] = {&count, &scale, &dx, &dy};
    const unsigned block = 256, grid = (n + block - 1) / block;
    check(cu.cuLaunchKernel(saxpy, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr),
          "cuLaunchKernel");
    check(cu.cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::vector<float> result(n);
    check(cu.cuMemcpyDtoH(result.data(), dy, n * sizeof(float)), "cuMemcpyDtoH");

    int mismatches = 0;
    for (int i = 0; i < n; ++i) mismatches += result[i] != expected[i];
    EXPECT_EQ(mismatches, 0) << "on " << name;

    check(cu.cuStreamDestroy(stream), "cuStreamDestroy");
    check(cu.cuMemFree(dx), "cuMemFree");
    check(cu.cuMemFree(dy), "cuMemFree");
    check(cu.cuModuleUnload(module), "cuModuleUnload");
    check(cu.cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
}

}  // namespace
}  // namespace weft::runtime
