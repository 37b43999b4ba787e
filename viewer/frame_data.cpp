// viewer/frame_data.cpp: host copies of the renderables, the colour map and the shapes'
// tessellation (UV spheres, boxes with flat faces, capsules as a cylinder and two hemispheres).
#include "viewer/frame_data.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>

#include "runtime/device.h"
#include "runtime/errors.h"
#include "runtime/write_versions.h"
#include "support/closest_name.h"

namespace weft::viewer {

namespace {

using Eigen::Vector3f;
constexpr float kPi = 3.14159265358979f;
constexpr float kPlaneHalfSize = 5.0f;  // m: an infinite plane shape is drawn as a 10 m square

// The snapshot being taken reads model arrays through this cache (null: none).
thread_local SnapshotCache* model_cache = nullptr;

// A State array (read afresh) or, with `model_array`, one of the model's (through the cache).
template <class T>
std::vector<T> to_host(const engine::Array& a, size_t count, const char* what, bool model_array = true) {
    size_t per = sizeof(T) / sizeof(float);
    if (!a.valid() || size_t(a.size()) * a.element_size() != count * sizeof(T))
        throw runtime::RuntimeError(std::string("viewer: ") + what + " has " + (a.valid() ? a.describe() : "no array") +
                                    ", expected " + std::to_string(count) + " x " + std::to_string(per) + " values");
    std::vector<T> v(count);
    if (model_array && model_cache)
        model_cache->read(a, v.data(), count * sizeof(T));
    else
        a.copy_to_host(v.data(), count * sizeof(T));
    return v;
}

// A model's index array as an IndexList: through the cache when there is one (the same storage
// while the array is unchanged), else converted afresh.
IndexList index_list(const engine::Array& a, size_t count, const char* what) {
    if (!a.valid() || size_t(a.size()) * a.element_size() != count * sizeof(int32_t))
        throw runtime::RuntimeError(std::string("viewer: ") + what + " has " + (a.valid() ? a.describe() : "no array") +
                                    ", expected " + std::to_string(count) + " indices");
    if (model_cache) return model_cache->indices(a, count);
    std::vector<int32_t> raw(count);
    a.copy_to_host(raw.data(), count * sizeof(int32_t));
    return IndexList(std::vector<uint32_t>(raw.begin(), raw.end()));
}

std::vector<Vector3f> vec3s(const engine::Array& a, size_t count, const char* what, bool model_array = true) {
    std::vector<float> f = to_host<float>(a, 3 * count, what, model_array);
    std::vector<Vector3f> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = Vector3f(f[3 * i], f[3 * i + 1], f[3 * i + 2]);
    return v;
}

// A transform as the engine stores it: p (3 floats), then the rotation quaternion x, y, z, w.
struct Xform {
    Vector3f p = Vector3f::Zero();
    Eigen::Quaternionf q = Eigen::Quaternionf::Identity();
};

std::vector<Xform> xforms(const engine::Array& a, size_t count, const char* what, bool model_array = true) {
    std::vector<float> f = to_host<float>(a, 7 * count, what, model_array);
    std::vector<Xform> out(count);
    for (size_t i = 0; i < count; ++i) {
        const float* x = &f[7 * i];
        out[i].p = Vector3f(x[0], x[1], x[2]);
        out[i].q = Eigen::Quaternionf(x[6], x[3], x[4], x[5]).normalized();
    }
    return out;
}

// `local` placed in the world: by the State's body poses (r.positions) for entries whose r.body is a
// body, as they are for -1 (or when the renderable names no body poses).
std::vector<Xform> placed(const engine::State& state, const engine::Renderable& r, const std::vector<Xform>& local,
                          const char* what) {
    if (r.positions.empty()) return local;
    std::vector<int> body = to_host<int>(r.body, local.size(), what);
    const engine::Array& q = engine::state_array(state, r.positions);
    std::vector<Xform> poses = xforms(q, size_t(q.size()), "the body poses", false);
    std::vector<Xform> out = local;
    for (size_t i = 0; i < local.size(); ++i) {
        if (body[i] < 0) continue;
        if (size_t(body[i]) >= poses.size())
            throw runtime::RuntimeError(std::string("viewer: ") + what + " name body " + std::to_string(body[i]) + " of " +
                                        std::to_string(poses.size()));
        const Xform& b = poses[size_t(body[i])];
        out[i].p = b.p + b.q * local[i].p;
        out[i].q = b.q * local[i].q;
    }
    return out;
}

// Joint frames found by snapshot(), drawn as axes once the scene's size is known.
struct Frames {
    std::string name;
    std::vector<Xform> poses;
};

// Adds a vertex ring mesh: rows x cols vertices from `at(u, v)` (u, v in [0, 1]) with normals from
// `normal(u, v)`, triangulated counter-clockwise seen from outside.
template <class At, class Normal>
void add_grid(MeshData& m, int rows, int cols, At at, Normal normal) {
    uint32_t base = uint32_t(m.positions.size());
    for (int r = 0; r <= rows; ++r)
        for (int c = 0; c <= cols; ++c) {
            float u = float(c) / float(cols), v = float(r) / float(rows);
            m.positions.push_back(at(u, v));
            m.normals.push_back(normal(u, v));
        }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            uint32_t i = base + uint32_t(r * (cols + 1) + c), j = i + 1, k = i + uint32_t(cols + 1), l = k + 1;
            m.indices.insert_back({i, j, k, j, l, k});
        }
}

// A unit-sphere direction: u around y (longitude), v from the south pole (0) to the north (1).
Vector3f sphere_dir(float u, float v) {
    float theta = 2.0f * kPi * u, phi = kPi * (v - 0.5f);
    return Vector3f(std::cos(phi) * std::sin(theta), std::sin(phi), std::cos(phi) * std::cos(theta));
}

MeshData shape_mesh(int type, const Vector3f& s, const std::vector<engine::Mesh>& meshes, int index) {
    MeshData m;
    switch (type) {
        case engine::GEO_SPHERE:
            add_grid(
                m, 16, 32, [&](float u, float v) { return Vector3f(s.x() * sphere_dir(u, v)); }, sphere_dir);
            break;
        case engine::GEO_CAPSULE: {
            float r = s.x(), h = s.y();
            // Lower hemisphere (v in [0, 1/2] of the sphere), cylinder, upper hemisphere.
            add_grid(
                m, 8, 32, [&](float u, float v) { return Vector3f(r * sphere_dir(u, 0.5f * v) - Vector3f(0, h, 0)); },
                [&](float u, float v) { return sphere_dir(u, 0.5f * v); });
            add_grid(
                m, 1, 32, [&](float u, float v) { return Vector3f(r * sphere_dir(u, 0.5f) + Vector3f(0, h * (2 * v - 1), 0)); },
                [&](float u, float) { return sphere_dir(u, 0.5f); });
            add_grid(
                m, 8, 32, [&](float u, float v) { return Vector3f(r * sphere_dir(u, 0.5f + 0.5f * v) + Vector3f(0, h, 0)); },
                [&](float u, float v) { return sphere_dir(u, 0.5f + 0.5f * v); });
            break;
        }
        case engine::GEO_CYLINDER:
        case engine::GEO_CONE: {
            // Along y from -h to +h: the side, then the caps (v from the rim inwards on the top cap and
            // outwards on the bottom one, so that both wind counter-clockwise seen from outside). The
            // cone narrows to its apex at -h (no bottom cap).
            const bool cone = type == engine::GEO_CONE;
            const float r = s.x(), h = s.y(), ln = std::sqrt(r * r + 4 * h * h);
            auto rim = [&](float u) { return sphere_dir(u, 0.5f); };
            add_grid(
                m, 1, 32,
                [&](float u, float v) { return Vector3f((cone ? v : 1.0f) * r * rim(u) + Vector3f(0, h * (2 * v - 1), 0)); },
                [&](float u, float) { return cone ? Vector3f((2 * h * rim(u) - Vector3f(0, r, 0)) / ln) : rim(u); });
            add_grid(
                m, 1, 32, [&](float u, float v) { return Vector3f((1 - v) * r * rim(u) + Vector3f(0, h, 0)); },
                [&](float, float) { return Vector3f(0, 1, 0); });
            if (!cone)
                add_grid(
                    m, 1, 32, [&](float u, float v) { return Vector3f(v * r * rim(u) - Vector3f(0, h, 0)); },
                    [&](float, float) { return Vector3f(0, -1, 0); });
            break;
        }
        case engine::GEO_BOX:
            for (int axis = 0; axis < 3; ++axis)
                for (float sign : {-1.0f, 1.0f}) {
                    Vector3f n = Vector3f::Zero();
                    n[axis] = sign;
                    // Tangents with t2 x t1 = n (u along t2, v along t1), so the face winds counter-clockwise
                    // seen from outside.
                    Vector3f t1 = Vector3f::Zero();
                    t1[(axis + 1) % 3] = 1.0f;
                    Vector3f t2 = t1.cross(n);
                    add_grid(
                        m, 1, 1,
                        [&](float u, float v) { return Vector3f((n + (2 * u - 1) * t2 + (2 * v - 1) * t1).cwiseProduct(s)); },
                        [&](float, float) { return n; });
                }
            break;
        case engine::GEO_PLANE:
            add_grid(
                m, 1, 1,
                [&](float u, float v) { return Vector3f(kPlaneHalfSize * (2 * v - 1), 0, kPlaneHalfSize * (2 * u - 1)); },
                [&](float, float) { return Vector3f(0, 1, 0); });
            break;
        case engine::GEO_MESH: {
            if (size_t(index) >= meshes.size()) break;
            const engine::Mesh& src = meshes[size_t(index)];
            // Flat-shaded: each triangle gets its own three vertices and face normal.
            for (size_t t = 0; t + 2 < src.indices.size(); t += 3) {
                Vector3f p[3];
                for (int k = 0; k < 3; ++k) p[k] = src.vertices[size_t(src.indices[t + size_t(k)])].cwiseProduct(s);
                Vector3f n = (p[1] - p[0]).cross(p[2] - p[0]).normalized();
                for (int k = 0; k < 3; ++k) {
                    m.indices.push_back(uint32_t(m.positions.size()));
                    m.positions.push_back(p[k]);
                    m.normals.push_back(n);
                }
            }
            break;
        }
        default: break;
    }
    return m;
}

}  // namespace

