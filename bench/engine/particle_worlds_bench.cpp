// bench/engine/particle_worlds_bench.cpp: batched worlds of small particle models (issue 22): a
// 32-particle spring chain and a 16 x 16-particle cloth, each replicated into N separate worlds of
// one model (engine/replicate_worlds.h, as a scene's [worlds] does) and stepped by the semi-implicit
// integrator with one launch per kernel for all worlds. The models are built in C++ (no scene
// file), so the benchmark runs where toml++ is absent (the GPU machine).
//
//   particle_worlds_bench [--device cpu|cuda:0|sim:h200] [--models chain,cloth]
//                         [--worlds 1,4,16,...,65536] [--min-time 0.5] [--max-particles 20000000]
//
// For each model and N: frames of 10 substeps (one CUDA graph each on cuda devices), two warm-up
// frames, then timed frames until --min-time seconds have passed (at least one), each followed by
// a device synchronisation. Prints a markdown table per model: worlds, ms per step, world-steps
// per second, and the efficiency against one world, N x (1 world's ms) / (N worlds' ms): 100% where
// N worlds cost N times one world, more where one world alone is bound by launch overhead. An N whose
// particle count passes --max-particles is skipped (and said so).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "engine/replicate_worlds.h"
#include "engine/stepper.h"
#include "runtime/device.h"

using namespace weft;
using engine::Vec3;

namespace {

// A chain of 32 particles on 31 springs, hanging from its fixed first particle, above the ground.
engine::ModelBuilder chain() {
    engine::ModelBuilder b;
    for (int i = 0; i < 32; ++i) b.add_particle(Vec3(0.05f * float(i), 2.0f, 0), Vec3::Zero(), i == 0 ? 0.0f : 0.01f, 0.02f);
    for (int i = 0; i + 1 < 32; ++i) b.add_spring(i, i + 1, 200.0f, 0.05f);
    return b;
}

// A 16 x 16-particle cloth (15 x 15 cells: 450 triangles, bending edges) pinned at its left edge.
engine::ModelBuilder cloth() {
    engine::ModelBuilder b;
    engine::ClothGridDef d;
    d.pos = Vec3(0, 2.0f, 0);
    d.dim_x = d.dim_y = 15;
    d.cell_x = d.cell_y = 0.05f;
    d.mass = 0.01f;
    d.fix_left = true;
    d.tri_ke = d.tri_ka = 500.0f;
    d.tri_kd = 5.0f;
    b.add_cloth_grid(d);
    return b;
}

// ms per step of `m`, and whether its frames replayed as CUDA graphs.
double ms_per_step(const engine::Model& m, float dt, double min_time, bool& graphs) {
    engine::State s0 = m.state(), s1 = m.state();
    auto integ = engine::create_integrator("semi_implicit");
    const int substeps = 10;
    engine::FrameStepper frames(m, s0, s1, substeps,
                                [&](engine::State& in, engine::State& out) { integ->simulate(m, in, out, dt); });
    frames.advance();
    frames.advance();  // the first replayed frame records its graph
    graphs = frames.uses_graph();
    runtime::DeviceBackend& device = runtime::backend(m.device);
    device.synchronize();
    int n = 0;
    auto t = std::chrono::steady_clock::now();
    double s = 0;
    do {
        frames.advance();
        ++n;
        device.synchronize();
        s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    } while (s < min_time);
    std::vector<float> q(size_t(m.particle_count) * 3);
    frames.current().particle_q.copy_to_host(q.data(), q.size() * sizeof(float));
    for (float x : q)
        if (!std::isfinite(x)) {
            fprintf(stderr, "particle_worlds_bench: the model diverged (non-finite position)\n");
            std::exit(1);
        }
    return s * 1000.0 / (double(n) * substeps);
}

std::vector<std::string> split(const std::string& v) {
    std::vector<std::string> out;
    std::stringstream ss(v);
    std::string tok;
    while (std::getline(ss, tok, ',')) out.push_back(tok);
    return out;
}

int usage() {
    fprintf(stderr,
            "usage: particle_worlds_bench [--device D] [--models chain,cloth] [--worlds N,M,...] [--min-time S] "
            "[--max-particles P]\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu";
    std::vector<std::string> models = {"chain", "cloth"};
    std::vector<int> worlds;
    for (int n = 1; n <= 65536; n *= 4) worlds.push_back(n);
    double min_time = 0.5, max_particles = 2e7;
    if (argc % 2 == 0) return usage();
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--models")
            models = split(v);
        else if (a == "--min-time")
            min_time = std::atof(v.c_str());
        else if (a == "--max-particles")
            max_particles = std::atof(v.c_str());
        else if (a == "--worlds") {
            worlds.clear();
            for (const std::string& t : split(v)) worlds.push_back(std::atoi(t.c_str()));
        } else
            return usage();
    }
    const float dt = 1.0f / 600.0f;
    printf("semi-implicit, dt %.3g s, frames of 10 substeps, device %s, at least %.2f s per point\n", double(dt), device.c_str(),
           min_time);
    for (const std::string& name : models) {
        if (name != "chain" && name != "cloth") {
            fprintf(stderr, "particle_worlds_bench: unknown model '%s' (chain, cloth)\n", name.c_str());
            return 2;
        }
        const engine::ModelBuilder one = name == "chain" ? chain() : cloth();
        printf("\n%s: %d particles, %zu springs, %zu triangles per world\n\n", name.c_str(), one.particle_count(),
               one.spring_rest_length.size(), one.tri_indices.size());
        printf("| worlds | particles | ms / step | world-steps / s | efficiency vs 1 world |\n|---|---|---|---|---|\n");
        double one_ms = 0;
        bool any_graphs = false;
        for (int n : worlds) {
            const double particles = double(n) * one.particle_count();
            if (particles > max_particles) {
                printf("| %d | %.0f | skipped (over --max-particles) | | |\n", n, particles);
                continue;
            }
            engine::Model m = engine::replicate_worlds(one, n).finalize(device);
            bool graphs = false;
            const double ms = ms_per_step(m, dt, min_time, graphs);
            any_graphs = any_graphs || graphs;
            if (n == 1) one_ms = ms;
            printf("| %d | %.0f | %.4f | %.0f | %s |\n", n, particles, ms, 1000.0 * n / ms,
                   one_ms > 0 ? (std::to_string(int(std::lround(100.0 * one_ms * n / ms))) + "%").c_str() : "-");
            fflush(stdout);
        }
        printf("\n(%s)\n", any_graphs ? "each frame one CUDA graph" : "launched eagerly");
    }
    return 0;
}
