// bench/engine/smoke_bench.cpp: steps per second of the Eulerian smoke step (engine/smoke.h) on
// the grid of NVIDIA Warp's core/example_fluid.py (issue 18's side-by-side; bench/warp/fluid_warp.py
// times Warp's own example on the same machine), and a 3-D grid with the MGPCG solver.
//
//   smoke_bench [--device cpu|cuda:0|sim:h200] [--cases warp2d,mgpcg3d] [--steps 40] [--size3d 64]
//
// warp2d: 256 x 128 cells (2-D: nz = 1), 100 Jacobi sweeps per projection, semi-Lagrangian
//         advection, a disc of radius 5 cells at the centre injecting density with a velocity of
//         400 cells/s, dt = 1/120 s (Warp's example: 60 fps, 2 substeps). Warp's example is a
//         collocated grid with a 4-neighbour Jacobi stencil; here the staggered MAC grid with
//         its own advection of each face component (docs/smoke.md "Differences"): the same
//         grid, sweeps and time step, not the same arithmetic.
// mgpcg3d: n^3 cells, MGPCG to 1e-5 relative residual, MacCormack advection, buoyancy and
//          vorticity confinement, a buoyant source at the bottom.
// One warm-up step, then `steps` timed steps (synchronised by a host copy before and after).
// Prints a markdown table: case, cells, ms per step, steps per second, and the last projection's
// iterations and relative divergence.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model_builder.h"
#include "engine/smoke.h"

using namespace weft;

namespace {

struct Result {
    double ms = 0;
    engine::SmokeSolveStats stats;
};

Result time_steps(engine::ModelBuilder& b, const std::string& device, float dt, int steps) {
    engine::Model m = b.finalize(device);
    engine::State s0 = m.state(), s1 = m.state();
    engine::SmokeIntegrator integ;
    integ.simulate(m, s0, s1, dt);
    std::swap(s0, s1);
    std::vector<float> sync(size_t(m.smoke.cells()));
    s0.smoke_density.copy_to_host(sync.data(), sync.size() * sizeof(float));
    auto t = std::chrono::steady_clock::now();
    for (int k = 0; k < steps; ++k) {
        integ.simulate(m, s0, s1, dt);
        std::swap(s0, s1);
    }
    s0.smoke_density.copy_to_host(sync.data(), sync.size() * sizeof(float));
    Result r;
    r.ms = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count() * 1000.0 / steps;
    r.stats = integ.last_solve();
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu", cases = "warp2d,mgpcg3d";
    int steps = 40, n3 = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--steps")
            steps = std::atoi(v.c_str());
        else if (a == "--cases")
            cases = v;
        else if (a == "--size3d")
            n3 = std::atoi(v.c_str());
        else {
            fprintf(stderr, "usage: smoke_bench [--device D] [--cases warp2d,mgpcg3d] [--steps S] [--size3d N]\n");
            return 2;
        }
    }
    if (argc % 2 == 0 || steps < 1 || n3 < 8) {
        fprintf(stderr, "usage: smoke_bench [--device D] [--cases warp2d,mgpcg3d] [--steps S >= 1] [--size3d N >= 8]\n");
        return 2;
    }
    printf("device %s, %d timed steps after one warm-up\n\n", device.c_str(), steps);
    printf("| case | cells | ms / step | steps / s | projection iterations | divergence after / before |\n");
    printf("|---|---|---|---|---|---|\n");
    std::stringstream ss(cases);
    std::string c;
    while (std::getline(ss, c, ',')) {
        engine::ModelBuilder b(c == "warp2d" ? 0.0f : -9.80665f);
        float dt = 0;
        if (c == "warp2d") {
            const float h = 1.0f / 128;  // cells of 1/128 m: Warp's 400 cells/s is 3.125 m/s
            b.smoke.resolution = {256, 128, 1};
            b.smoke.cell_size = h;
            b.smoke.solver = engine::SmokeSolver_Jacobi;
            b.smoke.iterations = 100;
            b.smoke.buoyancy = 0.0f;
            b.smoke.advection = engine::SmokeAdvection_SemiLagrangian;
            b.smoke.sources.push_back(
                {engine::SmokeShape_Sphere, {128 * h, 64 * h, 0.5f * h}, {5 * h, 0, 0}, {400 * h, 0, 0}, 60.0f, true});
            dt = 1.0f / 120;
        } else if (c == "mgpcg3d") {
            const float h = 1.0f / float(n3);
            b.smoke.resolution = {n3, n3, n3};
            b.smoke.cell_size = h;
            b.smoke.solver = engine::SmokeSolver_MGPCG;
            b.smoke.tolerance = 1e-5f;
            b.smoke.iterations = 200;
            b.smoke.buoyancy = 2.0f;
            b.smoke.vorticity = 0.2f;
            b.smoke.advection = engine::SmokeAdvection_MacCormack;
            b.smoke.sources.push_back({engine::SmokeShape_Sphere, {0.5f, 0.12f, 0.5f}, {0.08f, 0, 0}, {0, 0.5f, 0}, 4.0f, true});
            dt = 1.0f / 60;
        } else {
            fprintf(stderr, "smoke_bench: no case '%s' (warp2d, mgpcg3d)\n", c.c_str());
            return 2;
        }
        Result r = time_steps(b, device, dt, steps);
        long long cells = (long long)b.smoke.resolution[0] * b.smoke.resolution[1] * b.smoke.resolution[2];
        printf("| %s | %lld | %.3f | %.1f | %d | %.2e |\n", c.c_str(), cells, r.ms, 1000.0 / r.ms, r.stats.iterations,
               r.stats.relative_divergence());
        fflush(stdout);
    }
    return 0;
}
