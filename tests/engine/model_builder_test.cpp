// ModelBuilder: element counts of the grid builders, rest shapes (inverse rest matrices give
// F = I up to a rotation at rest; soft-grid tetrahedra tile the box), the force-slot table, and
// the messages of building mistakes.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <array>
#include <map>
#include <set>

#include "engine/model_builder.h"
#include "tests/engine/mesh_test_util.h"

namespace {

using namespace weft::engine;
using weft::engine::test::box_mesh;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::exception& e) { return e.what(); }
    return "(no error)";
}

TEST(ModelBuilder, ClothGridCountsAndRestShapes) {
    ModelBuilder b;
    ClothGridDef c;
    c.dim_x = 4;
    c.dim_y = 3;
    c.cell_x = 0.2f;
    c.cell_y = 0.1f;
    c.rot = Quat(Eigen::AngleAxisf(0.7f, Vec3(1, 2, 3).normalized()));
    c.fix_left = true;
    b.add_cloth_grid(c);
    EXPECT_EQ(b.particle_count(), 5 * 4);
    EXPECT_EQ(b.tri_indices.size(), size_t(2 * 4 * 3));
    // edges: 4*4 + 5*3 axis-aligned + 12 diagonals; the boundary ones (2 * (4 + 3)) get no bending
    EXPECT_EQ(b.edge_indices.size(), size_t(4 * 4 + 5 * 3 + 12 - 2 * (4 + 3)));
    for (int y = 0; y <= 3; ++y) EXPECT_EQ(b.particle_mass[size_t(y * 5)], 0.0f);
    EXPECT_EQ(b.particle_mass[1], c.mass);
    for (size_t t = 0; t < b.tri_indices.size(); ++t) {
        const auto& tri = b.tri_indices[t];
        Eigen::Matrix<float, 3, 2> Ds;
        Ds.col(0) = b.particle_q[size_t(tri[1])] - b.particle_q[size_t(tri[0])];
        Ds.col(1) = b.particle_q[size_t(tri[2])] - b.particle_q[size_t(tri[0])];
        Eigen::Matrix<float, 3, 2> F = Ds * b.tri_poses[t];
        EXPECT_TRUE((F.transpose() * F).isApprox(Eigen::Matrix2f::Identity(), 1e-5f)) << "triangle " << t;
        EXPECT_NEAR(b.tri_areas[t], 0.5f * 0.2f * 0.1f, 1e-6f);
    }
    for (float a : b.edge_rest_angle) EXPECT_NEAR(a, 0.0f, 1e-5f);
}

TEST(ModelBuilder, SoftGridTetrahedraTileTheBox) {
    ModelBuilder b;
    SoftGridDef d;
    d.dim_x = 3;
    d.dim_y = 2;
    d.dim_z = 2;
    d.cell_x = 0.1f;
    d.cell_y = 0.2f;
    d.cell_z = 0.3f;
    d.density = 500.0f;
    b.add_soft_grid(d);
    EXPECT_EQ(b.particle_count(), 4 * 3 * 3);
    ASSERT_EQ(b.tet_indices.size(), size_t(5 * 3 * 2 * 2));
    double volume = 0;
    for (const auto& P : b.tet_poses) {
        EXPECT_GT(P.determinant(), 0.0f);
        volume += 1.0 / (6.0 * double(P.determinant()));
    }
    EXPECT_NEAR(volume, 0.3 * 0.4 * 0.6, 1e-5);
    EXPECT_FLOAT_EQ(b.particle_mass[0], 500.0f * 0.1f * 0.2f * 0.3f);
}

TEST(ModelBuilder, SpringGridMatchesTheBenchmarkDefinition) {
    ModelBuilder b;
    SpringGridDef d;
    d.dim_x = d.dim_z = 5;
    b.add_spring_grid(d);
    EXPECT_EQ(b.spring_rest_length.size(), size_t(2 * 4 * 5 + 2 * 3 * 5 + 2 * 4 * 4));
    EXPECT_EQ(b.particle_mass[0], 0.0f);
    EXPECT_EQ(b.particle_mass[4], 0.0f);
    EXPECT_EQ(b.particle_mass[5], 0.1f);
    EXPECT_NEAR(b.spring_rest_length[0], 0.1f, 1e-6f);
}

