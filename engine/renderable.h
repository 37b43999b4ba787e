// engine/renderable.h: what a viewer draws of a State, described without naming any solver.
//
// An integrator returns one Renderable per kind of thing its model holds (Integrator::renderables):
//
//   kind        vertices                           topology                 extra
//   Particles   State array `positions` (vec3 n)   -                        radius (float n)
//   Surface     State array `positions`            indices (int32 n x 3)    -
//   Lines       State array `positions`            indices (int32 2 n)      -
//   Shapes      - (static)                         -                        shape_transform, shape_geo_type,
//                                                                           shape_geo_scale (Model arrays)
//
// `positions` names a State array (state_array() finds it), so a viewer reads the current state's
// memory directly, on whatever device it lives, and needs no code per solver family.
#pragma once

#include <string>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

enum class RenderableKind { Particles, Surface, Lines, Shapes };

struct Renderable {
    RenderableKind kind = RenderableKind::Particles;
    std::string name;       // what it is, for a legend: "particles", "cloth", "springs", "shapes"
    std::string positions;  // the State array of vertex positions ("particle_q"); "" for Shapes
    int count = 0;          // particles, triangles, lines or shapes
    Array radius;           // Particles: m, float (count)
    Array indices;          // Surface: int32 (count x 3); Lines: int32 (2 count)
    Array transform;        // Shapes: transform (count)
    Array geo_type;         // Shapes: GeoType, int32 (count)
    Array geo_scale;        // Shapes: vec3 (count), as Model::shape_geo_scale
};

// The particle families' description of a model: its particles, its triangles (as one surface),
// its springs (as lines) and its static shapes, each only when the model has some.
std::vector<Renderable> particle_renderables(const Model& model);

// The State array called `name` ("particle_q", "particle_qd", "particle_f", "grid_bucket_count",
// "grid_bucket_particles"). Throws runtime::RuntimeError for another name, with a did-you-mean.
const Array& state_array(const State& state, const std::string& name);

// The names state_array() knows, in declaration order.
const std::vector<std::string>& state_array_names();

}  // namespace weft::engine
