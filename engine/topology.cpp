// engine/topology.cpp: see topology.h.
//
// A face shared by two tetrahedra is inside the solid; the surface is the faces counted once. Each
// face is keyed by its sorted vertex triple, so the count does not depend on the winding in which
// either tetrahedron lists it.
#include "engine/topology.h"

#include <algorithm>
#include <map>

namespace weft::engine {

namespace {

template <size_t N>
std::vector<std::array<int32_t, N>> host_rows(const Array& a, int count) {
    std::vector<std::array<int32_t, N>> rows(size_t(std::max(count, 0)));
    if (!rows.empty()) a.copy_to_host(rows.data(), rows.size() * sizeof(rows[0]));
    return rows;
}

std::array<int32_t, 3> sorted(std::array<int32_t, 3> f) {
    std::sort(f.begin(), f.end());
    return f;
}

}  // namespace

std::vector<std::array<int32_t, 3>> Topology::surface() const {
    std::vector<std::array<int32_t, 3>> all = triangles;
    all.insert(all.end(), tet_surface.begin(), tet_surface.end());
    return all;
}

std::vector<std::array<int32_t, 3>> tet_surface_triangles(const std::vector<std::array<int32_t, 4>>& tets,
                                                          const std::vector<float>& positions) {
    // (face, opposite vertex) of tetrahedron (a b c d); the windings are those of a positively
    // oriented tetrahedron, fixed below for any other.
    auto faces_of = [](const std::array<int32_t, 4>& t) {
        return std::array<std::pair<std::array<int32_t, 3>, int32_t>, 4>{
            {{{t[1], t[2], t[3]}, t[0]}, {{t[0], t[3], t[2]}, t[1]}, {{t[0], t[1], t[3]}, t[2]}, {{t[0], t[2], t[1]}, t[3]}}};
    };
    std::map<std::array<int32_t, 3>, int> count;
    for (const auto& t : tets)
        for (const auto& [f, opposite] : faces_of(t)) ++count[sorted(f)];
    auto x = [&](int32_t i, int k) { return double(positions[size_t(3 * i + k)]); };
    std::vector<std::array<int32_t, 3>> out;
    for (const auto& t : tets)
        for (auto [f, l] : faces_of(t)) {
            if (count[sorted(f)] != 1) continue;
            double e1[3], e2[3], el[3];
            for (int k = 0; k < 3; ++k) {
                e1[k] = x(f[1], k) - x(f[0], k);
                e2[k] = x(f[2], k) - x(f[0], k);
                el[k] = x(l, k) - x(f[0], k);
            }
            double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            if (n[0] * el[0] + n[1] * el[1] + n[2] * el[2] > 0) std::swap(f[1], f[2]);
            std::rotate(f.begin(), std::min_element(f.begin(), f.end()), f.end());
            out.push_back(f);
        }
    return out;
}

Topology model_topology(const Model& m) {
    Topology t;
    t.triangles = host_rows<3>(m.tri_indices, m.tri_count);
    t.springs = host_rows<2>(m.spring_indices, m.spring_count);
    t.edges = host_rows<4>(m.edge_indices, m.edge_count);
    t.tetrahedra = host_rows<4>(m.tet_indices, m.tet_count);
    t.tet_surface = host_rows<3>(m.tet_surface_indices, m.tet_surface_count);  // finalize() derived it
    return t;
}

}  // namespace weft::engine