Vector3f color_map(float t) {
    // Piecewise-linear through five stops: dark blue, blue, teal, green, yellow.
    static const Vector3f stops[] = {
        {0.12f, 0.15f, 0.55f}, {0.15f, 0.40f, 0.85f}, {0.10f, 0.70f, 0.70f}, {0.45f, 0.85f, 0.30f}, {0.98f, 0.90f, 0.15f}};
    t = std::clamp(std::isfinite(t) ? t : 0.0f, 0.0f, 1.0f) * 4.0f;
    int i = std::min(int(t), 3);
    float f = t - float(i);
    return (1.0f - f) * stops[i] + f * stops[i + 1];
}

Vector3f shape_color(int index) {
    static const Vector3f palette[] = {
        {0.85f, 0.30f, 0.20f}, {0.25f, 0.55f, 0.85f}, {0.35f, 0.75f, 0.35f}, {0.80f, 0.65f, 0.25f}, {0.60f, 0.40f, 0.75f}};
    return palette[size_t(index) % 5];
}

const std::vector<std::string>& color_quantity_names() {
    static const std::vector<std::string> names = {"speed", "force", "none"};
    return names;
}

std::vector<float> VertexArray::read() const {
    if (!device.valid()) return host;
    std::vector<float> out(count * size_t(width));
    device.copy_to_host(out.data(), bytes());
    return out;
}

