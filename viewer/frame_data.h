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
#include <algorithm>
#include <array>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "engine/mesh_sdf.h"
#include "engine/renderable.h"
#include "runtime/device.h"

namespace weft::viewer {

// Vertex indices that snapshots of one model share: a copy shares the storage until one of them is
// changed (copy on write), so a model's springs or triangles are converted once, and a renderer can
// keep them uploaded while the same storage comes back (storage()).
class IndexList {
public:
    IndexList() = default;
    IndexList(std::initializer_list<uint32_t> v) : data_(std::make_shared<std::vector<uint32_t>>(v)) {}
    explicit IndexList(std::vector<uint32_t> v) : data_(std::make_shared<std::vector<uint32_t>>(std::move(v))) {}

    size_t size() const { return data_ ? data_->size() : 0; }
    bool empty() const { return size() == 0; }
    uint32_t operator[](size_t i) const { return (*data_)[i]; }
    const uint32_t* begin() const { return data_ ? data_->data() : nullptr; }
    const uint32_t* end() const { return begin() + size(); }
    const uint32_t* data() const { return begin(); }
    bool operator==(const std::vector<uint32_t>& v) const { return size() == v.size() && std::equal(begin(), end(), v.begin()); }

    void push_back(uint32_t i) { own().push_back(i); }
    void insert_back(std::initializer_list<uint32_t> v) { own().insert(own().end(), v); }
    // The storage, shared by every copy of this list (null when empty).
    const std::shared_ptr<const std::vector<uint32_t>> storage() const { return data_; }

private:
    std::vector<uint32_t>& own() {
        if (!data_)
            data_ = std::make_shared<std::vector<uint32_t>>();
        else if (data_.use_count() > 1)
            data_ = std::make_shared<std::vector<uint32_t>>(*data_);
        return *data_;
    }
    std::shared_ptr<std::vector<uint32_t>> data_;
};

// A State (or model) array copied for one snapshot, for a renderer to draw without host copies
// (snapshot() with `vertex_arrays`): on a device that shares memory with OpenGL
// (runtime::Capability::GraphicsInterop, cuda) it is a device array of the snapshot's own, which
// the renderer copies into its vertex buffers on the device (no host round trip); elsewhere (cpu,
// sim, whose arrays are host memory) it is a host vector the renderer uploads. The array is the
// snapshot's: the simulation may go on writing the State while the snapshot is drawn.
struct VertexArray {
    engine::Array device;     // count x width floats on a GraphicsInterop device; or invalid, and:
    std::vector<float> host;  // count x width floats
    // On the device: the point of the snapshotting thread's queue after the snapshot's copies; a
    // renderer on another thread copies out of `device` after it (GraphicsResource::copy_from).
    std::shared_ptr<runtime::QueueMark> ready;
    size_t count = 0;
    int width = 0;                            // floats per vertex: 3 (positions, velocities) or 1..4
    std::vector<float> read() const;          // the values on the host (a device copy for `device`)
    std::vector<float> read(size_t i) const;  // vertex i's `width` values
    size_t bytes() const { return count * size_t(width) * sizeof(float); }
};
using VertexArrayRef = std::shared_ptr<const VertexArray>;

struct ParticleData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;  // m (count)
    std::vector<float> radius;               // m (count)
    std::vector<Eigen::Vector3f> colors;     // linear RGB in [0, 1] (count)
    float value_lo = 0, value_hi = 0;        // the quantity's range the colour map spans
    // Drawn from vertex arrays instead (snapshot's `vertex_arrays`): when position_array is set,
    // positions, radius and colors are empty. The colour of particle i is then
    // color_map((|value_array[i]| - value_lo) / (value_hi - value_lo)), or `uniform` without a
    // value_array; value_hi <= value_lo asks the renderer for the frame's largest |value| (found on
    // the GPU, Renderer::last_ranges()).
    VertexArrayRef position_array, radius_array, value_array;
    Eigen::Vector3f uniform{0.85f, 0.55f, 0.2f};
    size_t size() const { return position_array ? position_array->count : positions.size(); }
    // positions and radius, or the arrays' values read back to the host (picking, tests).
    std::vector<Eigen::Vector3f> host_positions() const;
    std::vector<float> host_radius() const;
};

struct MeshData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;  // m, world space (vertices)
    std::vector<Eigen::Vector3f> normals;    // unit, per vertex (vertices)
    // Drawn from a vertex array instead (positions and normals empty): the renderer makes the same
    // area-weighted vertex normals as snapshot() on the GPU.
    VertexArrayRef position_array;
    IndexList indices;                             // 3 per triangle
    Eigen::Vector3f color{0.8f, 0.8f, 0.8f};       // front faces (counter-clockwise seen from outside)
    Eigen::Vector3f back_color{0.8f, 0.8f, 0.8f};  // back faces; surfaces are lit on both sides
};

struct LineData {
    std::string name;
    std::vector<Eigen::Vector3f> positions;  // m
    VertexArrayRef position_array;           // drawn from instead of `positions` (then empty)
    IndexList indices;                       // 2 per line
    Eigen::Vector3f color{0.9f, 0.9f, 0.9f};
};

