// tests/viewer/frame_data_test.cpp: what a frame draws, computed from the engine's renderables:
// particle colours from speeds, surface normals of a known cloth, the shapes' tessellation (every
// face wound counter-clockwise seen from outside, normals outward), and the errors.
#include "viewer/frame_data.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/model_builder.h"
#include "runtime/errors.h"

namespace weft::viewer {
namespace {

using Eigen::Vector3f;

TEST(FrameDataTest, ParticlesColouredBySpeed) {
    engine::ModelBuilder b;
    b.add_particle(Vector3f(0, 1, 0), Vector3f(0, 0, 0), 1.0f, 0.1f);
    b.add_particle(Vector3f(1, 1, 0), Vector3f(3, 4, 0), 1.0f, 0.2f);  // speed 5
    b.add_particle(Vector3f(2, 1, 0), Vector3f(0, 0, 2.5f), 1.0f, 0.1f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::particle_renderables(m), {});
    ASSERT_EQ(f.particles.size(), 1u);
    const ParticleData& p = f.particles[0];
    EXPECT_EQ(p.positions[1], Vector3f(1, 1, 0));
    EXPECT_FLOAT_EQ(p.radius[1], 0.2f);
    EXPECT_FLOAT_EQ(p.value_hi, 5.0f);
    EXPECT_TRUE(p.colors[0].isApprox(color_map(0.0f)));
    EXPECT_TRUE(p.colors[1].isApprox(color_map(1.0f)));
    EXPECT_TRUE(p.colors[2].isApprox(color_map(0.5f)));
    // A fixed range clamps.
    ColorOptions fixed;
    fixed.lo = 0;
    fixed.hi = 2.5f;
    FrameData g = snapshot(m, s, engine::particle_renderables(m), {}, fixed);
    EXPECT_TRUE(g.particles[0].colors[1].isApprox(color_map(1.0f)));
    EXPECT_TRUE(g.particles[0].colors[2].isApprox(color_map(1.0f)));
    Vector3f lo, hi;
    ASSERT_TRUE(f.bounds(lo, hi));
    EXPECT_TRUE(lo.isApprox(Vector3f(-0.1f, 0.8f, -0.2f)));
    EXPECT_TRUE(hi.isApprox(Vector3f(2.1f, 1.2f, 0.2f)));
}

TEST(FrameDataTest, UnknownQuantityIsAnErrorWithDidYouMean) {
    engine::ModelBuilder b;
    b.add_particle(Vector3f(0, 1, 0), Vector3f(0, 0, 0), 1.0f, 0.1f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    ColorOptions o;
    o.quantity = "sped";
    try {
        snapshot(m, s, engine::particle_renderables(m), {}, o);
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "viewer: cannot colour particles by 'sped' (did you mean 'speed'?)");
    }
}

TEST(FrameDataTest, ClothNormalsAndSprings) {
    // A flat 2 x 2 cloth in the x-z plane wound so that its normals point up (+y).
    engine::ModelBuilder b;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) b.add_particle(Vector3f(float(i), 1, float(j)), Vector3f::Zero(), 1.0f, 0.05f);
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            int a = j * 3 + i;
            b.add_triangle(a, a + 3, a + 1);
            b.add_triangle(a + 1, a + 3, a + 4);
        }
    b.add_spring(0, 8, 10.0f, 0.0f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::particle_renderables(m), {});
    ASSERT_EQ(f.meshes.size(), 1u);
    for (const Vector3f& n : f.meshes[0].normals) EXPECT_TRUE(n.isApprox(Vector3f(0, 1, 0))) << n.transpose();
    ASSERT_EQ(f.lines.size(), 1u);
    EXPECT_EQ(f.lines[0].indices, (std::vector<uint32_t>{0, 8}));
}