std::vector<float> VertexArray::read(size_t i) const {
    std::vector<float> out(static_cast<size_t>(width));
    if (i >= count)
        throw runtime::RuntimeError("viewer: vertex " + std::to_string(i) + " is out of range: the array has " +
                                    std::to_string(count) + " vertices");
    const size_t at = i * size_t(width);
    if (!device.valid())
        std::copy(host.begin() + long(at), host.begin() + long(at) + width, out.begin());
    else
        runtime::backend(device.device())
            .copy_to_host(out.data(), static_cast<const float*>(device.data()) + at, out.size() * sizeof(float));
    return out;
}

std::vector<Vector3f> ParticleData::host_positions() const {
    if (!position_array) return positions;
    std::vector<float> x = position_array->read();
    std::vector<Vector3f> out(position_array->count);
    for (size_t i = 0; i < out.size(); ++i) out[i] = Vector3f(x[3 * i], x[3 * i + 1], x[3 * i + 2]);
    return out;
}

std::vector<float> ParticleData::host_radius() const { return radius_array ? radius_array->read() : radius; }

bool FrameData::has_vertex_arrays() const {
    for (const ParticleData& p : particles)
        if (p.position_array) return true;
    for (const MeshData& m : meshes)
        if (m.position_array) return true;
    for (const LineData& l : lines)
        if (l.position_array) return true;
    return false;
}

