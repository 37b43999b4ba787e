// tests/engine/engine_test_util.h: helpers of the engine tests: host copies of state arrays,
// rollouts with either integrator, and the CPU-availability skip.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <vector>

#include "engine/model_builder.h"
#include "engine/semi_implicit.h"
#include "engine/xpbd.h"

namespace weft::engine::test {

#define REQUIRE_CPU() \
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT"

inline std::vector<std::array<float, 3>> host_vec3(const runtime::Array& a) {
    std::vector<std::array<float, 3>> out(size_t(a.size()));
    a.copy_to_host(out.data(), out.size() * sizeof(out[0]));
    return out;
}

// Runs `steps` steps of `step(model, in, out)` with two ping-pong states; `each` (optional) sees the
// state after every step. Returns the final state.
template <class Integrator>
State rollout(const Model& model, Integrator& integrator, int steps, float dt,
              const std::function<void(int, const State&)>& each = nullptr) {
    State a = model.state(), b = model.state();
    for (int s = 0; s < steps; ++s) {
        integrator.simulate(model, a, b, dt, nullptr);
        std::swap(a, b);
        if (each) each(s + 1, a);
    }
    return a;
}

}  // namespace weft::engine::test
