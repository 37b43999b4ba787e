// tests/engine/mesh_test_util.h: meshes for the mesh-shape tests (a box, an icosphere, a quad) and
// a brute-force signed distance computed independently of engine/mesh_sdf.cpp: the closest point
// of each triangle by projection onto its plane (inside: barycentric coordinates of a 2x2 normal
// system) or else the nearest of its three edges, over all triangles, in float64; the sign from
// the generalized winding number (solid angles, Van Oosterom and Strackee 1983).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "engine/mesh_sdf.h"

namespace weft::engine::test {

using Vec3d = Eigen::Vector3d;

// An axis-aligned box centred at the origin, 12 triangles wound counter-clockwise from outside.
inline Mesh box_mesh(float hx, float hy, float hz) {
    Mesh m;
    for (int k = 0; k < 8; ++k) m.vertices.emplace_back((k & 1) ? hx : -hx, (k & 2) ? hy : -hy, (k & 4) ? hz : -hz);
    // each face as a quad a b c d, counter-clockwise seen from outside
    const int quads[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (const auto& q : quads) m.indices.insert(m.indices.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
    return m;
}

// An icosahedron subdivided `levels` times, projected onto the sphere of radius r (20 4^levels triangles).
inline Mesh icosphere(float r, int levels) {
    const double t = (1.0 + std::sqrt(5.0)) / 2.0;
    std::vector<Vec3d> v = {{-1, t, 0},  {1, t, 0},  {-1, -t, 0}, {1, -t, 0}, {0, -1, t},  {0, 1, t},
                            {0, -1, -t}, {0, 1, -t}, {t, 0, -1},  {t, 0, 1},  {-t, 0, -1}, {-t, 0, 1}};
    std::vector<std::array<int, 3>> f = {{0, 11, 5},  {0, 5, 1},  {0, 1, 7},  {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                                         {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                                         {3, 8, 9},   {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    for (auto& p : v) p.normalize();
    for (int l = 0; l < levels; ++l) {
        std::map<std::pair<int, int>, int> mid;
        auto midpoint = [&](int a, int b) {
            auto key = std::minmax(a, b);
            auto it = mid.find({key.first, key.second});
            if (it != mid.end()) return it->second;
            v.push_back((v[size_t(a)] + v[size_t(b)]).normalized());
            return mid[{key.first, key.second}] = int(v.size()) - 1;
        };
        std::vector<std::array<int, 3>> next;
        for (auto [a, b, c] : f) {
            int ab = midpoint(a, b), bc = midpoint(b, c), ca = midpoint(c, a);
            next.insert(next.end(), {{a, ab, ca}, {b, bc, ab}, {c, ca, bc}, {ab, bc, ca}});
        }
        f = next;
    }
    Mesh m;
    for (const auto& p : v) m.vertices.push_back((p * r).cast<float>());
    for (auto [a, b, c] : f) m.indices.insert(m.indices.end(), {a, b, c});
    return m;
}

// A square of side 2 h in the local x-z plane, facing +y (two triangles).
inline Mesh quad_mesh(float h) {
    Mesh m;
    m.vertices = {{-h, 0, -h}, {h, 0, -h}, {h, 0, h}, {-h, 0, h}};
    m.indices = {0, 2, 1, 0, 3, 2};
    return m;
}

inline double segment_distance(const Vec3d& p, const Vec3d& a, const Vec3d& b) {
    double s = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
    return (p - (a + s * (b - a))).norm();
}

inline double triangle_distance(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c) {
    Eigen::Matrix<double, 3, 2> E;
    E << b - a, c - a;
    Eigen::Vector2d uv = (E.transpose() * E).ldlt().solve(E.transpose() * (p - a));
    if (uv[0] >= 0 && uv[1] >= 0 && uv[0] + uv[1] <= 1) return (p - (a + E * uv)).norm();
    return std::min({segment_distance(p, a, b), segment_distance(p, b, c), segment_distance(p, c, a)});
}

// Generalized winding number of a closed mesh around p: 1 inside, 0 outside.
inline double winding_number(const Mesh& m, const Vec3d& p) {
    double total = 0;
    for (size_t t = 0; t < m.indices.size(); t += 3) {
        Vec3d a = m.vertices[size_t(m.indices[t])].cast<double>() - p,
              b = m.vertices[size_t(m.indices[t + 1])].cast<double>() - p,
              c = m.vertices[size_t(m.indices[t + 2])].cast<double>() - p;
        double la = a.norm(), lb = b.norm(), lc = c.norm();
        total += 2 * std::atan2(a.dot(b.cross(c)), la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb);
    }
    return total / (4 * M_PI);
}

inline double brute_force_distance(const Mesh& m, const Vec3d& p) {
    double best = std::numeric_limits<double>::infinity();
    for (size_t t = 0; t < m.indices.size(); t += 3)
        best = std::min(best, triangle_distance(p, m.vertices[size_t(m.indices[t])].cast<double>(),
                                                m.vertices[size_t(m.indices[t + 1])].cast<double>(),
                                                m.vertices[size_t(m.indices[t + 2])].cast<double>()));
    return best;
}

// Signed: negative inside a closed mesh.
inline double brute_force_sdf(const Mesh& m, const Vec3d& p) {
    double d = brute_force_distance(m, p);
    return winding_number(m, p) > 0.5 ? -d : d;
}

}  // namespace weft::engine::test
