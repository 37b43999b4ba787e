// bench/engine/step_timer.h: what the engine benchmarks share: milliseconds per step of an
// integrator (one warm-up step, then `steps` timed steps between two host copies of the state,
// which synchronise the device), and the comma-separated size lists of their --sizes options.
#pragma once

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/integrator_registry.h"

namespace weft::bench {

// Copies the positions a step wrote (bodies' poses, or else particles') to the host: returns once
// the device has finished the steps before it.
inline void sync_state(const engine::State& s) {
    const runtime::Array& a = s.body_count > 0 ? s.body_q : s.particle_q;
    std::vector<char> host(a.nbytes());
    a.copy_to_host(host.data(), host.size());
}

// Milliseconds per step of the registered integrator `name` on `m`; `last` receives the final
// state (which holds the last step's scratch, such as the particle hash grid).
inline double ms_per_step(const engine::Model& m, const std::string& name, float dt, int steps, engine::State& last) {
    engine::State s0 = m.state(), s1 = m.state();
    auto integrator = engine::create_integrator(name);
    integrator->simulate(m, s0, s1, dt);
    std::swap(s0, s1);
    sync_state(s0);
    const auto t = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) {
        integrator->simulate(m, s0, s1, dt);
        std::swap(s0, s1);
    }
    sync_state(s0);
    last = s0;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1000.0 / steps;
}

// "100,400,1600" -> {100, 400, 1600}.
inline std::vector<int> parse_sizes(const std::string& text) {
    std::vector<int> sizes;
    std::stringstream ss(text);
    std::string tok;
    while (std::getline(ss, tok, ',')) sizes.push_back(std::atoi(tok.c_str()));
    return sizes;
}

}  // namespace weft::bench
