// The builtin table against compiler/native: builtin_calls.cpp (generated from the table at build
// time, compiled into this test by the host compiler) calls every typed overload with exactly
// its listed types, and every adjoint of a Differentiable one. Here: the table is big enough,
// and nvcc compiles the same file as CUDA (device code included) when the toolkit is installed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

extern const int weft_generated_overload_count;

TEST(BuiltinTable, HasAtLeast200TypedOverloads) { EXPECT_GE(weft_generated_overload_count, 200); }

TEST(BuiltinTable, GeneratedCallsCompileWithNvcc) {
    if (!std::filesystem::exists(WEFT_NVCC)) GTEST_SKIP() << WEFT_NVCC << " not found";
    const auto dir = std::filesystem::temp_directory_path() / ("weft_native_nvcc_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string cmd = std::string(WEFT_NVCC) + " -std=c++17 --ptx -x cu -I" WEFT_NATIVE_DIR " " + WEFT_GENERATED_CALLS +
                            " -o " + (dir / "calls.ptx").string() + " > " + (dir / "log.txt").string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    EXPECT_EQ(rc, 0) << cmd << " (see " << (dir / "log.txt").string() << ")";
    if (rc == 0) {
        EXPECT_GT(std::filesystem::file_size(dir / "calls.ptx"), 1000u);
        std::filesystem::remove_all(dir);
    }
}
