// Launch checks, error messages, debug mode, thread-count determinism and the disk cache.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/config.h"
#include "runtime/cpu/cpu_backend.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/errors.h"
#include "runtime/module_cache.h"
#include "support/hash.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

#define REQUIRE_CPU() \
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT"

const char* kModule = R"(
@wp.kernel
def scale(x: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * s

@wp.kernel
def gather(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[idx[i]]
)";

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no error)";
}

TEST(Launch, ArgumentMismatchesNameTheParameter) {
    REQUIRE_CPU();
    auto m = module_of(kModule);
    auto x = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    auto xi = runtime::Array::zeros(compiler::int32_type(), {4}, {});
    auto x2 = runtime::Array::zeros(compiler::float32_type(), {2, 2}, {});
    EXPECT_EQ(error_of([&] { run(m, "scale", {4}, {arg(x), num(2.0)}); }),
              "kernel 'scale' takes 3 argument(s) (x, s, out), 2 given");
    EXPECT_EQ(error_of([&] { run(m, "scale", {4}, {arg(xi), num(2.0), arg(x)}); }),
              "kernel 'scale': argument 'x' expects array(float32), got array(int32, shape=(4,), device=cpu)");
    EXPECT_EQ(error_of([&] { run(m, "scale", {4}, {arg(x), arg(x), arg(x)}); }),
              "kernel 'scale': argument 's' expects float32, got array(float32, shape=(4,), device=cpu)");
    EXPECT_EQ(error_of([&] { run(m, "scale", {4}, {arg(x2), num(1.0), arg(x)}); }),
              "kernel 'scale': argument 'x' expects array(float32), got array(float32, shape=(2,2), device=cpu)");
    EXPECT_EQ(error_of([&] { run(m, "gather", {4}, {arg(x), num(1.5), arg(x)}); }),
              "kernel 'gather': argument 'idx' expects array(int32), got float 1.500000");
    EXPECT_EQ(error_of([&] { m->kernel("scal"); }), "module 'test_kernels.py' has no kernel 'scal'; did you mean 'scale'?");
    EXPECT_EQ(error_of([&] { run(m, "scale", {}, {arg(x), num(2.0), arg(x)}); }),
              "launch of kernel 'scale': dim has 0 entries; expected 1 to 4");
    EXPECT_EQ(error_of([&] { runtime::parse_device("gpu"); }), "invalid device 'gpu': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'");
}

TEST(Launch, DebugModeReportsOutOfRangeIndices) {
    REQUIRE_CPU();
    auto m = module_of(kModule);
    std::vector<float> xs = {1, 2, 3, 4};
    std::vector<int> idx = {0, 3, 9, 1};
    auto x = array_of(compiler::float32_type(), xs);
    auto ia = array_of(compiler::int32_type(), idx);
    auto out = runtime::Array::zeros(compiler::float32_type(), {4}, {});
    EXPECT_EQ(error_of([&] { run(m, "gather", {4}, {arg(x), arg(ia), arg(out)}, {}, 1); }),
              "kernel 'gather' (test_kernels.py:11): index 9 is out of range for dimension 0 of an array of shape (4,) (indices (9,))");
    // In-range indices run normally in debug mode.
    idx[2] = 2;
    ia.copy_from_host(idx.data(), 16);
    run(m, "gather", {4}, {arg(x), arg(ia), arg(out)}, {}, 1);
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{1, 4, 3, 2}));
}

TEST(Launch, VerifyFiniteNamesTheLaunch) {
    REQUIRE_CPU();
    auto m = module_of(kModule);
    std::vector<float> xs = {1, 0, 3};
    auto x = array_of(compiler::float32_type(), xs);
    auto out = runtime::Array::zeros(compiler::float32_type(), {3}, {});
    runtime::config().verify_finite = true;
    std::string e = error_of([&] { run(m, "scale", {3}, {arg(x), num(INFINITY), arg(out)}); });
    runtime::config().verify_finite = false;
    EXPECT_EQ(e.rfind("launch of kernel 'scale' left a non-finite value", 0), 0u) << e;
    EXPECT_NE(e.find("in argument 'out' at scalar 0"), std::string::npos) << e;
}

// Results of kernels without atomics do not depend on the number of threads.
TEST(Launch, DeterministicAcrossThreadCounts) {
    REQUIRE_CPU();
    auto m = module_of(R"(
@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a = wp.vec3()
    for j in range(pos.shape[0]):
        d = pos[j] - pos[i]
        a = a + d / (wp.length_sq(d) + 0.01) ** 1.5
    acc[i] = a
)");
    const int n = 2000;
    std::vector<float> p(3 * n);
    for (int i = 0; i < 3 * n; ++i) p[i] = std::sin(i * 0.37f) * 10.0f;
    auto pos = array_of(compiler::vector_type(3, compiler::ScalarKind::Float32), p);
    std::map<int, std::string> hashes;
    for (int threads : {1, 2, 8}) {
        runtime::set_cpu_threads(threads);
        auto acc = runtime::Array::zeros(compiler::vector_type(3, compiler::ScalarKind::Float32), {n}, {});
        run(m, "nbody", {n}, {arg(pos), arg(acc)});
        auto v = values_of<float>(acc);
        hashes[threads] = support::hash_hex(std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * 4));
    }
    runtime::set_cpu_threads(0);
    EXPECT_EQ(hashes[1], hashes[2]);
    EXPECT_EQ(hashes[1], hashes[8]);
}

// A second process running the same module compiles nothing; a damaged entry is rebuilt.
TEST(Launch, DiskCacheAcrossProcessesAndDamage) {
    REQUIRE_CPU();
    std::string dir = std::filesystem::temp_directory_path() / ("weft-cache-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    auto run_child = [&]() -> std::string {
        std::string cmd = "WEFT_CACHE_DIR=" + dir + " " + WEFT_BINARY + " launch " + WEFT_SOURCE_DIR +
                          "/examples/saxpy.py --kernel saxpy --dim 16 --cache-stats 2>&1";
        FILE* f = popen(cmd.c_str(), "r");
        std::string out;
        char buf[512];
        while (f && fgets(buf, sizeof buf, f)) out += buf;
        if (f) pclose(f);
        return out;
    };
    std::string first = run_child();
    EXPECT_NE(first.find("cache: 0 hit(s), 1 miss(es), 0 damaged"), std::string::npos) << first;
    std::string second = run_child();
    EXPECT_NE(second.find("cache: 1 hit(s), 0 miss(es), 0 damaged"), std::string::npos) << second;
    // Damage the entry: flip bytes in the payload.
    for (auto& e : std::filesystem::directory_iterator(dir)) {
        std::fstream f(e.path(), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(200);
        f.write("garbage!", 8);
    }
    std::string third = run_child();
    EXPECT_NE(third.find("cache: 0 hit(s), 1 miss(es), 1 damaged"), std::string::npos) << third;
    EXPECT_NE(third.find("y: array(float32"), std::string::npos) << third;  // and the kernel still ran
    std::string fourth = run_child();
    EXPECT_NE(fourth.find("cache: 1 hit(s), 0 miss(es), 0 damaged"), std::string::npos) << fourth;
    std::filesystem::remove_all(dir);
}

TEST(Launch, ZeroSizedLaunchesAndArraysAreFine) {
    REQUIRE_CPU();
    auto m = module_of(kModule);
    auto x = runtime::Array::zeros(compiler::float32_type(), {0}, {});
    EXPECT_NO_THROW(run(m, "scale", {0}, {arg(x), num(2.0), arg(x)}));
}

}  // namespace
