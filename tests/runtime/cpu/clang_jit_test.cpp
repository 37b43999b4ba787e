// tests/runtime/cpu/clang_jit_test.cpp: the CPU device's in-process compiler and JIT loader.
//
// Each test compiles a little C++ with runtime::compile_cpp_to_object, loads it with JitLibrary
// and calls it, checking the result against the same arithmetic done by the test itself. The
// cross-process test hands the object bytes to a helper program (jit_object_runner), which is
// what the disk cache does between two runs.
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/cpu/clang_jit.h"

namespace weft::runtime {
namespace {

std::string compile(const std::string& text, const std::vector<SourceFile>& headers = {}, CppCompileOptions options = {}) {
    return compile_cpp_to_object({"main.cpp", text}, headers, options);
}

// The CppCompileError text of compiling `text`, or "" when it compiles.
std::string compile_error(const std::string& text, const std::vector<SourceFile>& headers = {}) {
    try {
        compile(text, headers);
    } catch (const CppCompileError& e) { return e.what(); }
    return "";
}

TEST(ClangJit, CompilesLoadsAndCallsWithInMemoryHeader) {
    const SourceFile header{"weft_native.h", R"(
        #pragma once
        namespace wp {
        template <typename T> inline T madd(T a, T b, T c) { return a * b + c; }
        }
    )"};
    const std::string object = compile(R"(
        #include "weft_native.h"
        extern "C" int twice_plus(int x) { return wp::madd(x, 2, 1); }
        extern "C" double dmadd(double a, double b, double c) { return wp::madd(a, b, c); }
    )",
                                       {header});
    ASSERT_GE(object.size(), 4u);
    EXPECT_EQ(object.substr(0, 4),
              "\x7f"
              "ELF");