bool FrameData::bounds(Vector3f& lo, Vector3f& hi, bool skip_arrays) const {
    lo = Vector3f::Constant(INFINITY);
    hi = Vector3f::Constant(-INFINITY);
    auto add = [&](const Vector3f& p, float r) {
        if (p.allFinite()) lo = lo.cwiseMin(p - Vector3f::Constant(r)), hi = hi.cwiseMax(p + Vector3f::Constant(r));
    };
    for (const ParticleData& p : particles) {
        if (p.position_array && skip_arrays) continue;
        std::vector<Vector3f> x = p.host_positions();
        std::vector<float> r = p.host_radius();
        for (size_t i = 0; i < x.size(); ++i) add(x[i], r[i]);
    }
    for (const MeshData& m : meshes) {
        for (const Vector3f& v : m.positions) add(v, 0.0f);
        if (m.position_array && !skip_arrays) {
            std::vector<float> x = m.position_array->read();
            for (size_t i = 0; i < m.position_array->count; ++i) add(Vector3f(x[3 * i], x[3 * i + 1], x[3 * i + 2]), 0.0f);
        }
    }
    for (const VolumeData& v : volumes) {
        Vector3f size(float(v.dims[0]), float(v.dims[1]), float(v.dims[2]));
        lo = lo.cwiseMin(v.origin);
        hi = hi.cwiseMax(v.origin + v.cell * size);
    }
    return (lo.array() <= hi.array()).all();
}

float VolumeData::sigma() const {
    int thin = std::min({dims[0], dims[1], dims[2]});
    float side = cell * float(std::max({dims[0], dims[1], dims[2]}));
    return kVolumeOpacity / std::max(thin == 1 ? cell : side, 1e-12f);
}

SnapshotCache::~SnapshotCache() {
    for (auto& [key, e] : entries_) runtime::unwatch_writes(e.allocation);
}

void SnapshotCache::read(const engine::Array& a, void* dst, size_t bytes) {
    if (a.device().is_host_memory()) {
        a.copy_to_host(dst, bytes);
        return;
    }
    const std::pair<const void*, size_t> key{a.data(), bytes};
    const void* allocation = runtime::allocation_of(a);
    for (auto& [k, e] : entries_)
        if (k == key && e.allocation == allocation) {
            uint64_t version = runtime::write_version(allocation).version;
            if (version != e.version) {
                a.copy_to_host(e.bytes.data(), bytes);
                e.version = version;
                ++copies_;
            }
            std::memcpy(dst, e.bytes.data(), bytes);
            return;
        }
    Entry e;
    e.allocation = allocation;
    runtime::watch_writes(allocation);
    e.version = runtime::write_version(allocation).version;
    e.bytes.resize(bytes);
    a.copy_to_host(e.bytes.data(), bytes);
    ++copies_;
    std::memcpy(dst, e.bytes.data(), bytes);
    entries_.push_back({key, std::move(e)});
}

