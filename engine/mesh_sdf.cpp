// engine/mesh_sdf.cpp: exact signed distance to a triangle mesh (AABB tree + closest point on a
// triangle + pseudo-normal sign), and the grid of it that the contact kernels interpolate.
#include "engine/mesh_sdf.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

namespace weft::engine {

namespace {

using Vec3d = Eigen::Vector3d;

// Which feature of triangle (a, b, c) holds the closest point.
enum Feature { Face, EdgeAB, EdgeBC, EdgeCA, VertexA, VertexB, VertexC };

// Ericson, Real-Time Collision Detection 5.1.5: the closest point of triangle abc to p, by the
// Voronoi region of p.
Vec3d closest_on_triangle(const Vec3d& p, const Vec3d& a, const Vec3d& b, const Vec3d& c, Feature& f) {
    Vec3d ab = b - a, ac = c - a, ap = p - a;
    double d1 = ab.dot(ap), d2 = ac.dot(ap);
    if (d1 <= 0 && d2 <= 0) return f = VertexA, a;
    Vec3d bp = p - b;
    double d3 = ab.dot(bp), d4 = ac.dot(bp);
    if (d3 >= 0 && d4 <= d3) return f = VertexB, b;
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) return f = EdgeAB, a + ab * (d1 / (d1 - d3));
    Vec3d cp = p - c;
    double d5 = ab.dot(cp), d6 = ac.dot(cp);
    if (d6 >= 0 && d5 <= d6) return f = VertexC, c;
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) return f = EdgeCA, a + ac * (d2 / (d2 - d6));
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) return f = EdgeBC, b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
    double denom = 1.0 / (va + vb + vc);
    return f = Face, a + ab * (vb * denom) + ac * (vc * denom);
}

}  // namespace

MeshDistance::MeshDistance(const Mesh& mesh, const Vec3d& scale) {
    for (const auto& v : mesh.vertices) x_.push_back(v.cast<double>().cwiseProduct(scale));
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        std::array<int, 3> tri{mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]};
        Vec3d n = (x_[size_t(tri[1])] - x_[size_t(tri[0])]).cross(x_[size_t(tri[2])] - x_[size_t(tri[0])]);
        if (!(n.norm() > 0)) continue;  // zero area: its edges belong to its neighbours
        tris_.push_back(tri);
        face_normal_.push_back(n.normalized());
    }
    // Pseudo-normals: an edge's is the sum of its faces' normals, a vertex's the sum weighted by
    // the face angles at the vertex. Either has a positive dot product with (p - closest point)
    // exactly when p is outside (Baerentzen and Aanaes 2005).
    std::map<std::pair<int, int>, Vec3d> edge_sum;
    vertex_normal_.assign(x_.size(), Vec3d::Zero());
    for (size_t t = 0; t < tris_.size(); ++t) {
        for (int k = 0; k < 3; ++k) {
            int a = tris_[t][size_t(k)], b = tris_[t][size_t((k + 1) % 3)], c = tris_[t][size_t((k + 2) % 3)];
            auto key = std::minmax(a, b);
            auto [it, fresh] = edge_sum.try_emplace({key.first, key.second}, Vec3d::Zero());
            it->second += face_normal_[t];
            Vec3d u = (x_[size_t(b)] - x_[size_t(a)]).normalized(), w = (x_[size_t(c)] - x_[size_t(a)]).normalized();
            vertex_normal_[size_t(a)] += std::acos(std::clamp(u.dot(w), -1.0, 1.0)) * face_normal_[t];
        }
    }
    edge_normal_.resize(tris_.size());
    for (size_t t = 0; t < tris_.size(); ++t)
        for (int k = 0; k < 3; ++k) {
            auto key = std::minmax(tris_[t][size_t(k)], tris_[t][size_t((k + 1) % 3)]);
            edge_normal_[t][size_t(k)] = edge_sum.at({key.first, key.second});
        }
    for (const auto& tri : tris_)
        for (int v : tri) bounds_.extend(x_[size_t(v)]);
    order_.resize(tris_.size());
    for (size_t t = 0; t < tris_.size(); ++t) order_[t] = int(t);
    if (!tris_.empty()) build(0, int(tris_.size()));
}

// Median split along the longest side of the centroids' box, down to leaves of 4 triangles.
int MeshDistance::build(int first, int count) {
    int id = int(nodes_.size());
    nodes_.emplace_back();
    Eigen::AlignedBox3d box, centres;
    auto centre = [&](int t) {
        const auto& v = tris_[size_t(t)];
        return (x_[size_t(v[0])] + x_[size_t(v[1])] + x_[size_t(v[2])]) / 3.0;
    };
    for (int k = first; k < first + count; ++k) {
        for (int v : tris_[size_t(order_[size_t(k)])]) box.extend(x_[size_t(v)]);
        centres.extend(centre(order_[size_t(k)]));
    }
    nodes_[size_t(id)].box = box;
    if (count <= 4) {
        nodes_[size_t(id)].first = first;
        nodes_[size_t(id)].count = count;
        return id;
    }
    int axis;
    centres.sizes().maxCoeff(&axis);
    int half = count / 2;
    std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                     [&](int s, int t) { return centre(s)[axis] < centre(t)[axis]; });
    int left = build(first, half);
    int right = build(first + half, count - half);
    nodes_[size_t(id)].left = left;
    nodes_[size_t(id)].right = right;
    return id;
}

