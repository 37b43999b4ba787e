// tests/runtime/cuda/cuda_driver_test.cpp: the CUDA driver loaded at run time.
//
// On a machine without a GPU or without libcuda, cuda_available() must be a clean false with a
// reason; the tests that need a GPU are then skipped (and say why). On a GPU machine, saxpy goes
// the whole way: NVRTC -> PTX -> cuModuleLoadData -> cuLaunchKernel, checked against the host.
// The entry points' versions are checked against the toolkit's cudaTypedefs.h, with no GPU.
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
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
        } catch (const CudaError& e) { EXPECT_NE(std::string(e.what()).find(cuda_unavailable_reason()), std::string::npos); }
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
    check(cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
    check(cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
    char name[256] = {};
    check(cu.cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName");
    CUcontext context;
    check(cu.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");

    CudaCompileOptions options;
    options.arch = "sm_" + std::to_string(major * 10 + minor);
    const std::string ptx =
        compile_cuda_to_ptx({"saxpy.cu",
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
    check(cu.cuLaunchKernel(saxpy, grid, 1, 1, block, 1, 1, 0, stream, params, nullptr), "cuLaunchKernel");
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

// Every driver entry point is asked for in the version whose prototype Weft calls it with. No
// GPU needed.
//
// cuGetProcAddress(name, version) returns the newest version of `name` not newer than `version`.
// When NVIDIA adds a _v2 with other parameters without remapping the plain name in cuda.h (CUDA
// 13.0: cuCtxSynchronize(void) -> cuCtxSynchronize_v2(CUcontext)), asking for CUDA_VERSION calls
// the new function through the old prototype: on the H200 that read a garbage context and failed
// with CUDA_ERROR_CONTEXT_IS_DESTROYED. The reference here is the toolkit's cudaTypedefs.h, which
// has one PFN_<name>_v<version> typedef per version of each function: the typedef a request
// resolves to must take as many parameters as the prototype in the table.
struct Typedef {
    int version;
    int arity;
};

// PFN_<base>_v<version> typedefs of cudaTypedefs.h and cudaGLTypedefs.h (the OpenGL interop
// entry point), not the _ptsz/_ptds stream variants.
std::map<std::string, std::vector<Typedef>> read_typedefs() {
    std::stringstream ss;
    for (const char* header : {WEFT_CUDA_INCLUDE_DIR "/cudaTypedefs.h", WEFT_CUDA_INCLUDE_DIR "/cudaGLTypedefs.h"}) {
        std::ifstream f(header);
        ss << f.rdbuf() << "\n";
    }
    const std::string text = ss.str();
    std::map<std::string, std::vector<Typedef>> out;
    const std::regex re(R"(typedef\s+CUresult\s+\(CUDAAPI\s+\*PFN_(\w+?)_v(\d+)(_ptsz|_ptds)?\)\s*\(([^;]*)\)\s*;)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        if (m[3].matched) continue;
        std::string params = m[4].str();
        params.erase(0, params.find_first_not_of(" \t\n"));
        params.erase(params.find_last_not_of(" \t\n") + 1);
        int arity = 0;
        if (!params.empty() && params != "void") {
            arity = 1;
            int depth = 0;
            for (char c : params) {
                if (c == '(') ++depth;
                if (c == ')') --depth;
                if (c == ',' && depth == 0) ++arity;
            }
        }
        out[m[1].str()].push_back({std::stoi(m[2].str()), arity});
    }
    return out;
}

TEST(CudaDriverPrototypes, EveryEntryPointResolvesToAVersionWithItsArity) {
    auto typedefs = read_typedefs();
    ASSERT_GT(typedefs.size(), 100u) << "cudaTypedefs.h not found or not parsed under " WEFT_CUDA_INCLUDE_DIR;
    auto entries = cuda_entry_points();
    ASSERT_GT(entries.size(), 40u);
    for (const CudaEntryPoint& e : entries) {
        auto it = typedefs.find(e.base);
        ASSERT_NE(it, typedefs.end()) << e.base << " has no PFN typedef in cudaTypedefs.h or cudaGLTypedefs.h";
        const Typedef* best = nullptr;
        for (const Typedef& t : it->second)
            if (t.version <= e.version && (!best || t.version > best->version)) best = &t;
        ASSERT_NE(best, nullptr) << e.base << ": no version at or below " << e.version;
        EXPECT_EQ(best->arity, e.arity) << e.base << " asked for at version " << e.version << " resolves to PFN_" << e.base
                                        << "_v" << best->version << " with " << best->arity
                                        << " parameters, but Weft calls it with " << e.arity;
    }
}

TEST(CudaDriverPrototypes, CtxSynchronizeIsPinnedBelowTheContextTakingVersion) {
    EXPECT_EQ(cuda_entry_point_version("cuCtxSynchronize"), 2000);
    EXPECT_EQ(cuda_entry_point_version("cuMemAlloc"), CUDA_VERSION);
}

}  // namespace
}  // namespace weft::runtime