TEST(ModelBuilder, ForceSlotTableListsEveryElementVertex) {
    ModelBuilder b(0.0f);
    ClothGridDef c;
    c.dim_x = c.dim_y = 2;
    c.add_springs = true;
    b.add_cloth_grid(c);
    Model m = b.finalize("cpu");
    const auto& L = m.term_layout;
    EXPECT_EQ(L.count, m.particle_count + 2 * m.spring_count + 3 * m.tri_count + 4 * m.edge_count);
    std::vector<int> start(size_t(m.particle_count) + 1), index(size_t(L.count - m.particle_count));
    m.particle_term_start.copy_to_host(start.data(), start.size() * 4);
    m.particle_term_index.copy_to_host(index.data(), index.size() * 4);
    EXPECT_EQ(start.back(), L.count - m.particle_count);
    std::vector<int> seen(size_t(L.count), 0);
    for (int i = 0; i < m.particle_count; ++i)
        for (int k = start[size_t(i)]; k < start[size_t(i) + 1]; ++k) ++seen[size_t(index[size_t(k)])];
    for (int s = m.particle_count; s < L.count; ++s) EXPECT_EQ(seen[size_t(s)], 1) << "slot " << s;
}

// add_cloth_grid's bending elements and springs, against a map of every triangle edge: one bending
// element per interior edge (3 dx dy - dx - dy of them) in the order of its (lower, higher) vertex
// pair, the first triangle's vertices and opposite vertex first; springs along the edges, from each
// opposite vertex and across each interior edge, in pair order without repeats.
TEST(ModelBuilder, ClothGridBendingAndSpringsFollowEdgeOrder) {
    for (bool reverse : {false, true}) {
        SCOPED_TRACE(reverse ? "reverse winding" : "default winding");
        ModelBuilder b(0.0f);
        b.add_particle(Vec3(5, 5, 5), Vec3::Zero(), 1.0f);  // the grid's indices start at 1
        ClothGridDef c;
        c.dim_x = 4;
        c.dim_y = 3;
        c.add_springs = true;
        c.reverse_winding = reverse;
        b.add_cloth_grid(c);
        std::map<std::pair<int, int>, std::vector<std::array<int, 3>>> by_edge;  // (v0, v1, opposite) per triangle
        for (const auto& t : b.tri_indices)
            for (int e = 0; e < 3; ++e) {
                const int v0 = t[size_t(e)], v1 = t[size_t((e + 1) % 3)];
                by_edge[{std::min(v0, v1), std::max(v0, v1)}].push_back({v0, v1, t[size_t((e + 2) % 3)]});
            }
        std::vector<std::array<int, 4>> edges;
        std::set<std::pair<int, int>> springs;
        auto spring = [&](int x, int y) { springs.insert({std::min(x, y), std::max(x, y)}); };
        for (const auto& [key, sides] : by_edge) {
            spring(key.first, key.second);
            for (const auto& t : sides) {
                spring(t[2], t[0]);
                spring(t[2], t[1]);
            }
            if (sides.size() == 2) {
                edges.push_back({sides[0][2], sides[1][2], sides[0][0], sides[0][1]});
                spring(sides[0][2], sides[1][2]);
            }
        }
        EXPECT_EQ(edges.size(), size_t(3 * 4 * 3 - 4 - 3));
        ASSERT_EQ(b.edge_indices.size(), edges.size());
        for (size_t i = 0; i < edges.size(); ++i) EXPECT_EQ(b.edge_indices[i], edges[i]) << "bending element " << i;
        ASSERT_EQ(b.spring_indices.size(), 2 * springs.size());
        size_t i = 0;
        for (const auto& [x, y] : springs) {
            EXPECT_EQ(b.spring_indices[2 * i], x) << "spring " << i;
            EXPECT_EQ(b.spring_indices[2 * i + 1], y) << "spring " << i;
            ++i;
        }
    }
}

TEST(ModelBuilder, MistakesAreNamed) {
    ModelBuilder b;
    b.add_particle(Vec3(0, 0, 0), Vec3::Zero(), 1.0f);
    b.add_particle(Vec3(1, 0, 0), Vec3::Zero(), 1.0f);
    b.add_particle(Vec3(2, 0, 0), Vec3::Zero(), 1.0f);
    EXPECT_EQ(error_of([&] { b.add_spring(0, 7, 1, 0); }),
              "add_spring: particle index 7 is out of range (the model has 3 particles)");
    EXPECT_EQ(error_of([&] { b.add_spring(1, 1, 1, 0); }), "add_spring: both ends are particle 1");
    EXPECT_EQ(error_of([&] { b.add_triangle(0, 1, 2); }), "add_triangle: triangle (0, 1, 2) is degenerate (zero area)");
    EXPECT_EQ(error_of([&] { b.add_particle(Vec3::Zero(), Vec3::Zero(), -1.0f); }), "add_particle: mass must be >= 0, got -1");
    EXPECT_EQ(error_of([&] { b.add_shape_sphere(Vec3::Zero(), 0.0f); }), "add_shape_sphere: radius must be > 0, got 0");
    EXPECT_EQ(error_of([&] { b.add_cloth_grid(ClothGridDef{.dim_x = 0}); }), "add_cloth_grid: dim_x and dim_y must be >= 1");
    EXPECT_EQ(error_of([&] { b.finalize("gpu"); }), "invalid device 'gpu': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'");
}

