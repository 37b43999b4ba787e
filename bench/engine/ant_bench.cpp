// bench/engine/ant_bench.cpp: issue 17's ant benchmark on the CPU: scenes/ant.xml (a 14-dof ant
// on a free joint, written for Weft) imported N times into separate worlds (add_builder) and
// stepped by the Featherstone integrator (semi-implicit Euler, dt 0.5 ms, standing on the ground),
// against MuJoCo 2.2.2 stepping the same file (tests/engine/data/ant_on_floor.xml: the same ant on a
// floor) N times, one mjData per world, on one thread; and the cost of the gradient: the backward
// pass of a 100-step rollout against its forward pass (the Tape), one world.
//
//   ant_bench [--device cpu|cuda:0] [--worlds 1,64,1024] [--steps 400]
//
// Prints markdown tables: world-steps per second of both engines and their ratio, and the
// backward / forward time ratio. MuJoCo's columns are left out where libmujoco-dev was not found
// when this was built.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/featherstone.h"
#include "engine/mjcf_import.h"
#include "engine/model_builder.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

#if WEFT_HAS_MUJOCO
#include <mujoco/mujoco.h>
#endif

using namespace weft;
using engine::Quat;
using engine::Vec3;

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

const std::string kAnt = std::string(WEFT_SOURCE_DIR) + "/scenes/ant.xml";
constexpr float kDt = 5.0e-4f;

engine::ModelBuilder ant() {
    engine::ModelBuilder b;
    engine::ImportOptions o;
    o.floating = true;
    engine::parse_mjcf(kAnt, b, o);
    return b;
}

engine::ModelBuilder ants(int n) {
    const engine::ModelBuilder one = ant();
    engine::ModelBuilder b;
    const int side = int(std::ceil(std::sqrt(double(n))));
    for (int w = 0; w < n; ++w)
        b.add_builder(one, {Vec3(2.0f * float(w % side), 0, 2.0f * float(w / side)), Quat::Identity()}, true);
    return b;
}

// World-steps per second of n ants on `device`; `torso_y` receives world 0's torso height.
double weft_rate(int n, const std::string& device, int steps, double& torso_y) {
    engine::Model m = ants(n).finalize(device);
    engine::FeatherstoneIntegrator it;
    engine::State a = m.state(), b = m.state();
    for (int k = 0; k < 20; ++k) {  // warm-up: kernels compiled and loaded
        it.simulate(m, a, b, kDt);
        std::swap(a, b);
    }
    std::vector<float> q(size_t(m.body_count) * 7);
    a.body_q.copy_to_host(q.data(), q.size() * sizeof(float));
    const auto t = Clock::now();
    for (int k = 0; k < steps; ++k) {
        it.simulate(m, a, b, kDt);
        std::swap(a, b);
    }
    a.body_q.copy_to_host(q.data(), q.size() * sizeof(float));
    const double s = seconds_since(t);
    torso_y = q[1];
    return double(n) * steps / s;
}

#if WEFT_HAS_MUJOCO
double mujoco_rate(int n, int steps, double& torso_z) {
    char err[1000] = "";
    const std::string file = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/ant_on_floor.xml";
    mjModel* mj = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
    if (!mj) {
        std::fprintf(stderr, "ant_bench: MuJoCo cannot load %s: %s\n", file.c_str(), err);
        std::exit(1);
    }
    mj->opt.timestep = kDt;
    std::vector<mjData*> d(static_cast<size_t>(n), nullptr);
    for (auto& x : d) x = mj_makeData(mj);
    for (auto* x : d)
        for (int k = 0; k < 20; ++k) mj_step(mj, x);
    const auto t = Clock::now();
    for (int k = 0; k < steps; ++k)
        for (auto* x : d) mj_step(mj, x);
    const double s = seconds_since(t);
    torso_z = d[0]->qpos[2];
    for (auto* x : d) mj_deleteData(x);
    mj_deleteModel(mj);
    return double(n) * steps / s;
}
#endif

// Forward and backward seconds of a `steps`-step recorded rollout of one ant.
void gradient_cost(const std::string& device, int steps, double& forward, double& backward) {
    engine::Model m = ants(1).finalize(device, true);
    engine::FeatherstoneIntegrator it;
    for (int rep = 0; rep < 2; ++rep) {  // the first repetition compiles the backward kernels
        tape::Tape tape;
        std::vector<engine::State> states{m.state()};
        for (int k = 0; k < steps; ++k) states.push_back(m.state());
        runtime::Array seed = runtime::Array::zeros(engine::transform_type(), {m.body_count}, m.device);
        std::vector<float> one(size_t(m.body_count) * 7, 0.0f);
        one[1] = 1.0f;  // d(torso height)
        seed.copy_from_host(one.data(), one.size() * sizeof(float));
        auto t = Clock::now();
        {
            runtime::ScopedRecorder rec(&tape);
            for (int k = 0; k < steps; ++k) it.simulate(m, states[size_t(k)], states[size_t(k) + 1], kDt);
        }
        states.back().body_q.copy_to_host(one.data(), one.size() * sizeof(float));  // waits for the device
        forward = seconds_since(t);
        t = Clock::now();
        tape.backward({{states.back().body_q, seed}});
        std::vector<float> g(size_t(states.front().joint_qd.size()));
        states.front().joint_qd.grad()->copy_to_host(g.data(), g.size() * sizeof(float));
        backward = seconds_since(t);
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu";
    std::vector<int> worlds = {1, 64, 1024};
    int steps = 400;
    const char* usage = "usage: ant_bench [--device cpu|cuda:0] [--worlds N,M] [--steps S]\n";
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
        const std::string v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--steps")
            steps = std::max(1, std::atoi(v.c_str()));
        else if (a == "--worlds") {
            worlds.clear();
            std::stringstream ss(v);
            std::string tok;
            while (std::getline(ss, tok, ',')) worlds.push_back(std::max(1, std::atoi(tok.c_str())));
        } else {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    std::printf(
        "ant (scenes/ant.xml): 9 bodies, 14 dofs per world; Featherstone, semi-implicit Euler, dt %.1e s; %s; %d steps\n\n",
        double(kDt), device.c_str(), steps);
#if WEFT_HAS_MUJOCO
    std::printf(
        "| worlds | Weft world-steps / s | MuJoCo 2.2.2 world-steps / s (1 thread) | Weft / MuJoCo | torso height Weft / MuJoCo "
        "(m) |\n");
    std::printf("|---|---|---|---|---|\n");
#else
    std::printf("| worlds | Weft world-steps / s | torso height (m) |\n|---|---|---|\n");
#endif
    for (int n : worlds) {
        double y = 0;
        const double weft = weft_rate(n, device, steps, y);
#if WEFT_HAS_MUJOCO
        double z = 0;
        const double mj = mujoco_rate(n, steps, z);
        std::printf("| %d | %.0f | %.0f | %.2fx | %.3f / %.3f |\n", n, weft, mj, weft / mj, y, z);
#else
        std::printf("| %d | %.0f | %.3f |\n", n, weft, y);
#endif
        std::fflush(stdout);
    }
    double fwd = 0, bwd = 0;
    gradient_cost(device, 100, fwd, bwd);
    std::printf(
        "\nGradient of a 100-step rollout of one ant (Tape): forward %.2f ms, backward %.2f ms, backward / forward %.2f\n",
        1e3 * fwd, 1e3 * bwd, bwd / fwd);
    return 0;
}
