// bench/engine/granular_bench.cpp: steps per second of a granular step (particle-particle contact
// through the kernel-built hash grid, ground contact, semi-implicit Euler), issue 8's
// "1M-particle granular step".
//
//   granular_bench [--device cpu|cuda:0|sim:h200] [--sizes 65536,1048576] [--steps 20]
//
// n particles (a cube of side n^(1/3), spacing 2 r, r = 0.01, slightly jittered) resting on the
// ground; one warm-up step, then `steps` timed steps (no host copies). Prints a markdown table,
// then the same timing for issue 8's 64 x 64 cloth with self-contact.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/engine/step_timer.h"
#include "engine/model_builder.h"
#include "engine/particle_grid.h"
#include "engine/integrator_registry.h"

using namespace weft;

int main(int argc, char** argv) {
    std::string device = "cpu";
    std::vector<int> sizes = {65536, 1048576};
    int steps = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i], v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--steps")
            steps = std::atoi(v.c_str());
        else if (a == "--sizes")
            sizes = bench::parse_sizes(v);
        else {
            fprintf(stderr, "usage: granular_bench [--device D] [--sizes N,M] [--steps S]\n");
            return 2;
        }
    }
    printf("| particles | ms / step | steps / s | dropped by the grid |\n|---|---|---|---|\n");
    for (int n : sizes) {
        engine::ModelBuilder b;
        b.particle_contact = true;
        b.soft_contact_ke = b.particle_ke = 1e3f;
        b.soft_contact_kd = b.particle_kd = 1.0f;
        int side = int(std::lround(std::cbrt(double(n))));
        const float r = 0.01f;
        uint32_t state = 1;
        auto jitter = [&] {
            state = state * 1664525u + 1013904223u;
            return (float(state >> 8) / float(1 << 24) - 0.5f) * 0.1f * r;
        };
        for (int z = 0; z < side; ++z)
            for (int y = 0; y < side; ++y)
                for (int x = 0; x < side; ++x)
                    b.add_particle(engine::Vec3(2 * r * float(x) + jitter(), r + 2 * r * float(y), 2 * r * float(z) + jitter()),
                                   engine::Vec3::Zero(), 0.01f, r);
        engine::Model m = b.finalize(device);
        engine::State s1;
        double ms = bench::ms_per_step(m, "semi_implicit", 1e-3f, steps, s1);
        printf("| %d | %.2f | %.1f | %lld |\n", m.particle_count, ms, 1000.0 / ms,
               (long long)engine::particle_grid_dropped(m, s1.grid_bucket_count));
        fflush(stdout);
    }

    // A 64 x 64-cell cloth (65² particles, cell 2 cm, triangle FEM + bending) falling flat onto the
    // ground with particle-particle contact on (self-contact through the same hash grid).
    {
        engine::ModelBuilder b;
        b.particle_contact = true;
        b.particle_ke = b.soft_contact_ke = 1e3f;
        b.particle_kd = b.soft_contact_kd = 1.0f;
        engine::ClothGridDef d;
        d.dim_x = d.dim_y = 64;
        d.cell_x = d.cell_y = 0.02f;
        d.mass = 0.01f;
        d.pos = engine::Vec3(0.0f, 0.3f, 0.0f);
        d.rot = engine::Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Eigen::Vector3f::UnitX()));  // horizontal
        d.tri_ke = d.tri_ka = 1e3f;
        d.particle_radius = 0.008f;
        b.add_cloth_grid(d);
        engine::Model m = b.finalize(device);
        engine::State s1;
        double ms = bench::ms_per_step(m, "semi_implicit", 1e-4f, steps, s1);
        printf("\n| 64x64 cloth with self-contact | ms / step | steps / s | dropped by the grid |\n|---|---|---|---|\n");
        printf("| %d particles, %d triangles | %.3f | %.1f | %lld |\n", m.particle_count, m.tri_count, ms, 1000.0 / ms,
               (long long)engine::particle_grid_dropped(m, s1.grid_bucket_count));
    }
    return 0;
}
