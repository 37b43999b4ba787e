// bench/engine/pile_bench.cpp: milliseconds per semi-implicit step of n bodies in one world (boxes,
// spheres and capsules in turn, on a grid with 2 cm gaps, falling onto a static slab), with the body
// broad phase (engine/broad_phase.h) and without it (every body walks every shape: the O(n^2)
// baseline, measured in the same run). Issue 17's "broad phase built by kernels".
//
//   pile_bench [--device cpu|cuda:0|sim:h200] [--sizes 100,400,1600] [--steps 20] [--integrator semi_implicit]
//
// Each size: one warm-up step, then `steps` timed steps (synchronised by copying body_q to the host
// before and after), for each setting; then whether the two final states are equal bit for bit.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/broad_phase.h"
#include "engine/integrator_registry.h"
#include "bench/engine/step_timer.h"
#include "engine/model_builder.h"

using namespace weft;

namespace {

std::vector<float> host(const runtime::Array& a) {
    std::vector<float> v(a.nbytes() / sizeof(float));
    a.copy_to_host(v.data(), a.nbytes());
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    std::string device = "cpu", integrator = "semi_implicit";
    std::vector<int> sizes = {100, 400, 1600};
    int steps = 20;
    for (int i = 1; i < argc; i += 2) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            fprintf(stderr, "pile_bench: %s needs a value\n", a.c_str());
            return 2;
        }
        const std::string v = argv[i + 1];
        if (a == "--device")
            device = v;
        else if (a == "--integrator")
            integrator = v;
        else if (a == "--steps")
            steps = std::atoi(v.c_str());
        else if (a == "--sizes")
            sizes = bench::parse_sizes(v);
        else {
            fprintf(
                stderr,
                "pile_bench: unknown option '%s'\nusage: pile_bench [--device D] [--sizes N,M] [--steps S] [--integrator I]\n",
                a.c_str());
            return 2;
        }
    }
    printf("device %s, integrator %s, %d steps of 0.5 ms\n\n", device.c_str(), integrator.c_str(), steps);
    printf("| bodies | most candidates of a body | ms / step, broad phase | ms / step, every shape | speed-up | same bits |\n");
    printf("|---|---|---|---|---|---|\n");
    for (int n : sizes) {
        engine::ModelBuilder b;
        const int side = int(std::ceil(std::sqrt(double(n) / 4.0)));
        const float gap = 0.22f;
        b.add_shape_box(engine::Vec3(0.5f * gap * side, -0.05f, 0.5f * gap * side), 0.5f * gap * side + 1.0f, 0.05f,
                        0.5f * gap * side + 1.0f);
        for (int k = 0; k < n; ++k) {
            const engine::Vec3 p(gap * float(k % side), 0.15f + gap * float(k / (side * side)), gap * float((k / side) % side));
            const int body = b.add_body(p);
            if (k % 3 == 0) b.add_shape_box(body, engine::Vec3::Zero(), engine::Quat::Identity(), 0.1f, 0.07f, 0.05f);
            if (k % 3 == 1) b.add_shape_sphere(body, engine::Vec3::Zero(), engine::Quat::Identity(), 0.09f);
            if (k % 3 == 2) b.add_shape_capsule(body, engine::Vec3::Zero(), engine::Quat::Identity(), 0.05f, 0.06f);
        }
        engine::Model m = b.finalize(device);
        engine::State with, without;
        m.body_broad_phase = true;
        const double on = bench::ms_per_step(m, integrator, 5e-4f, steps, with);
        engine::BodyCandidates c;
        c.build(m, with.body_q, 0.0f, false);
        std::vector<int> count(size_t(m.body_count));
        c.count().copy_to_host(count.data(), count.size() * sizeof(int));
        int most = 0, walks = 0;
        for (int x : count) {
            most = std::max(most, x);
            walks += x < 0;
        }
        m.body_broad_phase = false;
        const double off = bench::ms_per_step(m, integrator, 5e-4f, steps, without);
        const auto qa = host(with.body_q), qb = host(without.body_q);
        const bool same = std::memcmp(qa.data(), qb.data(), qa.size() * sizeof(float)) == 0;
        printf("| %d | %d%s | %.3f | %.3f | %.1fx | %s |\n", n, most, walks ? " (some walk all)" : "", on, off, off / on,
               same ? "yes" : "no");
        fflush(stdout);
    }
    return 0;
}
