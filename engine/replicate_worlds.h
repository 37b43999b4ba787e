// engine/replicate_worlds.h: N copies of a model as separate worlds of one builder, the batched
// worlds of a scene's [worlds] table (engine/scene_worlds.cpp) and of the benchmarks.
//
//   ModelBuilder batch = replicate_worlds(one, 4096, Vec3(2, 0, 0));   // worlds 0 .. 4095
//   Model m = batch.finalize("cuda");                                  // one launch per kernel for all
#pragma once

#include "engine/model_builder.h"

namespace weft::engine {

// `count` copies of `one` as worlds 0 .. count-1 of a new builder that has `one`'s settings
// (gravity, ground, contact parameters, defaults); copy w is added by add_builder moved by
// (first + w) * spacing (`first`: where a process's block of a larger set of worlds starts). Every
// array of the result is `count` times `one`'s, world by world (world w's particles are
// w * one.particle_count() .. (w + 1) * one.particle_count() - 1), so one world's copy computes
// what `one` alone does. Throws BuildError for count < 1, a builder with worlds of its own, and
// what add_builder refuses (MPM particles, smoke grids).
ModelBuilder replicate_worlds(const ModelBuilder& one, int count, const Vec3& spacing = Vec3::Zero(), int first = 0);

}  // namespace weft::engine
