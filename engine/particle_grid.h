// engine/particle_grid.h: builds the particle hash grid (kernels/hash_grid.py) that particle-particle
// contact queries, from the positions of a step. Two launches and a clear: count-and-insert, then a
// per-bucket sort so that neighbour order (and hence every float sum) is deterministic.
#pragma once

#include "engine/model.h"

namespace weft::engine {

// Fills bucket_count / bucket_particles (Model::particle_grid_* sizes) from positions `x`.
void build_particle_grid(const Model& model, const Array& x, Array& bucket_count, Array& bucket_particles);

// How many particles the last build dropped because their bucket was full (read back to the host;
// 0 when the grid is big enough). Contacts of dropped particles are missed.
int64_t particle_grid_dropped(const Model& model, const Array& bucket_count);

}  // namespace weft::engine
