// engine/topology.h: a model's index arrays on the host, and the soft-body surface derived from its
// tetrahedra, checked against what a box of cells must have: 4 (ab + bc + ca) boundary triangles
// of a x b x c cells, each on a face of the box, closing an oriented surface whose enclosed
// volume (divergence theorem) is the box's.
#include <algorithm>
#include <map>
#include <set>

#include "engine/topology.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

using Tri = std::array<int32_t, 3>;

// The volume enclosed by `tris` over `x`: sum of det(a, b, c) / 6 (positive when wound outward).
double enclosed_volume(const std::vector<Tri>& tris, const std::vector<Vec3>& x) {
    double v = 0;
    for (const Tri& t : tris)
        v += x[size_t(t[0])].cast<double>().dot(x[size_t(t[1])].cast<double>().cross(x[size_t(t[2])].cast<double>())) / 6;
    return v;
}

TEST(Topology, SoftGridSurfaceIsTheBoxBoundaryWoundOutward) {
    REQUIRE_CPU();
    for (auto [a, b, c] : {std::array<int, 3>{1, 1, 1}, {6, 3, 3}, {2, 4, 5}}) {
        ModelBuilder builder;
        SoftGridDef d;
        d.dim_x = a, d.dim_y = b, d.dim_z = c;
        d.cell_x = 0.1f, d.cell_y = 0.2f, d.cell_z = 0.15f;
        d.pos = Vec3(0.3f, 1.0f, -0.2f);
        d.rot = Quat(Eigen::AngleAxisf(0.4f, Vec3(1, 2, 3).normalized()));
        builder.add_soft_grid(d);
        Topology t = model_topology(builder.finalize("cpu"));
        ASSERT_EQ(t.tet_surface.size(), size_t(4 * (a * b + b * c + c * a))) << a << "x" << b << "x" << c;
        EXPECT_TRUE(t.triangles.empty());
        EXPECT_EQ(t.surface(), t.tet_surface);
        ASSERT_EQ(t.tetrahedra.size(), builder.tet_indices.size());
        for (size_t i = 0; i < t.tetrahedra.size(); ++i)
            for (int k = 0; k < 4; ++k) EXPECT_EQ(t.tetrahedra[i][size_t(k)], builder.tet_indices[i][size_t(k)]);
        // Each triangle lies on one face of the box: its vertices share a grid coordinate at 0 or dim.
        auto grid = [&](int32_t i) {
            int nx = a + 1, ny = b + 1;
            return std::array<int, 3>{i % nx, (i / nx) % ny, i / (nx * ny)};
        };
        const std::array<int, 3> dims = {a, b, c};
        for (const Tri& tri : t.tet_surface) {
            bool on_face = false;
            for (int k = 0; k < 3; ++k)
                for (int side : {0, dims[size_t(k)]})
                    on_face |=
                        grid(tri[0])[size_t(k)] == side && grid(tri[1])[size_t(k)] == side && grid(tri[2])[size_t(k)] == side;
            EXPECT_TRUE(on_face) << tri[0] << " " << tri[1] << " " << tri[2];
        }
        // Closed and consistently wound: every directed edge once, and its reverse once.
        std::map<std::pair<int32_t, int32_t>, int> directed;
        for (const Tri& tri : t.tet_surface)
            for (int k = 0; k < 3; ++k) ++directed[{tri[size_t(k)], tri[size_t((k + 1) % 3)]}];
        for (const auto& [e, n] : directed) {
            EXPECT_EQ(n, 1);
            EXPECT_EQ(directed.count({e.second, e.first}), 1u);
        }
        double box = double(a) * b * c * 0.1 * 0.2 * 0.15;
        EXPECT_NEAR(enclosed_volume(t.tet_surface, builder.particle_q), box, 1e-5 * box);
    }
}

// One tetrahedron listed with negative orientation: its four faces still point outward.
TEST(Topology, InvertedTetrahedronIsWoundOutward) {
    std::vector<float> x = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    std::vector<Vec3> xv = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
    for (std::array<int32_t, 4> tet : {std::array<int32_t, 4>{0, 1, 2, 3}, {0, 2, 1, 3}}) {
        auto s = tet_surface_triangles({tet}, x);
        ASSERT_EQ(s.size(), 4u);
        EXPECT_NEAR(enclosed_volume(s, xv), 1.0 / 6, 1e-12);
        std::set<std::array<int32_t, 3>> sorted_faces;
        for (Tri f : s) {
            EXPECT_EQ(f[0], std::min({f[0], f[1], f[2]}));  // rotated to start at the smallest index
            std::sort(f.begin(), f.end());
            sorted_faces.insert(f);
        }
        EXPECT_EQ(sorted_faces, (std::set<Tri>{{0, 1, 2}, {0, 1, 3}, {0, 2, 3}, {1, 2, 3}}));
    }
    // Two tetrahedra sharing face (1 2 3): it is inside, the other six are the surface.
    EXPECT_EQ(tet_surface_triangles({{0, 1, 2, 3}, {4, 1, 3, 2}}, {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1}).size(), 6u);
}

TEST(Topology, ClothAndSpringsAreTheBuildersIndices) {
    REQUIRE_CPU();
    ModelBuilder builder;
    ClothGridDef c;
    c.dim_x = 3;
    c.dim_y = 2;
    c.add_springs = true;
    builder.add_cloth_grid(c);
    Topology t = model_topology(builder.finalize("cpu"));
    ASSERT_EQ(t.triangles.size(), builder.tri_indices.size());
    for (size_t i = 0; i < t.triangles.size(); ++i)
        for (int k = 0; k < 3; ++k) EXPECT_EQ(t.triangles[i][size_t(k)], builder.tri_indices[i][size_t(k)]);
    ASSERT_EQ(t.springs.size() * 2, builder.spring_indices.size());
    for (size_t i = 0; i < t.springs.size(); ++i) {
        EXPECT_EQ(t.springs[i][0], builder.spring_indices[2 * i]);
        EXPECT_EQ(t.springs[i][1], builder.spring_indices[2 * i + 1]);
    }
    ASSERT_EQ(t.edges.size(), builder.edge_indices.size());
    for (size_t i = 0; i < t.edges.size(); ++i)
        for (int k = 0; k < 4; ++k) EXPECT_EQ(t.edges[i][size_t(k)], builder.edge_indices[i][size_t(k)]);
    EXPECT_TRUE(t.tetrahedra.empty());
    EXPECT_TRUE(t.tet_surface.empty());
    EXPECT_EQ(t.surface(), t.triangles);
}

}  // namespace