    auto library = JitLibrary::load(object, {});
    auto twice_plus = reinterpret_cast<int (*)(int)>(library->lookup("twice_plus"));
    EXPECT_EQ(twice_plus(20), 41);
    auto dmadd = reinterpret_cast<double (*)(double, double, double)>(library->lookup("dmadd"));
    EXPECT_EQ(dmadd(1.5, 4.0, 0.25), 6.25);
}

TEST(ClangJit, AngleIncludeFindsListedHeader) {
    const std::string object = compile("#include <answer.h>\nextern \"C\" int answer() { return kAnswer; }\n",
                                       {{"answer.h", "constexpr int kAnswer = 42;\n"}});
    auto library = JitLibrary::load(object, {});
    EXPECT_EQ(reinterpret_cast<int (*)()>(library->lookup("answer"))(), 42);
}

TEST(ClangJit, SystemHeadersAreNotVisible) {
    const std::string text = compile_error("#include <stdio.h>\nint x;\n");
    EXPECT_NE(text.find("main.cpp:1:10: fatal error: 'stdio.h' file not found"), std::string::npos) << text;
}

TEST(ClangJit, SyntaxErrorNamesFileLineAndColumn) {
    const std::string text = compile_error("int ok = 1;\nint broken = ;\n");
    EXPECT_NE(text.find("main.cpp:2:14: error:"), std::string::npos) << text;
    EXPECT_NE(text.find("expected expression"), std::string::npos) << text;
}

TEST(ClangJit, LineDirectivesMoveErrorsToKernelSource) {
    const std::string text = compile_error(
        "extern \"C\" float f(float x) {\n"
        "#line 12 \"kernels/foo.py\"\n"
        "    return x * undefined_name;\n"
        "}\n");
    EXPECT_NE(text.find("kernels/foo.py:12:16: error: use of undeclared identifier "
                        "'undefined_name'"),
              std::string::npos)
        << text;
}

TEST(ClangJit, ErrorInHeaderNamesTheHeader) {
    const std::string text = compile_error("#include \"bad.h\"\n", {{"bad.h", "// line 1\nint f() { return }\n"}});
    EXPECT_NE(text.find("bad.h:2:18: error:"), std::string::npos) << text;
}

TEST(ClangJit, CallsLibmFromTheProcess) {
    const std::string object = compile(R"(
        extern "C" float sqrtf(float);
        extern "C" float sinf(float);
        extern "C" double exp(double);
        extern "C" float f(float x) { return sqrtf(x) + sinf(x); }
        extern "C" double g(double x) { return exp(x); }
    )");
    auto library = JitLibrary::load(object, {});
    auto f = reinterpret_cast<float (*)(float)>(library->lookup("f"));
    auto g = reinterpret_cast<double (*)(double)>(library->lookup("g"));
    volatile float x = 2.5f;  // keep the host's reference from being constant-folded differently
    EXPECT_EQ(f(x), std::sqrt(x) + std::sin(x));
    EXPECT_EQ(g(0.75), std::exp(0.75));
}

TEST(ClangJit, NoFloatingPointContraction) {
    // With FMA contraction a*b+c is rounded once; IEEE (and the reference here) rounds twice.
    const std::string object = compile("extern \"C\" float mac(float a, float b, float c) { return a * b + c; }\n");
    auto library = JitLibrary::load(object, {});
    auto mac = reinterpret_cast<float (*)(float, float, float)>(library->lookup("mac"));
    volatile float a = 1.0f + 0x1p-12f, b = 1.0f - 0x1p-12f, c = -1.0f;
    volatile float product = a * b;
    EXPECT_EQ(mac(a, b, c), product + c);
}

TEST(ClangJit, DefinesAndOptionsReachTheCompiler) {
    CppCompileOptions options;
    options.defines = {"WP_DEBUG=1", "WEFT_SCALE=3"};
    options.opt_level = 0;
    options.debug_info = true;
    const std::string object = compile(
        "#if !WP_DEBUG\n#error no debug\n#endif\n"
        "extern \"C\" int scale(int x) { return x * WEFT_SCALE; }\n",
        {}, options);
    auto library = JitLibrary::load(object, {});
    EXPECT_EQ(reinterpret_cast<int (*)(int)>(library->lookup("scale"))(5), 15);
}

TEST(ClangJit, BadOptionsAreReported) {
    CppCompileOptions options;
    options.target_cpu = "no-such-cpu";
    try {
        compile("int x;\n", {}, options);
        FAIL() << "expected CppCompileError";
    } catch (const CppCompileError& e) { EXPECT_NE(std::string(e.what()).find("no-such-cpu"), std::string::npos) << e.what(); }
    options = {};
    options.opt_level = 7;
    EXPECT_THROW(compile("int x;\n", {}, options), CppCompileError);
}

TEST(ClangJit, MissingSymbolIsNamed) {
    auto library = JitLibrary::load(compile("extern \"C\" int present() { return 1; }\n"), {});
    try {
        library->lookup("absent_kernel");
        FAIL() << "expected JitError";
    } catch (const JitError& e) { EXPECT_NE(std::string(e.what()).find("'absent_kernel'"), std::string::npos) << e.what(); }
}

TEST(ClangJit, UnresolvedExternalIsNamedAtLoad) {
    const std::string object = compile(
        "extern \"C\" int weft_no_such_host_function(int);\n"
        "extern \"C\" int call(int x) { return weft_no_such_host_function(x); }\n");
    try {
        JitLibrary::load(object, {});
        FAIL() << "expected JitError";
    } catch (const JitError& e) {
        EXPECT_NE(std::string(e.what()).find("weft_no_such_host_function"), std::string::npos) << e.what();
    }
}

TEST(ClangJit, GarbageBytesAreRejected) { EXPECT_THROW(JitLibrary::load("this is not an ELF file", {}), JitError); }

std::atomic<int> g_callback_sum{0};
void host_callback(int value) { g_callback_sum += value * 10; }

TEST(ClangJit, ExtraSymbolsCallBackIntoTheHost) {
    const std::string object = compile(R"(
        extern "C" void weft_test_host_callback(int);
        extern "C" void run(int n) { for (int i = 1; i <= n; ++i) weft_test_host_callback(i); }
    )");
    auto library = JitLibrary::load(object, {{"weft_test_host_callback", reinterpret_cast<void*>(&host_callback)}});
    reinterpret_cast<void (*)(int)>(library->lookup("run"))(4);
    EXPECT_EQ(g_callback_sum.load(), 100);  // 10 * (1 + 2 + 3 + 4)
    // Host symbols are for the object to call, not for lookup().
    EXPECT_THROW(library->lookup("weft_test_host_callback"), JitError);
}

TEST(ClangJit, ConcurrentCompilesAndLoads) {
    constexpr int kThreads = 4;
    std::vector<int> results(kThreads, -1);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, &results, &errors] {
            try {
                const std::string text =
                    "#include \"k.h\"\n"
                    "extern \"C\" int kernel_" +
                    std::to_string(t) +
                    "(int x) {\n"
                    "    return mul<" +
                    std::to_string(t + 2) + ">(x) + kBias;\n}\n";
                const SourceFile header{"k.h",
                                        "template <int N> int mul(int x) { return N * x; }\n"
                                        "constexpr int kBias = " +
                                            std::to_string(t) + ";\n"};
                auto library = JitLibrary::load(compile(text, {header}), {});
                auto kernel = reinterpret_cast<int (*)(int)>(library->lookup("kernel_" + std::to_string(t)));
                results[t] = kernel(100);
            } catch (const std::exception& e) { errors[t] = e.what(); }
        });
    }
    for (std::thread& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(errors[t], "") << "thread " << t;
        EXPECT_EQ(results[t], (t + 2) * 100 + t) << "thread " << t;
    }
}

TEST(ClangJit, ObjectLoadsInAnotherProcess) {
    const std::string object = compile(R"(
        extern "C" float sqrtf(float);
        extern "C" float weft_entry(float x) { return sqrtf(x) * 2.0f; }
    )");
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("weft_jit_object_" + std::to_string(::getpid()) + ".o");
    {
        std::ofstream out(path, std::ios::binary);
        out.write(object.data(), static_cast<std::streamsize>(object.size()));
    }
    // jit_object_runner <object> <symbol> <float argument>: prints the float result.
    const std::string command = std::string(WEFT_JIT_OBJECT_RUNNER) + " " + path.string() + " weft_entry 6.25";
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char line[256] = {};
    const bool got_line = std::fgets(line, sizeof line, pipe) != nullptr;
    const int status = ::pclose(pipe);
    std::filesystem::remove(path);
    ASSERT_TRUE(got_line) << "the runner printed nothing";
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << line;
    EXPECT_EQ(std::string(line), "5\n");
}

TEST(ClangJit, HostKeyNamesTripleAndCpu) {
    const std::string key = host_target_triple_and_cpu();
    EXPECT_EQ(key.rfind("x86_64", 0) == 0 || key.rfind("aarch64", 0) == 0, true) << key;
    EXPECT_EQ(key, host_target_triple_and_cpu());
}

}  // namespace
}  // namespace weft::runtime
