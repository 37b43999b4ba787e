// bench/engine/worlds_bench.cpp: batched worlds (ModelBuilder::add_builder): a jointed quadruped
// written for this benchmark (a torso and four two-link legs, 9 boxes, 8 hinges with position
// drives, standing on the ground) copied into N separate worlds of one model and stepped by the
// semi-implicit integrator (maximal coordinates, penalty joints) or, with --integrator featherstone,
// by the Featherstone integrator (the torso on a free joint, one articulation of 14 dofs per world,
// semi-implicit Euler as Warp's), or with --integrator xpbd by XPBD (positional joints and contacts,
// Warp's XPBDIntegrator defaults), one launch per kernel for all worlds.
//
//   worlds_bench [--device cpu|cuda:0|sim:h200] [--worlds 1,64,4096] [--steps 500] [--integrator semi_implicit|featherstone|xpbd]
//                [--kernels 1]
//
// Frames of 50 substeps (one CUDA graph each on cuda devices), two warm-up frames, then `steps` timed
// steps (synchronised by a host copy before and after).
// Prints a markdown table: worlds, ms per step, world-steps per second, and the cost of one world
// relative to the single-world model (efficiency: 1 world's ms x N / N worlds' ms). With
// --kernels 1, a second table per world count: each kernel's measured time per step
// (runtime::KernelTiming, CUDA events around each launch) over 20 eagerly launched steps, which
// says where a step's time goes; the eager steps also pay the launches' host cost, which graphs hide.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "engine/stepper.h"
#include "runtime/kernel_timing.h"

using namespace weft;
using engine::Quat;
using engine::Vec3;

namespace {

engine::ModelBuilder quadruped(bool floating_base) {
    engine::ModelBuilder b;
    b.joint_attach_ke = 1.0e4f;
    const float hip_y = 0.62f;
    int torso = b.add_body(Vec3(0, hip_y, 0), Quat::Identity(), Vec3::Zero(), Eigen::Matrix3f::Zero(), 0, 0, "torso");
    b.add_shape_box(torso, Vec3::Zero(), Quat::Identity(), 0.3f, 0.06f, 0.15f);
    if (floating_base) b.add_joint_free(torso, {Vec3(0, hip_y, 0), Quat::Identity()});
    const float leg_x[4] = {0.25f, 0.25f, -0.25f, -0.25f}, leg_z[4] = {0.2f, -0.2f, 0.2f, -0.2f};
    for (int l = 0; l < 4; ++l) {
        int thigh = b.add_body(Vec3(leg_x[l], hip_y - 0.15f, leg_z[l]));
        b.add_shape_box(thigh, Vec3::Zero(), Quat::Identity(), 0.04f, 0.15f, 0.04f);
        int shin = b.add_body(Vec3(leg_x[l], hip_y - 0.45f, leg_z[l]));
        b.add_shape_box(shin, Vec3::Zero(), Quat::Identity(), 0.035f, 0.15f, 0.035f);
        engine::JointAxisDef hinge;
        hinge.axis = Vec3::UnitZ();
        hinge.mode = engine::JOINT_MODE_TARGET_POSITION;
        hinge.target = 0.0f;
        hinge.target_ke = 1500.0f;
        hinge.target_kd = 20.0f;
        hinge.limit_lower = -1.2f;
        hinge.limit_upper = 1.2f;
        b.add_joint_revolute(torso, thigh, {Vec3(leg_x[l], 0, leg_z[l]), Quat::Identity()}, {Vec3(0, 0.15f, 0), Quat::Identity()},
                             hinge);
        b.add_joint_revolute(thigh, shin, {Vec3(0, -0.15f, 0), Quat::Identity()}, {Vec3(0, 0.15f, 0), Quat::Identity()}, hinge);
    }
    return b;
}

// Milliseconds per step over `steps` steps run as frames of 50 substeps through engine::FrameStepper
// (on CUDA each frame after the first is one graph, as Warp's examples capture theirs); one frame
// of warm-up. `torso_y` receives world 0's torso height after the steps (standing: ~0.61 m).
double ms_per_step(const engine::Model& m, const std::string& integrator, float dt, int steps, double& torso_y, bool& graphs) {
    engine::State s0 = m.state(), s1 = m.state();
    auto integ = engine::create_integrator(integrator);
    const int substeps = 50;
    engine::FrameStepper frames(m, s0, s1, substeps,
                                [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); });
    frames.advance();
    frames.advance();  // the first replayed frame records its graph
    graphs = frames.uses_graph();
    std::vector<float> sync(size_t(m.body_count) * 7);
    frames.current().body_q.copy_to_host(sync.data(), sync.size() * sizeof(float));
    const int n = std::max(1, steps / substeps);
    auto t = std::chrono::steady_clock::now();
    for (int k = 0; k < n; ++k) frames.advance();
    frames.current().body_q.copy_to_host(sync.data(), sync.size() * sizeof(float));
    const double ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1000.0 / (n * substeps);
    for (float x : sync)
        if (!std::isfinite(x)) {
            fprintf(stderr, "worlds_bench: the quadrupeds diverged (non-finite pose)\n");
            std::exit(1);
        }
    torso_y = sync[1];
    return ms;
}

