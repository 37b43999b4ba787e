// engine/topology.h: a model's connectivity on the host, for files that describe it without the
// scene (weft run's topology.npz and the faces of its .ply frames, apps/cmd_run.cpp).
//
//   Topology t = model_topology(model);   // copies the index arrays of the model's device
//   t.surface()                           // the triangles a mesh file shows: cloth, then soft-body skin
//
// A soft body is tetrahedra only; its surface is derived here (by finalize(), into
// Model::tet_surface_indices, which the viewer draws too): the faces that belong to exactly one
// tetrahedron, wound so that their normal (b - a) x (c - a) points away from that tetrahedron's
// fourth vertex in the builder's positions (outward for a solid).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

struct Topology {
    std::vector<std::array<int32_t, 3>> triangles;    // tri_indices (tri_count): cloth and other triangle elements
    std::vector<std::array<int32_t, 3>> tet_surface;  // the boundary faces of the tetrahedra, wound outward
    std::vector<std::array<int32_t, 2>> springs;      // spring_indices (spring_count): i, j
    std::vector<std::array<int32_t, 4>> edges;        // edge_indices (edge_count): opposite i, j, edge k, l
    std::vector<std::array<int32_t, 4>> tetrahedra;   // tet_indices (tet_count)

    // triangles, then tet_surface: every surface a mesh viewer should draw.
    std::vector<std::array<int32_t, 3>> surface() const;
};

Topology model_topology(const Model& model);

// The faces of `tets` that no other tetrahedron shares, each wound so that its normal points away
// from the opposite vertex of its tetrahedron in `positions` (x, y, z per particle). Faces come
// in the order of their tetrahedra, and within one in the order (b c d), (a d c), (a b d), (a c b)
// of tetrahedron (a b c d), each rotated to start at its smallest index.
std::vector<std::array<int32_t, 3>> tet_surface_triangles(const std::vector<std::array<int32_t, 4>>& tets,
                                                          const std::vector<float>& positions);

}  // namespace weft::engine
