// engine/particle_grid.cpp: see particle_grid.h.
#include "engine/particle_grid.h"

#include <vector>

#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "runtime/named_args.h"

namespace weft::engine {

void build_particle_grid(const Model& model, const Array& x, Array& bucket_count, Array& bucket_particles) {
    using namespace args;
    runtime::LaunchOptions o;
    o.device = model.device;
    static const runtime::Kernel build = solver_kernel("hash_grid", "build_grid");
    static const runtime::Kernel sort = solver_kernel("hash_grid", "sort_grid_buckets");
    bucket_count.zero();
    runtime::launch(build, {model.particle_count},
                    {{"x", a(x)},
                     {"particle_world", a(model.particle_world)},
                     {"inv_cell_size", f(1.0 / model.particle_grid_cell)},
                     {"nbucket", i(model.particle_grid_buckets)},
                     {"capacity", i(model.particle_grid_capacity)},
                     {"bucket_count", a(bucket_count)},
                     {"bucket_particles", a(bucket_particles)}},
                    o);
    runtime::launch(sort, {model.particle_grid_buckets},
                    {{"capacity", i(model.particle_grid_capacity)},
                     {"bucket_count", a(bucket_count)},
                     {"bucket_particles", a(bucket_particles)}},
                    o);
}

int64_t particle_grid_dropped(const Model& model, const Array& bucket_count) {
    if (!bucket_count.valid()) return 0;
    std::vector<int> counts(size_t(bucket_count.size()));
    bucket_count.copy_to_host(counts.data(), counts.size() * sizeof(int));
    int64_t dropped = 0;
    for (int c : counts)
        if (c > model.particle_grid_capacity) dropped += c - model.particle_grid_capacity;
    return dropped;
}

}  // namespace weft::engine