// Each kernel's share of a step: `steps` steps launched eagerly (after one untimed step) under a
// KernelTiming, summed per kernel.
void print_kernel_times(const engine::Model& m, const std::string& integrator, float dt, int steps) {
    engine::State s0 = m.state(), s1 = m.state();
    auto integ = engine::create_integrator(integrator);
    integ->simulate(m, s0, s1, dt);
    struct Sum {
        std::string kernel, where;
        int launches = 0;
        double us = 0;
    };
    std::vector<Sum> sums;
    double total = 0;
    {
        runtime::KernelTiming timing;
        for (int k = 0; k < steps; ++k) {
            integ->simulate(m, s0, s1, dt);
            std::swap(s0, s1);
        }
        for (const runtime::KernelTime& t : timing.results()) {
            auto it = std::find_if(sums.begin(), sums.end(), [&](const Sum& x) { return x.kernel == t.kernel; });
            if (it == sums.end()) it = sums.insert(sums.end(), Sum{t.kernel, t.where});
            it->launches++;
            it->us += t.time_us;
            total += t.time_us;
        }
    }
    std::sort(sums.begin(), sums.end(), [](const Sum& a, const Sum& b) { return a.us > b.us; });
    printf("\n| kernel | where | launches / step | us / step | share |\n|---|---|---|---|---|\n");
    for (const Sum& x : sums)
        printf("| %s | %s | %.1f | %.2f | %.1f%% |\n", x.kernel.c_str(), x.where.c_str(), double(x.launches) / steps,
               x.us / steps, total > 0 ? 100.0 * x.us / total : 0.0);
    printf("| (all) | | | %.2f | |\n\n", total / steps);
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu";
    std::vector<int> worlds = {1, 64, 4096};
    int steps = 500;
    std::string integrator = "semi_implicit";
    bool kernels = false;
    const char* usage =
        "usage: worlds_bench [--device D] [--worlds N,M] [--steps S] [--integrator semi_implicit|featherstone|xpbd] "
        "[--kernels 0|1]\n";
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--steps")
            steps = std::atoi(v.c_str());
        else if (a == "--integrator" && (v == "semi_implicit" || v == "featherstone" || v == "xpbd"))
            integrator = v;
        else if (a == "--kernels" && (v == "0" || v == "1"))
            kernels = v == "1";
        else if (a == "--worlds") {
            worlds.clear();
            std::stringstream ss(v);
            std::string tok;
            while (std::getline(ss, tok, ',')) worlds.push_back(std::atoi(tok.c_str()));
        } else {
            fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (argc % 2 == 0) {
        fprintf(stderr, "%s", usage);
        return 2;
    }
    const float dt = 2.0e-4f;
    engine::ModelBuilder one = quadruped(integrator == "featherstone");
    printf("quadruped: %d bodies, %d joints per world; %s; dt %.1e s; device %s; %d steps\n\n", one.body_count(),
           one.joint_count(), integrator.c_str(), dt, device.c_str(), steps);
    printf("| worlds | ms / step | world-steps / s | efficiency vs 1 world | torso height after (m) |\n|---|---|---|---|---|\n");
    double one_ms = 0;
    bool any_graphs = false;
    for (size_t wi = 0; wi < worlds.size(); ++wi) {
        const int n = worlds[wi];
        engine::ModelBuilder b;
        b.joint_attach_ke = one.joint_attach_ke;  // model-wide: add_builder copies elements, not settings
        const int side = int(std::ceil(std::sqrt(double(n))));
        for (int w = 0; w < n; ++w)
            b.add_builder(one, {Vec3(2.0f * float(w % side), 0, 2.0f * float(w / side)), Quat::Identity()});
        engine::Model m = b.finalize(device);
        double torso_y = 0;
        bool graphs = false;
        const double ms = ms_per_step(m, integrator, dt, steps, torso_y, graphs);
        any_graphs = any_graphs || graphs;
        if (n == 1) one_ms = ms;
        printf("| %d | %.4f | %.0f | %s | %.3f |\n", n, ms, 1000.0 * n / ms,
               one_ms > 0 ? (std::to_string(int(std::lround(100.0 * one_ms * n / ms))) + "%").c_str() : "-", torso_y);
        fflush(stdout);
        if (kernels) {
            print_kernel_times(m, integrator, dt, 20);
            if (wi + 1 < worlds.size())
                printf(
                    "| worlds | ms / step | world-steps / s | efficiency vs 1 world | torso height after (m) |\n"
                    "|---|---|---|---|---|\n");
        }
    }
    printf("\nframes of 50 substeps, %s\n", any_graphs ? "each one CUDA graph" : "launched eagerly");
    return 0;
}