TEST(FrameDataTest, ShapesAreClosedAndWoundOutward) {
    engine::ModelBuilder b;
    b.add_shape_sphere(Vector3f(0, 1, 0), 0.5f);
    b.add_shape_box(Vector3f(2, 1, 0), 0.3f, 0.4f, 0.5f, engine::Quat(Eigen::AngleAxisf(0.7f, Vector3f(1, 1, 0).normalized())));
    b.add_shape_capsule(Vector3f(-2, 1, 0), 0.2f, 0.5f);
    engine::Mesh tet;
    tet.vertices = {Vector3f(0, 0, 0), Vector3f(1, 0, 0), Vector3f(0, 1, 0), Vector3f(0, 0, 1)};
    tet.indices = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    b.add_shape_mesh(Vector3f(0, 1, 3), tet);
    b.add_shape_cylinder(-1, Vector3f(4, 1, 0), engine::Quat(Eigen::AngleAxisf(0.5f, Vector3f(0, 0, 1))), 0.3f, 0.4f);
    b.add_shape_cone(-1, Vector3f(-4, 1, 0), engine::Quat::Identity(), 0.3f, 0.4f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::particle_renderables(m), b.shape_geo_src);
    ASSERT_EQ(f.meshes.size(), 6u);
    const Vector3f centers[] = {{0, 1, 0}, {2, 1, 0}, {-2, 1, 0}, {0.25f, 1.25f, 3.25f}, {4, 1, 0}, {-4, 1, 0}};
    double volumes[6] = {0, 0, 0, 0, 0, 0};
    for (size_t k = 0; k < 6; ++k) {
        const MeshData& mesh = f.meshes[k];
        ASSERT_FALSE(mesh.indices.empty()) << mesh.name;
        EXPECT_EQ(mesh.color, shape_color(int(k)));
        // Each non-degenerate triangle's winding normal points away from the (convex) shape's centre,
        // and so do its vertex normals. The enclosed volume (divergence theorem) is positive.
        double volume = 0;
        for (size_t t = 0; t < mesh.indices.size(); t += 3) {
            Vector3f a = mesh.positions[mesh.indices[t]], bb = mesh.positions[mesh.indices[t + 1]],
                     c = mesh.positions[mesh.indices[t + 2]];
            Vector3f n = (bb - a).cross(c - a);
            volume += double((a - centers[k]).dot((bb - centers[k]).cross(c - centers[k]))) / 6.0;
            if (n.norm() < 1e-7f) continue;
            Vector3f mid = (a + bb + c) / 3.0f;
            EXPECT_GT(n.dot(mid - centers[k]), 0.0f) << mesh.name << " triangle " << t / 3;
            EXPECT_GT(mesh.normals[mesh.indices[t]].dot(mid - centers[k]), 0.0f) << mesh.name << " triangle " << t / 3;
        }
        EXPECT_GT(volume, 0.0) << mesh.name;
        volumes[k] = volume;
    }
    // The cylinder's and cone's volumes are those of their 32-sided prisms: pi r^2 2h and a third of
    // it, times the polygon's share of the circle, 32 sin(2 pi / 32) / (2 pi).
    const double polygon = 32 * std::sin(2 * M_PI / 32) / (2 * M_PI);
    EXPECT_NEAR(volumes[4], M_PI * 0.09 * 0.8 * polygon, 1e-5);
    EXPECT_NEAR(volumes[5], M_PI * 0.09 * 0.8 / 3 * polygon, 1e-5);
    // The box's volume is exact: 8 hx hy hz.
    double box = 0;
    for (size_t t = 0; t < f.meshes[1].indices.size(); t += 3) {
        const auto& P = f.meshes[1].positions;
        const auto& I = f.meshes[1].indices;
        box += double(P[I[t]].dot(P[I[t + 1]].cross(P[I[t + 2]]))) / 6.0;
    }
    EXPECT_NEAR(box, 8 * 0.3 * 0.4 * 0.5, 1e-5);
}

}  // namespace
}  // namespace weft::viewer
