// tests/runtime/cuda/nvrtc_compiler_test.cpp: CUDA C++ -> PTX / cubin through NVRTC (no GPU needed).
//
// Checks the PTX text itself: the kernel's .entry, the .loc/.file line tables that -lineinfo adds
// (gpusim maps cycles back to source lines through them) and that #line file names reach .file.
#include <string>

#include <gtest/gtest.h>

#include "runtime/cuda/nvrtc_compiler.h"

namespace weft::runtime {
namespace {

const SourceFile kHeader{"weft_native.h", R"(
    #pragma once
    namespace wp {
    template <typename T> __device__ inline T madd(T a, T b, T c) { return a * b + c; }
    }
)"};

const char* kSaxpy = R"(#include "weft_native.h"
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#line 7 "kernels/saxpy.py"
    if (i < n) y[i] = wp::madd(a, x[i], y[i]);
}
)";

std::string compile_error(const std::string& text) {
    try {
        compile_cuda_to_ptx({"main.cu", text}, {kHeader}, {});
    } catch (const CudaCompileError& e) { return e.what(); }
    return "";
}

TEST(Nvrtc, PtxHasEntryAndLineInfo) {
    const std::string ptx = compile_cuda_to_ptx({"main.cu", kSaxpy}, {kHeader}, {});
    EXPECT_NE(ptx.find(".target sm_90"), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".entry saxpy("), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(".loc"), std::string::npos) << ptx;
    // The #line file name becomes a .file entry that .loc lines refer to.
    const size_t file = ptx.find(".file");
    ASSERT_NE(file, std::string::npos) << ptx;
    EXPECT_NE(ptx.find(" \"kernels/saxpy.py\"\n", file), std::string::npos) << ptx;
    EXPECT_NE(ptx.find(" \"main.cu\"\n", file), std::string::npos) << ptx;
}

TEST(Nvrtc, NoLineInfoWhenOff) {
    CudaCompileOptions options;
    options.line_info = false;
    const std::string ptx = compile_cuda_to_ptx({"main.cu", kSaxpy}, {kHeader}, options);
    EXPECT_NE(ptx.find(".entry saxpy("), std::string::npos);
    EXPECT_EQ(ptx.find(".loc"), std::string::npos) << ptx;
}

TEST(Nvrtc, DefinesReachTheCompiler) {
    CudaCompileOptions options;
    options.defines = {"WEFT_SCALE=3", "WP_DEBUG"};
    const std::string ptx = compile_cuda_to_ptx({"main.cu",
                                                 "#ifndef WP_DEBUG\n#error no WP_DEBUG\n#endif\n"
                                                 "extern \"C\" __global__ void k(int* out) { *out = WEFT_SCALE * 14; }\n"},
                                                {}, options);
    EXPECT_NE(ptx.find("42"), std::string::npos) << ptx;
}

TEST(Nvrtc, ErrorNamesFileAndLine) {
    const std::string text = compile_error(
        "extern \"C\" __global__ void k(float* y) {\n"
        "    y[0] = 1.0f;\n"
        "    y[1] = undefined_name;\n"
        "}\n");
    EXPECT_NE(text.find("main.cu:3: error:"), std::string::npos) << text;
    EXPECT_NE(text.find("undefined_name"), std::string::npos) << text;
}

TEST(Nvrtc, LineDirectivesMoveErrorsToKernelSource) {
    const std::string text = compile_error(
        "extern \"C\" __global__ void k(float* y) {\n"
        "#line 12 \"kernels/foo.py\"\n"
        "    y[0] = undefined_name;\n"
        "}\n");
    EXPECT_NE(text.find("kernels/foo.py:12: error:"), std::string::npos) << text;
}

TEST(Nvrtc, CubinIsElfForSm90) {
    const std::string cubin = compile_cuda_to_cubin({"main.cu", kSaxpy}, {kHeader}, {});
    ASSERT_GE(cubin.size(), 4u);
    EXPECT_EQ(cubin.substr(0, 4),
              "\x7f"
              "ELF");
}

TEST(Nvrtc, BadArchIsAUserError) {
    CudaCompileOptions options;
    options.arch = "hopper";
    try {
        compile_cuda_to_ptx({"main.cu", kSaxpy}, {kHeader}, options);
        FAIL() << "expected CudaCompileError";
    } catch (const CudaCompileError& e) { EXPECT_NE(std::string(e.what()).find("'hopper'"), std::string::npos) << e.what(); }
    options.arch = "sm_1";  // well-formed, but no NVRTC supports it: NVRTC's own error
    EXPECT_THROW(compile_cuda_to_ptx({"main.cu", kSaxpy}, {kHeader}, options), CudaCompileError);
}

TEST(Nvrtc, VersionNamesNvrtc) {
    const std::string version = nvrtc_version();
    EXPECT_EQ(version.rfind("nvrtc ", 0), 0u) << version;
    EXPECT_NE(version, "nvrtc unknown");
}

}  // namespace
}  // namespace weft::runtime
