// runtime/cpu/cpu_backend.cpp: results of kernels without atomics do not depend on the number of
// threads of the CPU device (checked against a hash of the bits, as Box2D's determinism test does).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "runtime/cpu/cpu_backend.h"
#include "runtime/cpu/thread_pool.h"
#include "support/hash.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

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

}  // namespace