// A scalar field on a grid of cells (smoke density), drawn as an absorbing medium: a ray through
// it keeps exp(-sigma * integral of value / value_hi ds) of what lies behind, sigma = kVolumeOpacity
// / the grid's largest side (a 2-D grid, one cell thick: / its cell side), so a cube of values at
// value_hi across the whole domain lets exp(-kVolumeOpacity) through.
struct VolumeData {
    std::string name;
    std::array<int, 3> dims{0, 0, 0};            // cells along x, y, z
    Eigen::Vector3f origin{0, 0, 0};             // m, the lower corner of cell (0, 0, 0)
    float cell = 0;                              // m, the cells' side
    std::vector<float> values;                   // dims[0] dims[1] dims[2], x fastest
    float value_hi = 0;                          // the value drawn fully dense (the frame's largest, or 1)
    Eigen::Vector3f color{0.92f, 0.92f, 0.95f};  // what the medium scatters towards the eye
    float sigma() const;                         // 1/m, per unit of value / value_hi
};
constexpr float kVolumeOpacity = 4.0f;

struct FrameData {
    std::vector<ParticleData> particles;
    std::vector<MeshData> meshes;  // surfaces, then shapes
    std::vector<LineData> lines;   // springs, then joint frames (an x, y and z axis line set each)
    std::vector<VolumeData> volumes;
    bool ground = true;
    Eigen::Vector4f ground_plane{0.0f, 1.0f, 0.0f, 0.0f};  // n.x + d = 0
    // Which snapshot this is (a process-wide count from 1); 0 for a frame built by hand. The
    // renderer keeps a snapshot's shadow map while the same one is drawn again (a window redraws
    // the same frame many times); a frame with serial 0 always gets a new one. Code that edits a
    // snapshot's contents sets serial to 0.
    uint64_t serial = 0;

    // The box around every particle (with its radius), every mesh vertex and every volume's grid;
    // false when empty. Vertex arrays are read back to the host for it (a device copy on cuda);
    // with `skip_arrays` they are left out (the renderer finds their box on the GPU).
    bool bounds(Eigen::Vector3f& lo, Eigen::Vector3f& hi, bool skip_arrays = false) const;
    bool has_vertex_arrays() const;
};

struct ColorOptions {
    // What colours the particles: "speed" (|particle_qd|, the default), "force" (|particle_f|),
    // any State array with one element per particle (its magnitude), or "none" (`uniform`).
    std::string quantity = "speed";
    float lo = 0.0f;  // the colour map spans [lo, hi]; hi <= lo: [0, the frame's largest value]
    float hi = 0.0f;
    Eigen::Vector3f uniform{0.85f, 0.55f, 0.2f};
};

// Host copies of the arrays snapshots read that a model keeps between frames (radii, triangle,
// spring and shape arrays), for arrays in device memory (cuda): a snapshot then copies only what
// the state changes. Each cached allocation is watched (runtime/write_versions.h), so a write to it
// through the runtime (assign, a launch, a copy from the host) makes the next snapshot copy it
// again. Arrays in host memory (cpu, sim) are always read afresh (a numpy view can write them
// unseen, and their copy is a memcpy). Not thread-safe: one cache per snapshotting thread.
class SnapshotCache {
public:
    SnapshotCache() = default;
    ~SnapshotCache();
    SnapshotCache(const SnapshotCache&) = delete;
    SnapshotCache& operator=(const SnapshotCache&) = delete;

    // Copies `bytes` of `a` into `dst`, from the cache when `a` is cached and unchanged.
    void read(const engine::Array& a, void* dst, size_t bytes);
    // `count` int32 indices of `a` as an IndexList: the same storage for as long as `a` is unchanged
    // (on any device: a list is only rebuilt when the bytes it came from differ).
    IndexList indices(const engine::Array& a, size_t count);
    size_t copies() const { return copies_; }  // reads that went to the device

private:
    struct Entry {
        const void* allocation = nullptr;
        uint64_t version = 0;
        std::vector<unsigned char> bytes;
    };
    std::vector<std::pair<std::pair<const void*, size_t>, Entry>> entries_;  // (data, bytes) -> copy
    struct Converted {
        std::vector<int32_t> from;  // the array's bytes the list was made from
        IndexList list;
    };
    std::vector<std::pair<std::pair<const void*, size_t>, Converted>> lists_;
    size_t copies_ = 0;
};

// The colour map (a blue-to-yellow ramp, dark to bright so it reads in grey too): t in [0, 1].
Eigen::Vector3f color_map(float t);

// The colour of the static shape `index` (a fixed palette, so a test knows it).
Eigen::Vector3f shape_color(int index);

// The quantities ColorOptions::quantity accepts besides State array names.
const std::vector<std::string>& color_quantity_names();

// Copies what `renderables` names out of `state` (on any device) to the host. `shape_meshes`
// holds the mesh of each GEO_MESH shape by shape index (the builder's shape_geo_src; may be
// shorter: a missing mesh draws nothing). Shapes on bodies are placed by the state's body poses;
// joint frames become three line sets (x red, y green, z blue), each axis 4% of the scene's
// diagonal long (1 cm to 1 m). Throws runtime::RuntimeError for an unknown quantity
// (with a did-you-mean) or an array of another length.
// `cache` (nullable) keeps the model's arrays between snapshots (SnapshotCache).
// `vertex_arrays`: particles, surfaces and lines keep their State arrays as VertexArrays (one copy
// per State array, shared by everything drawn from it) instead of host vectors, and colours are
// left to the renderer: on cuda the snapshot then copies nothing to the host but the model's
// cached arrays, and the renderer reads device memory (CUDA-OpenGL interop). A quantity whose
// elements are more than 4 floats is reduced to its magnitude on the host.
FrameData snapshot(const engine::Model& model, const engine::State& state, const std::vector<engine::Renderable>& renderables,
                   const std::vector<engine::Mesh>& shape_meshes, const ColorOptions& options = {},
                   SnapshotCache* cache = nullptr, bool vertex_arrays = false);

}  // namespace weft::viewer
