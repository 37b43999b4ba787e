// viewer/frame_data.h: what one frame draws, copied to the host from the engine's renderables.
//
//   FrameData f = snapshot(model, state, integrator.renderables(model), shape_meshes, options);
//   renderer.render(f, camera, width, height);   // viewer/renderer.h
//
// The engine says what a state draws (engine/renderable.h) without naming a solver; this file
// turns that into plain host arrays the renderer uploads: particles with a colour each (a chosen
// per-particle quantity through a colour map), surfaces with per-vertex normals, lines, and the
// static shapes tessellated into meshes in world space. Nothing here touches GL, so the tests
// (and the picker) read exactly what the renderer draws.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "engine/mesh_sdf.h"
#include "engine/renderable.h"

namespace weft::viewer {

struct ParticleData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;  // m (count)
    std::vector<float> radius;               // m (count)
    std::vector<Eigen::Vector3f> colors;     // linear RGB in [0, 1] (count)
    float value_lo = 0, value_hi = 0;        // the quantity's range the colour map spans
};

struct MeshData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;        // m, world space (vertices)
    std::vector<Eigen::Vector3f> normals;          // unit, per vertex (vertices)
    std::vector<uint32_t> indices;                 // 3 per triangle
    Eigen::Vector3f color{0.8f, 0.8f, 0.8f};       // front faces (counter-clockwise seen from outside)
    Eigen::Vector3f back_color{0.8f, 0.8f, 0.8f};  // back faces; surfaces are lit on both sides
};

struct LineData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;  // m
    std::vector<uint32_t> indices;           // 2 per line
    Eigen::Vector3f color{0.9f, 0.9f, 0.9f};
};

struct FrameData {
    std::vector<ParticleData> particles;
    std::vector<MeshData> meshes;  // surfaces, then shapes
    std::vector<LineData> lines;
    bool ground = true;
    Eigen::Vector4f ground_plane{0.0f, 1.0f, 0.0f, 0.0f};  // n.x + d = 0
    // Which snapshot this is (a process-wide count from 1); 0 for a frame built by hand. The
    // renderer keeps a snapshot's shadow map while the same one is drawn again (a window redraws
    // the same frame many times); a frame with serial 0 always gets a new one. Code that edits a
    // snapshot's contents sets serial to 0.
    uint64_t serial = 0;

    // The box around every particle (with its radius) and every mesh vertex; false when empty.
    bool bounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi) const;
};

struct ColorOptions {
    // What colours the particles: "speed" (|particle_qd|, the default), "force" (|particle_f|),
    // any State array with one element per particle (its magnitude), or "none" (`uniform`).
    std::string quantity = "speed";
    float lo = 0.0f;  // the colour map spans [lo, hi]; hi <= lo: [0, the frame's largest value]
    float hi = 0.0f;
    Eigen::Vector3f uniform{0.85f, 0.55f, 0.2f};
};

// The colour map (a blue-to-yellow ramp, dark to bright so it reads in grey too): t in [0, 1].
Eigen::Vector3f color_map(float t);

// The colour of the static shape `index` (a fixed palette, so a test knows it).
Eigen::Vector3f shape_color(int index);

// The quantities ColorOptions::quantity accepts besides State array names.
const std::vector<std::string>& color_quantity_names();

// Copies what `renderables` names out of `state` (on any device) to the host. `shape_meshes`
// holds the mesh of each GEO_MESH shape by shape index (the builder's shape_geo_src; may be
// shorter: a missing mesh draws nothing). Throws runtime::RuntimeError for an unknown quantity
// (with a did-you-mean) or an array of another length.
FrameData snapshot(const engine::Model& model, const engine::State& state, const std::vector<engine::Renderable>& renderables,
                   const std::vector<engine::Mesh>& shape_meshes, const ColorOptions& options = {});

}  // namespace weft::viewer
