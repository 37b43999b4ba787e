// viewer/frame_data.cpp: host copies of the renderables, the colour map and the shapes'
// tessellation (UV spheres, boxes with flat faces, capsules as a cylinder and two hemispheres).
#include "viewer/frame_data.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "runtime/errors.h"
#include "support/closest_name.h"

namespace weft::viewer {

namespace {

using Eigen::Vector3f;
constexpr float kPi = 3.14159265358979f;
constexpr float kPlaneHalfSize = 5.0f;  // m: an infinite plane shape is drawn as a 10 m square

template <class T>
std::vector<T> to_host(const engine::Array& a, size_t count, const char* what) {
    size_t per = sizeof(T) / sizeof(float);
    if (!a.valid() || size_t(a.size()) * a.element_size() != count * sizeof(T))
        throw runtime::RuntimeError(std::string("viewer: ") + what + " has " + (a.valid() ? a.describe() : "no array") +
                                    ", expected " + std::to_string(count) + " x " + std::to_string(per) + " values");
    std::vector<T> v(count);
    a.copy_to_host(v.data(), count * sizeof(T));
    return v;
}

std::vector<Vector3f> vec3s(const engine::Array& a, size_t count, const char* what) {
    std::vector<float> f = to_host<float>(a, 3 * count, what);
    std::vector<Vector3f> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = Vector3f(f[3 * i], f[3 * i + 1], f[3 * i + 2]);
    return v;
}

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
            m.indices.insert(m.indices.end(), {i, j, k, j, l, k});
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

bool FrameData::bounds(Vector3f& lo, Vector3f& hi) const {
    lo = Vector3f::Constant(INFINITY);
    hi = Vector3f::Constant(-INFINITY);
    for (const ParticleData& p : particles)
        for (size_t i = 0; i < p.positions.size(); ++i) {
            if (!p.positions[i].allFinite()) continue;
            lo = lo.cwiseMin(p.positions[i] - Vector3f::Constant(p.radius[i]));
            hi = hi.cwiseMax(p.positions[i] + Vector3f::Constant(p.radius[i]));
        }
    for (const MeshData& m : meshes)
        for (const Vector3f& v : m.positions)
            if (v.allFinite()) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
    return (lo.array() <= hi.array()).all();
}

FrameData snapshot(const engine::Model& model, const engine::State& state, const std::vector<engine::Renderable>& renderables,
                   const std::vector<engine::Mesh>& shape_meshes, const ColorOptions& options) {
    static std::atomic<uint64_t> snapshots{0};
    FrameData f;
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
                p.positions = vec3s(engine::state_array(state, r.positions), n, "the particle positions");
                p.radius = to_host<float>(r.radius, n, "the particle radii");
                p.colors.assign(n, options.uniform);
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
                    if (a.valid() && a.size() > 0) {
                        size_t per = size_t(a.size()) * a.element_size() / sizeof(float) / std::max<size_t>(n, 1);
                        if (per * n * sizeof(float) != size_t(a.size()) * a.element_size())
                            throw runtime::RuntimeError("viewer: cannot colour " + std::to_string(n) + " particles by '" +
                                                        options.quantity + "', " + a.describe() + " is not per particle");
                        std::vector<float> raw = to_host<float>(a, per * n, options.quantity.c_str());
                        for (size_t i = 0; i < n; ++i)
                            values[i] = Eigen::Map<Eigen::VectorXf>(raw.data() + per * i, Eigen::Index(per)).norm();
                    }
                    p.value_lo = options.lo;
                    p.value_hi = options.hi;
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
                m.positions = vec3s(q, size_t(q.size()), "the surface positions");
                std::vector<int> idx = to_host<int>(r.indices, 3 * n, "the surface triangles");
                m.indices.assign(idx.begin(), idx.end());
                // Area-weighted vertex normals: the sum of the (unnormalised) face normals around a vertex.
                m.normals.assign(m.positions.size(), Vector3f::Zero());
                for (size_t t = 0; t < n; ++t) {
                    uint32_t a = m.indices[3 * t], b = m.indices[3 * t + 1], c = m.indices[3 * t + 2];
                    if (a >= m.positions.size() || b >= m.positions.size() || c >= m.positions.size()) continue;
                    Vector3f fn = (m.positions[b] - m.positions[a]).cross(m.positions[c] - m.positions[a]);
                    m.normals[a] += fn, m.normals[b] += fn, m.normals[c] += fn;
                }
                for (Vector3f& v : m.normals) v = v.norm() > 0 ? Vector3f(v.normalized()) : Vector3f(0, 1, 0);
                m.color = Vector3f(0.30f, 0.55f, 0.85f);
                m.back_color = Vector3f(0.85f, 0.45f, 0.30f);
                f.meshes.push_back(std::move(m));
                break;
            }
            case engine::RenderableKind::Lines: {
                LineData l;
                l.name = r.name;
                const engine::Array& q = engine::state_array(state, r.positions);
                l.positions = vec3s(q, size_t(q.size()), "the line positions");
                std::vector<int> idx = to_host<int>(r.indices, 2 * n, "the line indices");
                l.indices.assign(idx.begin(), idx.end());
                f.lines.push_back(std::move(l));
                break;
            }
            case engine::RenderableKind::Shapes: {
                std::vector<float> xf = to_host<float>(r.transform, 7 * n, "the shape transforms");
                std::vector<int> type = to_host<int>(r.geo_type, n, "the shape types");
                std::vector<Vector3f> scale = vec3s(r.geo_scale, n, "the shape scales");
                for (size_t s = 0; s < n; ++s) {
                    MeshData m = shape_mesh(type[s], scale[s], shape_meshes, int(s));
                    Vector3f p(xf[7 * s], xf[7 * s + 1], xf[7 * s + 2]);
                    Eigen::Quaternionf q(xf[7 * s + 6], xf[7 * s + 3], xf[7 * s + 4], xf[7 * s + 5]);  // stored x, y, z, w
                    Eigen::Matrix3f rot = q.normalized().toRotationMatrix();
                    for (Vector3f& v : m.positions) v = rot * v + p;
                    for (Vector3f& v : m.normals) v = rot * v;
                    m.name = r.name + "[" + std::to_string(s) + "]";
                    m.color = m.back_color = shape_color(int(s));
                    shapes.push_back(std::move(m));
                }
                break;
            }
        }
    }
    for (MeshData& m : shapes) f.meshes.push_back(std::move(m));
    return f;
}

}  // namespace weft::viewer
