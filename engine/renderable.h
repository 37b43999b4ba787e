// engine/renderable.h: what a viewer draws of a State, described without naming any solver.
//
// An integrator returns one Renderable per kind of thing its model holds (Integrator::renderables):
//
//   kind        `positions` (State array)          topology                 extra
//   Particles   vertices, vec3 (n)                 -                        radius (float n)
//   Surface     vertices, vec3                     indices (int32 n x 3)    -
//   Lines       vertices, vec3                     indices (int32 2 n)      -
//   Shapes      "" (all static) or the body        -                        transform, geo_type, geo_scale,
//               poses "body_q" (transform)                                  body (int32 n; -1 = static)
//   Frames      the body poses "body_q"            -                        transform (n), body (int32 n; -1 =
//                                                                           the world): a coordinate frame each
//   Volume      a scalar field, float              -                        dims, origin, cell: a grid of
//               (dims[0] dims[1] dims[2], x fastest)                        cell-centred values
//
// A shape or frame on body b sits at body_q[b] * transform; with body -1 its transform is in the
// world. `positions` names a State array (state_array() finds it), so a viewer reads the current
// state's memory directly, on whatever device it lives, and needs no code per solver family.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

enum class RenderableKind { Particles, Surface, Lines, Shapes, Frames, Volume };

struct Renderable {
    RenderableKind kind = RenderableKind::Particles;
    std::string name;                               // what it is, for a legend: "particles", "triangles", "springs", "shapes",
                                                    // "joint parent frames", "smoke density"
    std::string positions;                          // the State array it reads (see the table above); "" for static shapes
    int count = 0;                                  // particles, triangles, lines, shapes or frames; Volume: cells
    Array radius;                                   // Particles: m, float (count)
    Array indices;                                  // Surface: int32 (count x 3); Lines: int32 (2 count)
    Array transform;                                // Shapes, Frames: transform (count), in the body's frame or the world's
    Array body;                                     // Shapes, Frames: int32 (count), the body it rides on, -1 = none
    Array geo_type;                                 // Shapes: GeoType, int32 (count)
    Array geo_scale;                                // Shapes: vec3 (count), as Model::shape_geo_scale
    std::array<int, 3> dims{0, 0, 0};               // Volume: cells along x, y, z (z = 1 for a 2-D grid)
    std::array<float, 3> origin{0.0f, 0.0f, 0.0f};  // Volume: m, the lower corner of cell (0, 0, 0)
    float cell = 0.0f;                              // Volume: m, the cells' side
};

// Everything a model holds, each only when it has some: its particles, its triangles (as one
// surface), its soft bodies' skin (a second surface), its springs (as lines), its shapes (static and on bodies), its joints' frames (one
// Frames renderable on the parent side, one on the child side) and its smoke density (Volume).
// MPM particles are particles. Every integrator draws what its model holds this way.
std::vector<Renderable> model_renderables(const Model& model);

// The State array called `name` ("particle_q", "particle_qd", "particle_f", "grid_bucket_count",
// "grid_bucket_particles"). Throws runtime::RuntimeError for another name, with a did-you-mean.
const Array& state_array(const State& state, const std::string& name);

// The names state_array() knows, in declaration order.
const std::vector<std::string>& state_array_names();

}  // namespace weft::engine
