// Helpers for tests that compile a kernel module from a string and run it on a device.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/module.h"

// Skips a test in a build without the CPU device (no LLVM/Clang JIT).
#define REQUIRE_CPU() \
    if (!weft::runtime::device_available(weft::runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT"

namespace weft::test {

// A test suite run once per device: instantiate with WEFT_INSTANTIATE_PER_DEVICE(Suite) (cpu, the
// simulator, and a CUDA GPU where one is present); a device this machine lacks skips, saying so.
class PerDevice : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        device_ = runtime::parse_device(GetParam());
        if (!runtime::device_available(device_)) GTEST_SKIP() << "device " << GetParam() << " is not available here";
    }
    const runtime::Device& dev() const { return device_; }
    runtime::Device device_;
};

// "sim:h200" -> "sim_h200": a test name may not hold ':'.
inline std::string device_test_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string n = info.param;
    for (auto& c : n)
        if (c == ':') c = '_';
    return n;
}

// The message of what `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) { return e.what(); }
    return "(no error)";
}

// Two small kernels the launch tests share: scale (out = x * s) and gather (out = x[idx]).
inline const char* kScaleGatherModule = R"(
@wp.kernel
def scale(x: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * s

@wp.kernel
def gather(x: wp.array(dtype=float), idx: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[idx[i]]
)";

inline std::shared_ptr<runtime::Module> module_of(const std::string& body, const std::string& path = "test_kernels.py") {
    return runtime::Module::compile({{path, "import weft as wp\n" + body, 0}});
}

template <typename T>
runtime::Array array_of(compiler::Type dtype, const std::vector<T>& values, const runtime::Device& d = {},
                        std::vector<int64_t> shape = {}) {
    size_t es = compiler::type_size(dtype);
    if (shape.empty()) shape = {static_cast<int64_t>(values.size() * sizeof(T) / es)};
    runtime::Array a = runtime::Array::empty(dtype, shape, d);
    a.copy_from_host(values.data(), values.size() * sizeof(T));
    return a;
}

template <typename T>
std::vector<T> values_of(const runtime::Array& a) {
    std::vector<T> v(a.nbytes() / sizeof(T));
    a.copy_to_host(v.data(), a.nbytes());
    return v;
}

inline runtime::LaunchArg arg(const runtime::Array& a) { return runtime::LaunchArg::of(a); }
inline runtime::LaunchArg num(double v) { return runtime::LaunchArg::number_of(v); }
inline runtime::LaunchArg integer(long long v) { return runtime::LaunchArg::integer_of(v); }

inline void run(const std::shared_ptr<runtime::Module>& m, const std::string& kernel, std::vector<int64_t> dim,
                std::vector<runtime::LaunchArg> args, const runtime::Device& d = {}, int debug = -1) {
    runtime::LaunchOptions o;
    o.device = d;
    o.debug = debug;
    runtime::launch(m->kernel(kernel), dim, args, o);
}

}  // namespace weft::test

#define WEFT_INSTANTIATE_PER_DEVICE(Suite) \
    INSTANTIATE_TEST_SUITE_P(Devices, Suite, ::testing::Values("cpu", "sim:h200", "cuda:0"), weft::test::device_test_name)