double MeshDistance::closest(int t, const Vec3d& p, Vec3d& point, Vec3d& normal) const {
    const auto& tri = tris_[size_t(t)];
    Feature f;
    point = closest_on_triangle(p, x_[size_t(tri[0])], x_[size_t(tri[1])], x_[size_t(tri[2])], f);
    switch (f) {
        case Face: normal = face_normal_[size_t(t)]; break;
        case EdgeAB: normal = edge_normal_[size_t(t)][0]; break;
        case EdgeBC: normal = edge_normal_[size_t(t)][1]; break;
        case EdgeCA: normal = edge_normal_[size_t(t)][2]; break;
        case VertexA: normal = vertex_normal_[size_t(tri[0])]; break;
        case VertexB: normal = vertex_normal_[size_t(tri[1])]; break;
        case VertexC: normal = vertex_normal_[size_t(tri[2])]; break;
    }
    return (p - point).squaredNorm();
}

double MeshDistance::signed_distance(const Vec3d& p, int* hint) const {
    double best = std::numeric_limits<double>::infinity();
    Vec3d best_point = p, best_normal = Vec3d::UnitY(), point, normal;
    int best_t = -1;
    auto consider = [&](int t) {
        double d2 = closest(t, p, point, normal);
        if (d2 < best) best = d2, best_point = point, best_normal = normal, best_t = t;
    };
    if (hint && *hint >= 0 && *hint < int(tris_.size())) consider(*hint);
    int stack[128];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const Node& n = nodes_[size_t(stack[--top])];
        if (n.box.squaredExteriorDistance(p) >= best) continue;
        if (n.left < 0) {
            for (int k = n.first; k < n.first + n.count; ++k) consider(order_[size_t(k)]);
            continue;
        }
        // nearer child last, so that it is searched first
        double dl = nodes_[size_t(n.left)].box.squaredExteriorDistance(p);
        double dr = nodes_[size_t(n.right)].box.squaredExteriorDistance(p);
        stack[top++] = dl < dr ? n.right : n.left;
        stack[top++] = dl < dr ? n.left : n.right;
    }
    if (hint) *hint = best_t;
    double d = std::sqrt(best);
    return (p - best_point).dot(best_normal) < 0 ? -d : d;
}

SdfGrid build_sdf_grid(const Mesh& mesh, int resolution, double margin, const Vec3d& scale) {
    MeshDistance exact(mesh, scale);
    Eigen::AlignedBox3d box = exact.bounds();
    box.min().array() -= margin;
    box.max().array() += margin;
    SdfGrid g;
    g.cell = box.sizes().maxCoeff() / std::max(resolution, 1);
    g.origin = box.min();
    for (int k = 0; k < 3; ++k) g.dim[size_t(k)] = std::max(2, int(std::ceil(box.sizes()[k] / g.cell - 1e-9)) + 1);
    // centre the grid on the box: the nodes reach at least `margin` beyond the bounds on each side
    for (int k = 0; k < 3; ++k) g.origin[k] -= 0.5 * ((g.dim[size_t(k)] - 1) * g.cell - box.sizes()[k]);
    g.values.resize(size_t(g.dim[0]) * size_t(g.dim[1]) * size_t(g.dim[2]));
    // z slices in parallel; each node is independent, so the result does not depend on the
    // thread count. The previous node's nearest triangle starts each search.
    auto slices = [&](int k0, int k1) {
        int hint = 0;
        for (int k = k0; k < k1; ++k)
            for (int j = 0; j < g.dim[1]; ++j)
                for (int i = 0; i < g.dim[0]; ++i) {
                    Vec3d p = g.origin + g.cell * Vec3d(i, j, k);
                    g.values[g.index(i, j, k)] = float(exact.signed_distance(p, &hint));
                }
    };
    int threads = std::clamp(int(std::thread::hardware_concurrency()), 1, std::min(16, g.dim[2]));
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(slices, g.dim[2] * t / threads, g.dim[2] * (t + 1) / threads);
    slices(0, g.dim[2] / threads);
    for (auto& t : pool) t.join();
    g.gradients.resize(g.values.size());
    for (int k = 0; k < g.dim[2]; ++k)
        for (int j = 0; j < g.dim[1]; ++j)
            for (int i = 0; i < g.dim[0]; ++i) {
                const int c[3] = {i, j, k};
                Eigen::Vector3f grad;
                for (int a = 0; a < 3; ++a) {
                    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
                    lo[a] = std::max(c[a] - 1, 0);
                    hi[a] = std::min(c[a] + 1, g.dim[size_t(a)] - 1);
                    grad[a] = float((double(g.at(hi[0], hi[1], hi[2])) - g.at(lo[0], lo[1], lo[2])) / ((hi[a] - lo[a]) * g.cell));
                }
                g.gradients[g.index(i, j, k)] = grad;
            }
    return g;
}

}  // namespace weft::engine