// NaN and infinite parameters are refused where they are passed (they once became NaN frames).
TEST(ModelBuilder, NonFiniteParametersAreNamed) {
    ModelBuilder b;
    b.add_particle(Vec3(0, 0, 0), Vec3::Zero(), 1.0f);
    b.add_particle(Vec3(1, 0, 0), Vec3::Zero(), 1.0f);
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f);
    b.add_particle(Vec3(0, 0, 1), Vec3::Zero(), 1.0f);
    EXPECT_EQ(error_of([&] { b.add_particle(Vec3(NAN, 0, 0), Vec3::Zero(), 1.0f); }),
              "add_particle: pos must be finite, got (nan, 0, 0)");
    EXPECT_EQ(error_of([&] { b.add_particle(Vec3::Zero(), Vec3(0, INFINITY, 0), 1.0f); }),
              "add_particle: vel must be finite, got (0, inf, 0)");
    EXPECT_EQ(error_of([&] { b.add_particle(Vec3::Zero(), Vec3::Zero(), INFINITY); }),
              "add_particle: mass must be a finite number, got inf");
    EXPECT_EQ(error_of([&] { b.add_spring(0, 1, NAN, 0); }), "add_spring: ke must be a finite number, got nan");
    EXPECT_EQ(error_of([&] { b.add_spring(0, 1, 1, -INFINITY); }), "add_spring: kd must be a finite number, got -inf");
    EXPECT_EQ(error_of([&] { b.add_spring(0, 1, -5, 0); }), "add_spring: ke must be >= 0, got -5");
    EXPECT_EQ(error_of([&] { b.add_triangle(0, 1, 2, NAN); }), "add_triangle: tri_ke must be a finite number, got nan");
    EXPECT_EQ(error_of([&] { b.add_tetrahedron(0, 1, 2, 3, 1e3f, INFINITY); }),
              "add_tetrahedron: k_lambda must be a finite number, got inf");
    EXPECT_EQ(b.spring_rest_length.size(), 0u);
    EXPECT_EQ(b.particle_count(), 4);
}

// Cells too small for a usable tetrahedron are named by their size before any particle is added
// (the error once named internal particle indices).
TEST(ModelBuilder, SoftGridOfDegenerateCellsIsNamedByCellSize) {
    ModelBuilder b;
    SoftGridDef d;
    d.dim_x = d.dim_y = d.dim_z = 2;
    d.cell_x = d.cell_y = d.cell_z = 1e-6f;
    EXPECT_EQ(error_of([&] { b.add_soft_grid(d); }),
              "add_soft_grid: cells of 1e-06 x 1e-06 x 1e-06 m are too small: their tetrahedra have a volume of 1.66667e-19 "
              "m^3, below the 1e-15 m^3 taken as degenerate");
    EXPECT_EQ(b.particle_count(), 0);
    d.cell_x = d.cell_y = d.cell_z = 1e-4f;  // 1.7e-13 m^3: fine
    b.add_soft_grid(d);
    EXPECT_EQ(b.tet_count_or_zero(), 40);
}

TEST(ModelBuilder, AddShapeMeshNamesMistakes) {
    auto error_of = [](const std::function<void(ModelBuilder&)>& f) -> std::string {
        ModelBuilder b;
        try {
            f(b);
        } catch (const BuildError& e) { return e.what(); }
        return "(no error)";
    };
    Mesh box = box_mesh(0.5f, 0.5f, 0.5f);
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {}});
              }),
              "add_shape_mesh: the mesh has no triangles");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 2, 3}});
              }),
              "add_shape_mesh: the mesh has 4 indices, not a multiple of 3");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 2, 3, 4, 8}});
              }),
              "add_shape_mesh: index 8 (triangle 1) is out of range (the mesh has 8 vertices)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, -1}});
              }),
              "add_shape_mesh: index -1 (triangle 0) is out of range (the mesh has 8 vertices)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  Mesh m = box;
                  m.vertices[3].x() = NAN;
                  b.add_shape_mesh(Vec3::Zero(), m);
              }),
              "add_shape_mesh: vertex 3 is not finite");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3(1, 0, 1)); }),
              "add_shape_mesh: scale must be > 0 on every axis, got (1, 0, 1)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3::Ones(), 0.0f, 2); }),
              "add_shape_mesh: sdf_resolution must be from 4 to 512, got 2");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3::Ones(), -0.1f); }),
              "add_shape_mesh: thickness must be >= 0, got -0.1");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 1, 2, 2, 2}});
              }),
              "add_shape_mesh: every triangle of the mesh has zero area");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box); }), "(no error)");
}

}  // namespace
