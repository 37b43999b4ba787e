// apps/ply.h: the .ply files `weft run` writes for each frame ([output] formats = ["ply"]).
//
// ASCII PLY 1.0, the layout MeshLab, Blender, Open3D and trimesh read:
//
//   ply
//   format ascii 1.0
//   element vertex N                  the particles, in index order
//   property float x                  m
//   property float y
//   property float z
//   element face M                    only when the model has surfaces: its cloth triangles, then
//   property list uchar int vertex_indices    its soft bodies' skin (engine/topology.h, surface())
//   end_header
//   x y z                             N lines, each float with 9 significant digits (exact)
//   3 i j k                           M lines, vertex indices from 0
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::apps {

// The file's bytes for positions `q` (x, y, z per vertex) and triangles `faces`.
std::string ply_text(const std::vector<float>& q, const std::vector<std::array<int32_t, 3>>& faces);

}  // namespace weft::apps
