// tests/runtime/cuda/cuda_test_support.h: what the CUDA tests share.
//
// - WEFT_REQUIRE_GPU(): skips the test, saying why, on a machine without a CUDA GPU (this
//   machine, CI): such tests must show up as skipped, never as passed.
// - The example module (examples/saxpy.py, read from the source tree) and a test module of
//   kernels that exercise 2-D launches, atomics, integer arithmetic and struct arguments.
// - References: every GPU result is checked against the CPU device when this build has it, and
//   against a host computation always (the GPU machine builds without LLVM, so no CPU device).
//   Integers compare bitwise, floats within a few ulps of the CPU device.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/cuda/cuda_backend.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/module.h"

#define WEFT_REQUIRE_GPU()                                                                      \
    do {                                                                                        \
        if (!::weft::runtime::cuda_device_available(0))                                         \
            GTEST_SKIP() << "no CUDA GPU here: " << ::weft::runtime::cuda_unavailable_reason(); \
    } while (0)

namespace weft::runtime::testing {

inline std::string read_source(const std::string& rel) {
    std::ifstream f(std::string(WEFT_SOURCE_DIR) + "/" + rel);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

inline std::shared_ptr<Module> saxpy_module() {
    return Module::compile({{"examples/saxpy.py", read_source("examples/saxpy.py")}});
}

// Kernels beyond the example: one module, compiled once per test process.
inline const char* kTestKernels = R"PY(import weft as wp

@wp.struct
class Params:
    scale: float
    offset: wp.vec3
    count: int


@wp.kernel
def fill_2d(out: wp.array(dtype=float, ndim=2), w: int):
    i, j = wp.tid()
    out[i, j] = float(i * w + j) * 0.5


@wp.kernel
def histogram(values: wp.array(dtype=int), bins: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(bins, values[i] % 16, 1)


@wp.kernel
def apply_params(p: Params, xs: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = xs[i] * p.scale + p.offset + wp.vec3(float(p.count), 0.0, 0.0)


@wp.kernel
def int_mix(a: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    x = a[i]
    out[i] = (x * 7919 + 13) ^ (x >> 3)


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


@wp.kernel
def write_at(a: wp.array(dtype=float), k: int):
    a[k] = 1.0


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), g: wp.vec3, dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt
    v[i] = v[i] + g * dt
)PY";

inline std::shared_ptr<Module> test_module() {
    static std::shared_ptr<Module> m = Module::compile({{"tests/runtime/cuda/test_kernels.py", kTestKernels}});
    return m;
}

inline Device cuda0() { return Device{DeviceKind::Cuda, 0, {}}; }
inline Device cpu() { return Device{}; }
inline bool have_cpu() { return device_available(cpu()); }

template <typename T>
Array to_device(const std::vector<T>& v, compiler::Type dtype, const Device& d, std::vector<int64_t> shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size() * sizeof(T) / compiler::type_size(dtype))};
    Array a = Array::empty(dtype, shape, d);
    a.copy_from_host(v.data(), v.size() * sizeof(T));
    return a;
}

template <typename T>
std::vector<T> to_host(const Array& a) {
    std::vector<T> v(a.nbytes() / sizeof(T));
    a.copy_to_host(v.data(), a.nbytes());
    return v;
}

// Distance in units in the last place between two floats (0 when bitwise equal).
inline int64_t ulp_distance(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return INT64_MAX;
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    return std::llabs(static_cast<int64_t>(ia) - ib);
}

inline void expect_ulps(const std::vector<float>& got, const std::vector<float>& want, int64_t max_ulps, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    int64_t worst = 0;
    size_t at = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        int64_t d = ulp_distance(got[i], want[i]);
        if (d > worst) worst = d, at = i;
    }
    EXPECT_LE(worst, max_ulps) << what << ": element " << at << " is " << got[at] << ", expected " << want[at];
}

inline void expect_near_rel(const std::vector<float>& got, const std::vector<double>& want, double tol, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
        double scale = std::max(1.0, std::fabs(want[i]));
        ASSERT_LE(std::fabs(got[i] - want[i]), tol * scale) << what << ": element " << i;
    }
}

// Deterministic pseudo-random floats in [lo, hi) (never all zeros: see METHOD.md).
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
    std::vector<float> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& x : v) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        x = lo + (hi - lo) * static_cast<float>((s >> 40) & 0xffffff) / 16777216.0f;
    }
    return v;
}

}  // namespace weft::runtime::testing
