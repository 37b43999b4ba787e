// apps/vdb_write.h: a smoke grid as an OpenVDB file (docs/scene-format.md, `formats = ["vdb"]`),
// the volume format Blender, Houdini and other renderers read.
//
//   VdbFields f{nx, ny, nz, h, origin, density, u, v, w};   // the engine's flat fields, x fastest
//   write_file_atomically("frame_00003.vdb", vdb_bytes(f, 3, 0.05));
//
// Two grids, voxel (i, j, k) = cell (i, j, k), the index-to-world transform a scale by h and a
// translation putting voxel centres at the cell centres, origin + (i + 1/2, j + 1/2, k + 1/2) h:
//   "density"   float, grid class fog volume, the cell-centred density (background 0, only nonzero
//               cells stored)
//   "velocity"  vec3s, the face velocities averaged to the cell centres ((u_i + u_i+1) / 2, ...),
//               what renderers use for motion blur; the exact face values are in the .npz
// File metadata: "creator" = "weft", "frame" (int), "time" (s, float).
#pragma once

#include <array>
#include <string>

namespace weft::apps {

struct VdbFields {
    int nx = 0, ny = 0, nz = 0;
    float h = 0.0f;
    std::array<float, 3> origin{0, 0, 0};
    const float* density = nullptr;  // nx ny nz
    const float* u = nullptr;        // (nx + 1) ny nz
    const float* v = nullptr;        // nx (ny + 1) nz
    const float* w = nullptr;        // nx ny (nz + 1)
};

// True when weft was built with OpenVDB (libopenvdb-dev); without it vdb_bytes throws.
bool vdb_available();

// The bytes of a .vdb file holding `f`'s grids. Throws std::runtime_error without OpenVDB.
std::string vdb_bytes(const VdbFields& f, int frame, double time);

}  // namespace weft::apps