IndexList SnapshotCache::indices(const engine::Array& a, size_t count) {
    const size_t bytes = count * sizeof(int32_t);
    const std::pair<const void*, size_t> key{a.data(), bytes};
    auto it = std::find_if(lists_.begin(), lists_.end(), [&](const auto& e) { return e.first == key; });
    if (it != lists_.end() && !a.device().is_host_memory()) {
        // Device memory: unchanged while its cached bytes are (the write version says so).
        const void* allocation = runtime::allocation_of(a);
        for (const auto& [k, e] : entries_)
            if (k == key && e.allocation == allocation && e.version == runtime::write_version(allocation).version)
                return it->second.list;
    }
    std::vector<int32_t> raw(count);
    read(a, raw.data(), bytes);
    if (it != lists_.end() && it->second.from == raw) return it->second.list;
    IndexList list(std::vector<uint32_t>(raw.begin(), raw.end()));
    if (it != lists_.end())
        it->second = {std::move(raw), list};
    else
        lists_.push_back({key, {std::move(raw), list}});
    return list;
}

FrameData snapshot(const engine::Model& model, const engine::State& state, const std::vector<engine::Renderable>& renderables,
                   const std::vector<engine::Mesh>& shape_meshes, const ColorOptions& options, SnapshotCache* cache,
                   bool vertex_arrays) {
    struct UseCache {
        SnapshotCache* previous;
        explicit UseCache(SnapshotCache* c) : previous(model_cache) { model_cache = c; }
        ~UseCache() { model_cache = previous; }
    } use_cache(cache);
    static std::atomic<uint64_t> snapshots{0};
    FrameData f;
    std::vector<Frames> frames;
    // Each State array of positions is read once per snapshot (particles, surfaces and lines share one).
    std::map<std::string, std::vector<Vector3f>> read_vec3;
    auto state_vec3 = [&](const std::string& name, size_t count, const char* what) -> const std::vector<Vector3f>& {
        auto it = read_vec3.find(name);
        if (it != read_vec3.end() && it->second.size() == count) return it->second;
        return read_vec3[name] = vec3s(engine::state_array(state, name), count, what, false);
    };
    // With `vertex_arrays`: each array copied once per snapshot (particles, surfaces and lines share
    // one). A device copy is queued on this thread's current stream; the renderer's interop copy
    // out of it is queued on the drawing thread's, which is the same stream (the device's default)
    // unless a caller made another one current.
    std::map<const void*, std::shared_ptr<VertexArray>> copied;
    auto vertex_array = [&](const engine::Array& a, size_t count, int width, const char* what) -> VertexArrayRef {
        const size_t bytes = count * size_t(width) * sizeof(float);
        if (!a.valid() || a.nbytes() != bytes || !a.is_contiguous())
            throw runtime::RuntimeError(std::string("viewer: ") + what + " has " + (a.valid() ? a.describe() : "no array") +
                                        ", expected " + std::to_string(count) + " x " + std::to_string(width) + " values");
        auto it = copied.find(a.data());
        if (it != copied.end() && it->second->bytes() == bytes) return it->second;
        auto v = std::make_shared<VertexArray>();
        v->count = count;
        v->width = width;
        if (a.device().supports(runtime::Capability::GraphicsInterop)) {
            v->device = engine::Array::empty(a.dtype(), a.shape(), a.device());
            v->device.assign_unrecorded(a);
        } else {
            v->host.resize(count * size_t(width));
            a.copy_to_host(v->host.data(), bytes);
        }
        return copied[a.data()] = v;
    };
    f.serial = ++snapshots;
    f.ground = model.ground;
    f.ground_plane = Eigen::Vector4f(model.ground_plane[0], model.ground_plane[1], model.ground_plane[2], model.ground_plane[3]);
    std::vector<MeshData> shapes;
    for (const engine::Renderable& r : renderables) {
        size_t n = size_t(r.count);
        switch (r.kind) {
            case engine::RenderableKind::Particles: {
                ParticleData p;
                p.name = r.name;
                p.uniform = options.uniform;
                if (vertex_arrays) {
                    p.position_array = vertex_array(engine::state_array(state, r.positions), n, 3, "the particle positions");
                    p.radius_array = vertex_array(r.radius, n, 1, "the particle radii");
                } else {
                    p.positions = state_vec3(r.positions, n, "the particle positions");
                    p.radius = to_host<float>(r.radius, n, "the particle radii");
                    p.colors.assign(n, options.uniform);
                }
                if (options.quantity != "none") {
                    std::string array = options.quantity == "speed"   ? "particle_qd"
                                        : options.quantity == "force" ? "particle_f"
                                                                      : options.quantity;
                    std::vector<std::string> known = color_quantity_names();
                    for (const std::string& s : engine::state_array_names()) known.push_back(s);
                    if (std::find(known.begin(), known.end(), options.quantity) == known.end()) {
                        std::string near = support::closest_name(options.quantity, known);
                        throw runtime::RuntimeError("viewer: cannot colour particles by '" + options.quantity + "'" +
                                                    (near.empty() ? "" : " (did you mean '" + near + "'?)"));
                    }
                    const engine::Array& a = engine::state_array(state, array);
                    std::vector<float> values(n, 0.0f);
                    p.value_lo = options.lo;
                    p.value_hi = options.hi;
                    size_t per = 0;
                    if (a.valid() && a.size() > 0) {
                        per = size_t(a.size()) * a.element_size() / sizeof(float) / std::max<size_t>(n, 1);
                        if (per * n * sizeof(float) != size_t(a.size()) * a.element_size())
                            throw runtime::RuntimeError("viewer: cannot colour " + std::to_string(n) + " particles by '" +
                                                        options.quantity + "', " + a.describe() + " is not per particle");
                    }
                    if (vertex_arrays && per >= 1 && per <= 4) {
                        // The renderer colours by |value| (and finds the range when asked) on the GPU.
                        p.value_array = vertex_array(a, n, int(per), options.quantity.c_str());
                        if (options.hi <= options.lo) p.value_lo = p.value_hi = 0.0f;
                        f.particles.push_back(std::move(p));
                        break;
                    }
                    if (per > 0) {
                        std::vector<float> raw = to_host<float>(a, per * n, options.quantity.c_str(), false);
                        for (size_t i = 0; i < n; ++i)
                            values[i] = Eigen::Map<Eigen::VectorXf>(raw.data() + per * i, Eigen::Index(per)).norm();
                    }
                    if (vertex_arrays) {  // magnitudes from the host, coloured by the renderer
                        auto v = std::make_shared<VertexArray>();
                        v->count = n;
                        v->width = 1;
                        v->host = values;
                        p.value_array = v;
                        if (options.hi <= options.lo) p.value_lo = p.value_hi = 0.0f;
                        f.particles.push_back(std::move(p));
                        break;
                    }
                    if (options.hi <= options.lo) {
                        p.value_lo = 0.0f;
                        p.value_hi = 0.0f;
                        for (float v : values)
                            if (std::isfinite(v)) p.value_hi = std::max(p.value_hi, v);
                    }
                    float span = std::max(p.value_hi - p.value_lo, 1e-12f);
                    for (size_t i = 0; i < n; ++i) p.colors[i] = color_map((values[i] - p.value_lo) / span);
                }
                f.particles.push_back(std::move(p));
                break;
            }
            case engine::RenderableKind::Surface: {
                MeshData m;
                m.name = r.name;
                const engine::Array& q = engine::state_array(state, r.positions);
                m.indices = index_list(r.indices, 3 * n, "the surface triangles");
                m.color = Vector3f(0.30f, 0.55f, 0.85f);
                m.back_color = Vector3f(0.85f, 0.45f, 0.30f);
                if (vertex_arrays) {  // normals made by the renderer
                    m.position_array = vertex_array(q, size_t(q.size()), 3, "the surface positions");
                    f.meshes.push_back(std::move(m));
                    break;
                }
                m.positions = state_vec3(r.positions, size_t(q.size()), "the surface positions");
                // Area-weighted vertex normals: the sum of the (unnormalised) face normals around a vertex.
                m.normals.assign(m.positions.size(), Vector3f::Zero());
                for (size_t t = 0; t < n; ++t) {
                    uint32_t a = m.indices[3 * t], b = m.indices[3 * t + 1], c = m.indices[3 * t + 2];
                    if (a >= m.positions.size() || b >= m.positions.size() || c >= m.positions.size()) continue;
                    Vector3f fn = (m.positions[b] - m.positions[a]).cross(m.positions[c] - m.positions[a]);
                    m.normals[a] += fn, m.normals[b] += fn, m.normals[c] += fn;
                }
                for (Vector3f& v : m.normals) v = v.norm() > 0 ? Vector3f(v.normalized()) : Vector3f(0, 1, 0);
                f.meshes.push_back(std::move(m));
                break;
            }
            case engine::RenderableKind::Lines: {
                LineData l;
                l.name = r.name;
                const engine::Array& q = engine::state_array(state, r.positions);
                if (vertex_arrays)
                    l.position_array = vertex_array(q, size_t(q.size()), 3, "the line positions");
                else
                    l.positions = state_vec3(r.positions, size_t(q.size()), "the line positions");
                l.indices = index_list(r.indices, 2 * n, "the line indices");
                f.lines.push_back(std::move(l));
                break;
            }
            case engine::RenderableKind::Shapes: {
                std::vector<Xform> local = xforms(r.transform, n, "the shape transforms");
                std::vector<int> type = to_host<int>(r.geo_type, n, "the shape types");
                std::vector<Vector3f> scale = vec3s(r.geo_scale, n, "the shape scales");
                std::vector<Xform> world = placed(state, r, local, "the shapes' bodies");
                for (size_t s = 0; s < n; ++s) {
                    MeshData m = shape_mesh(type[s], scale[s], shape_meshes, int(s));
                    Eigen::Matrix3f rot = world[s].q.toRotationMatrix();
                    for (Vector3f& v : m.positions) v = rot * v + world[s].p;
                    for (Vector3f& v : m.normals) v = rot * v;
                    m.name = r.name + "[" + std::to_string(s) + "]";
                    m.color = m.back_color = shape_color(int(s));
                    shapes.push_back(std::move(m));
                }
                break;
            }
            case engine::RenderableKind::Frames:
                frames.push_back(
                    {r.name, placed(state, r, xforms(r.transform, n, "the frame transforms"), "the frames' bodies")});
                break;
            case engine::RenderableKind::Volume: {
                VolumeData v;
                v.name = r.name;
                v.dims = r.dims;
                v.origin = Vector3f(r.origin[0], r.origin[1], r.origin[2]);
                v.cell = r.cell;
                size_t cells = size_t(r.dims[0]) * size_t(r.dims[1]) * size_t(r.dims[2]);
                v.values = to_host<float>(engine::state_array(state, r.positions), cells, "the volume's values", false);
                v.value_hi = 0.0f;
                for (float x : v.values)
                    if (std::isfinite(x)) v.value_hi = std::max(v.value_hi, x);
                if (!(v.value_hi > 0.0f)) v.value_hi = 1.0f;
                f.volumes.push_back(std::move(v));
                break;
            }
        }
    }
    for (MeshData& m : shapes) f.meshes.push_back(std::move(m));
    std::shared_ptr<runtime::QueueMark> ready;
    for (auto& [data, v] : copied)
        if (v->device.valid()) {
            if (!ready) ready = runtime::backend(v->device.device()).mark_queue();
            v->ready = ready;
        }
    if (!frames.empty()) {
        Vector3f lo, hi;
        float diagonal = f.bounds(lo, hi) ? (hi - lo).norm() : 1.0f;
        float length = std::clamp(0.04f * diagonal, 0.01f, 1.0f);
        for (const Frames& fr : frames)
            for (int axis = 0; axis < 3; ++axis) {
                LineData l;
                l.name = fr.name + (axis == 0 ? " x" : axis == 1 ? " y" : " z");
                l.color = Vector3f::Zero();
                l.color[axis] = 0.95f;
                l.color[(axis + 1) % 3] = l.color[(axis + 2) % 3] = 0.15f;
                for (const Xform& x : fr.poses) {
                    uint32_t base = uint32_t(l.positions.size());
                    l.positions.push_back(x.p);
                    l.positions.push_back(x.p + length * (x.q * Vector3f::Unit(axis)));
                    l.indices.insert_back({base, base + 1});
                }
                f.lines.push_back(std::move(l));
            }
    }
    return f;
}

}  // namespace weft::viewer
