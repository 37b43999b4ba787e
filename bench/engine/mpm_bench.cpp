// bench/engine/mpm_bench.cpp: particle-steps per second of the MLS-MPM step (engine/mpm.h) on a
// dense grid: a sand block of n particles (2 per cell along each axis) falling in a box with
// separating walls, issue 18's MPM throughput on a small scale (the 1M- and 8M-particle runs on a
// GPU with a sparse grid are not done).
//
//   mpm_bench [--device cpu|cuda:0|sim:h200] [--sizes 4096,32768] [--steps 20] [--material sand]
//
// A cube of side s = (n / 8)^(1/3) cells of particles in a grid of 2 s + 6 cells along each axis;
// one warm-up step, then `steps` timed steps (synchronised by a host copy before and after).
// Prints a markdown table: particles, grid nodes, ms per step, particle-steps per second.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/engine/step_timer.h"
#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "engine/mpm.h"

using namespace weft;

int main(int argc, char** argv) {
    std::string device = "cpu", material = "sand";
    std::vector<int> sizes = {4096, 32768};
    int steps = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--steps")
            steps = std::atoi(v.c_str());
        else if (a == "--material")
            material = v;
        else if (a == "--sizes")
            sizes = bench::parse_sizes(v);
        else {
            fprintf(stderr, "usage: mpm_bench [--device D] [--sizes N,M] [--steps S] [--material M]\n");
            return 2;
        }
    }
    const auto& names = engine::mpm_material_names();
    auto mat = std::find(names.begin(), names.end(), material);
    if (mat == names.end()) {
        fprintf(stderr, "mpm_bench: no material '%s'\n", material.c_str());
        return 2;
    }
    printf("| particles | grid nodes | ms / step | particle-steps / s |\n|---|---|---|---|\n");
    for (int n : sizes) {
        const int side = std::max(1, int(std::lround(std::cbrt(double(n) / 8.0))));
        const int cells = 2 * side + 6;
        const float dx = 1.0f / float(cells);
        engine::ModelBuilder b;
        b.mpm_grid.dx = dx;
        b.mpm_grid.cells = {cells, cells, cells};
        engine::MpmVolumeDef v;
        v.material = engine::MpmMaterial(int(mat - names.begin()));
        v.E = 3.5e5f;
        v.density = 1600.0f;
        v.lo = engine::Vec3(3 * dx, 3 * dx + float(side) * dx * 0.5f, 3 * dx);
        v.hi = v.lo + engine::Vec3::Constant(float(side) * dx);
        b.add_mpm_volume(v);
        engine::Model m = b.finalize(device);
        engine::State last;
        const double ms = bench::ms_per_step(m, "mpm", 1e-4f, steps, last);
        printf("| %d | %lld | %.3f | %.3g |\n", m.particle_count, (long long)engine::mpm_node_count(m), ms,
               double(m.particle_count) / (ms / 1000.0));
    }
    return 0;
}
