// tests/viewer/frame_data_test.cpp: what a frame draws, computed from the engine's renderables:
// particle colours from speeds, surface normals of a known cloth, the shapes' tessellation (every
// face wound counter-clockwise seen from outside, normals outward), and the errors.
#include "viewer/frame_data.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/viewer/viewer_test_util.h"

#include "engine/model_builder.h"
#include "runtime/device.h"
#include "runtime/errors.h"

namespace weft::viewer {
namespace {

using Eigen::Vector3f;

TEST(FrameDataTest, ParticlesColouredBySpeed) {
    WEFT_REQUIRE_CPU_DEVICE();
    engine::ModelBuilder b;
    b.add_particle(Vector3f(0, 1, 0), Vector3f(0, 0, 0), 1.0f, 0.1f);
    b.add_particle(Vector3f(1, 1, 0), Vector3f(3, 4, 0), 1.0f, 0.2f);  // speed 5
    b.add_particle(Vector3f(2, 1, 0), Vector3f(0, 0, 2.5f), 1.0f, 0.1f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::model_renderables(m), {});
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
    FrameData g = snapshot(m, s, engine::model_renderables(m), {}, fixed);
    EXPECT_TRUE(g.particles[0].colors[1].isApprox(color_map(1.0f)));
    EXPECT_TRUE(g.particles[0].colors[2].isApprox(color_map(1.0f)));
    Vector3f lo, hi;
    ASSERT_TRUE(f.bounds(lo, hi));
    EXPECT_TRUE(lo.isApprox(Vector3f(-0.1f, 0.8f, -0.2f)));
    EXPECT_TRUE(hi.isApprox(Vector3f(2.1f, 1.2f, 0.2f)));
}

TEST(FrameDataTest, UnknownQuantityIsAnErrorWithDidYouMean) {
    WEFT_REQUIRE_CPU_DEVICE();
    engine::ModelBuilder b;
    b.add_particle(Vector3f(0, 1, 0), Vector3f(0, 0, 0), 1.0f, 0.1f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    ColorOptions o;
    o.quantity = "sped";
    try {
        snapshot(m, s, engine::model_renderables(m), {}, o);
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "viewer: cannot colour particles by 'sped' (did you mean 'speed'?)");
    }
}

// A 2 x 2 cloth of 3 x 3 particles in the x-z plane, wound so that its normals point up (+y),
// with one spring from corner 0 to corner 8; `varied` adds heights, velocities and radii that
// differ per particle (i, j its column and row): y = 1 + 0.1 i j, v = (i, -j, 0.5), r = 0.05 + 0.01 i.
engine::Model small_cloth(bool varied) {
    engine::ModelBuilder b;
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
            const float fi = float(i), fj = float(j);
            if (varied)
                b.add_particle(Vector3f(fi, 1 + 0.1f * fi * fj, fj), Vector3f(fi, -fj, 0.5f), 1.0f, 0.05f + 0.01f * fi);
            else
                b.add_particle(Vector3f(fi, 1, fj), Vector3f::Zero(), 1.0f, 0.05f);
        }
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) {
            int a = j * 3 + i;
            b.add_triangle(a, a + 3, a + 1);
            b.add_triangle(a + 1, a + 3, a + 4);
        }
    b.add_spring(0, 8, 10.0f, 0.0f);
    return b.finalize("cpu");
}

TEST(FrameDataTest, ClothNormalsAndSprings) {
    WEFT_REQUIRE_CPU_DEVICE();
    // The flat cloth: every normal points up.
    engine::Model m = small_cloth(false);
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::model_renderables(m), {});
    ASSERT_EQ(f.meshes.size(), 1u);
    for (const Vector3f& n : f.meshes[0].normals) EXPECT_TRUE(n.isApprox(Vector3f(0, 1, 0))) << n.transpose();
    ASSERT_EQ(f.lines.size(), 1u);
    EXPECT_EQ(f.lines[0].indices, (std::vector<uint32_t>{0, 8}));
}

TEST(FrameDataTest, VertexArraysHoldWhatTheHostSnapshotHolds) {
    WEFT_REQUIRE_CPU_DEVICE();
    // The cloth of ClothNormalsAndSprings with velocities: one positions array shared by the
    // particles, the surface and the springs; the velocity as the colour value (3 floats each);
    // read back, the same numbers as the host snapshot; the same box.
    engine::Model m = small_cloth(true);
    engine::State s = m.state();
    FrameData host = snapshot(m, s, engine::model_renderables(m), {});
    FrameData arrays = snapshot(m, s, engine::model_renderables(m), {}, {}, nullptr, true);
    ASSERT_EQ(arrays.particles.size(), 1u);
    const ParticleData& p = arrays.particles[0];
    ASSERT_TRUE(p.position_array && p.radius_array && p.value_array);
    EXPECT_TRUE(p.positions.empty() && p.colors.empty());
    EXPECT_EQ(p.size(), 9u);
    EXPECT_EQ(p.value_array->width, 3);
    EXPECT_FALSE(p.position_array->device.valid());  // cpu memory is the host's: no device copy
    EXPECT_EQ(arrays.meshes.at(0).position_array, p.position_array);
    EXPECT_EQ(arrays.lines.at(0).position_array, p.position_array);
    EXPECT_EQ(arrays.lines[0].indices, (std::vector<uint32_t>{0, 8}));
    EXPECT_EQ(p.host_positions(), host.particles[0].positions);
    EXPECT_EQ(p.host_radius(), host.particles[0].radius);
    EXPECT_EQ(p.position_array->read(4), (std::vector<float>{1.0f, 1.1f, 1.0f}));
    std::vector<float> v = p.value_array->read();
    for (size_t i = 0; i < 9; ++i)
        EXPECT_FLOAT_EQ(Vector3f(v[3 * i], v[3 * i + 1], v[3 * i + 2]).norm(),
                        Vector3f(float(i % 3), -float(i / 3), 0.5f).norm());
    Vector3f lo, hi, lo2, hi2;
    ASSERT_TRUE(host.bounds(lo, hi));
    ASSERT_TRUE(arrays.bounds(lo2, hi2));
    EXPECT_EQ(lo, lo2);
    EXPECT_EQ(hi, hi2);
    EXPECT_FALSE(arrays.bounds(lo2, hi2, true));  // without the arrays nothing is left
    try {
        p.position_array->read(9);
        ADD_FAILURE() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "viewer: vertex 9 is out of range: the array has 9 vertices");
    }
}

TEST(FrameDataTest, ShapesAreClosedAndWoundOutward) {
    WEFT_REQUIRE_CPU_DEVICE();
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
    FrameData f = snapshot(m, s, engine::model_renderables(m), b.shape_geo_src);
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

// Writes pose (p, q) into body b of `s` (a host round trip, as a solver step would change it).
void set_body_pose(engine::State& s, int b, const Vector3f& p, const Eigen::Quaternionf& q) {
    std::vector<float> poses(size_t(s.body_q.size()) * 7);
    s.body_q.copy_to_host(poses.data(), poses.size() * sizeof(float));
    float* x = &poses[size_t(b) * 7];
    x[0] = p.x(), x[1] = p.y(), x[2] = p.z(), x[3] = q.x(), x[4] = q.y(), x[5] = q.z(), x[6] = q.w();
    s.body_q.copy_from_host(poses.data(), poses.size() * sizeof(float));
}

TEST(FrameDataTest, ShapesOnBodiesFollowTheStatesBodyPoses) {
    WEFT_REQUIRE_CPU_DEVICE();
    // A box offset (0.5, 0, 0) and turned 90 degrees about z on body 1, a sphere on body 0, a static
    // sphere. Moving and turning body 1 in the State moves the box's vertices by body * local; the
    // static shape stays where the model put it.
    engine::ModelBuilder b;
    int b0 = b.add_body(Vector3f(0, 1, 0));
    int b1 = b.add_body(Vector3f(2, 1, 0));
    b.add_shape_sphere(b0, Vector3f::Zero(), engine::Quat::Identity(), 0.2f);
    Eigen::Quaternionf local_q(Eigen::AngleAxisf(0.5f * float(M_PI), Vector3f::UnitZ()));
    b.add_shape_box(b1, Vector3f(0.5f, 0, 0), local_q, 0.1f, 0.2f, 0.3f);
    b.add_shape_sphere(Vector3f(-3, 0, 0), 0.4f);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    Eigen::Quaternionf body_q(Eigen::AngleAxisf(0.8f, Vector3f(1, 2, 3).normalized()));
    Vector3f body_p(4, 5, 6);
    set_body_pose(s, b1, body_p, body_q);
    FrameData f = snapshot(m, s, engine::model_renderables(m), {});
    ASSERT_EQ(f.meshes.size(), 3u);

    // The box drawn at the body's pose: its local vertices are the corners (+-0.1, +-0.2, +-0.3)
    // turned by local_q, moved by (0.5, 0, 0), then by the body's pose.
    Eigen::Matrix3f world_rot = (body_q * local_q).toRotationMatrix();
    Vector3f world_center = body_p + body_q * Vector3f(0.5f, 0, 0);
    for (const Vector3f& v : f.meshes[1].positions) {
        Vector3f in_box = world_rot.transpose() * (v - world_center);
        EXPECT_NEAR(std::abs(in_box.x()), 0.1f, 1e-5f) << v.transpose();
        EXPECT_NEAR(std::abs(in_box.y()), 0.2f, 1e-5f) << v.transpose();
        EXPECT_NEAR(std::abs(in_box.z()), 0.3f, 1e-5f) << v.transpose();
    }
    // The sphere on body 0 at the body's initial pose, the static one where it was put.
    for (const Vector3f& v : f.meshes[0].positions) EXPECT_NEAR((v - Vector3f(0, 1, 0)).norm(), 0.2f, 1e-5f);
    for (const Vector3f& v : f.meshes[2].positions) EXPECT_NEAR((v - Vector3f(-3, 0, 0)).norm(), 0.4f, 1e-5f);
}

TEST(FrameDataTest, JointFramesAreAxesAtBothSidesOfEachJoint) {
    WEFT_REQUIRE_CPU_DEVICE();
    // A revolute joint from the world to a body: the parent frame at (0, 2, 0) in the world, the
    // child frame at (0, 0.5, 0) in the body, turned about x. Axes are drawn from each frame's origin
    // along its x, y and z, the same length for all.
    engine::ModelBuilder b;
    int body = b.add_body(Vector3f(0, 1.5f, 0));
    b.add_shape_box(body, Vector3f::Zero(), engine::Quat::Identity(), 0.1f, 0.5f, 0.1f);
    engine::JointFrame parent, child;
    parent.p = Vector3f(0, 2, 0);
    child.p = Vector3f(0, 0.5f, 0);
    child.q = Eigen::Quaternionf(Eigen::AngleAxisf(0.3f, Vector3f::UnitX()));
    b.add_joint_revolute(-1, body, parent, child);
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    Eigen::Quaternionf turn(Eigen::AngleAxisf(1.0f, Vector3f::UnitZ()));
    set_body_pose(s, body, Vector3f(1, 1, 0), turn);
    FrameData f = snapshot(m, s, engine::model_renderables(m), {});
    ASSERT_EQ(f.lines.size(), 6u);  // parent x, y, z, then child x, y, z
    const Vector3f origins[] = {Vector3f(0, 2, 0), Vector3f(1, 1, 0) + turn * Vector3f(0, 0.5f, 0)};
    const Eigen::Quaternionf rots[] = {Eigen::Quaternionf::Identity(), turn * child.q};
    float length = (f.lines[0].positions[1] - f.lines[0].positions[0]).norm();
    EXPECT_GE(length, 0.01f);
    for (int side = 0; side < 2; ++side)
        for (int axis = 0; axis < 3; ++axis) {
            const LineData& l = f.lines[size_t(3 * side + axis)];
            ASSERT_EQ(l.positions.size(), 2u) << l.name;
            EXPECT_EQ(l.indices, (std::vector<uint32_t>{0, 1}));
            EXPECT_TRUE(l.positions[0].isApprox(origins[side], 1e-5f)) << l.name << ": " << l.positions[0].transpose();
            Vector3f dir = rots[side] * Vector3f::Unit(axis);
            EXPECT_TRUE((l.positions[1] - l.positions[0]).isApprox(length * dir, 1e-4f)) << l.name;
            EXPECT_GT(l.color[axis], 0.9f) << l.name;  // x red, y green, z blue
        }
    EXPECT_EQ(f.lines[0].name, "joint parent frames x");
    EXPECT_EQ(f.lines[5].name, "joint child frames z");
}

TEST(FrameDataTest, SnapshotCacheCopiesAModelArrayAgainOnlyAfterAWrite) {
    // On a cuda device the cache keeps the radii between snapshots and copies them again once they
    // were written through the runtime; positions (State) are read every time. On the cpu nothing
    // is cached (a numpy view could write host memory unseen). Index lists keep one storage while
    // their array's contents are unchanged, on every device.
    for (const char* device : {"cpu", "cuda:0"}) {
        if (!runtime::device_available(runtime::parse_device(device))) continue;
        engine::ModelBuilder b;
        b.add_particle(Vector3f(0, 1, 0), Vector3f::Zero(), 1.0f, 0.25f);
        b.add_particle(Vector3f(1, 1, 0), Vector3f::Zero(), 1.0f, 0.5f);
        b.add_spring(0, 1, 10.0f, 0.0f);
        engine::Model m = b.finalize(device);
        engine::State s = m.state();
        SnapshotCache cache;
        FrameData f = snapshot(m, s, engine::model_renderables(m), {}, {}, &cache);
        size_t first = cache.copies();
        FrameData g = snapshot(m, s, engine::model_renderables(m), {}, {}, &cache);
        EXPECT_EQ(g.particles[0].radius, (std::vector<float>{0.25f, 0.5f}));
        // The springs' indices: one storage for both snapshots (a renderer keeps it uploaded).
        ASSERT_EQ(g.lines.size(), 1u);
        EXPECT_TRUE(g.lines[0].indices == (std::vector<uint32_t>{0, 1}));
        EXPECT_EQ(g.lines[0].indices.storage(), f.lines[0].indices.storage()) << device;
        const bool device_memory = std::string(device) != "cpu";
        EXPECT_EQ(first, device_memory ? 2u : 0u) << device;  // the radii and the spring indices
        EXPECT_EQ(cache.copies(), first) << device << ": nothing changed, nothing copied";
        std::vector<float> radius = {0.75f, 0.125f};
        m.particle_radius.copy_from_host(radius.data(), sizeof(float) * 2);
        std::vector<float> q = {0, 2, 0, 1, 3, 0};
        s.particle_q.copy_from_host(q.data(), sizeof(float) * 6);
        FrameData h = snapshot(m, s, engine::model_renderables(m), {}, {}, &cache);
        EXPECT_EQ(h.particles[0].radius, radius) << device;
        EXPECT_TRUE(h.particles[0].positions[1].isApprox(Vector3f(1, 3, 0))) << device;
        EXPECT_EQ(cache.copies(), device_memory ? first + 1 : 0u) << device;
        EXPECT_EQ(h.lines[0].indices.storage(), f.lines[0].indices.storage()) << device;
        int reversed[2] = {1, 0};
        m.spring_indices.copy_from_host(reversed, sizeof reversed);
        FrameData k = snapshot(m, s, engine::model_renderables(m), {}, {}, &cache);
        EXPECT_TRUE(k.lines[0].indices == (std::vector<uint32_t>{1, 0})) << device;
        EXPECT_NE(k.lines[0].indices.storage(), f.lines[0].indices.storage()) << device;
    }
}

TEST(FrameDataTest, SmokeDensityIsAVolumeOfTheStatesValues) {
    WEFT_REQUIRE_CPU_DEVICE();
    engine::ModelBuilder b;
    b.smoke.resolution = {4, 3, 2};
    b.smoke.cell_size = 0.25f;
    b.smoke.origin = {1, 0, -1};
    b.smoke.density.assign(24, 0.0f);
    b.smoke.density[5] = 3.0f;
    engine::Model m = b.finalize("cpu");
    engine::State s = m.state();
    FrameData f = snapshot(m, s, engine::model_renderables(m), {});
    ASSERT_EQ(f.volumes.size(), 1u);
    const VolumeData& v = f.volumes[0];
    EXPECT_EQ(v.dims, (std::array<int, 3>{4, 3, 2}));
    EXPECT_TRUE(v.origin.isApprox(Vector3f(1, 0, -1)));
    EXPECT_FLOAT_EQ(v.cell, 0.25f);
    ASSERT_EQ(v.values.size(), 24u);
    EXPECT_FLOAT_EQ(v.values[5], 3.0f);
    EXPECT_FLOAT_EQ(v.value_hi, 3.0f);
    EXPECT_FLOAT_EQ(v.sigma(), kVolumeOpacity / 1.0f);  // the largest side: 4 cells of 0.25 m
    Vector3f lo, hi;
    ASSERT_TRUE(f.bounds(lo, hi));
    EXPECT_TRUE(lo.isApprox(Vector3f(1, 0, -1)));
    EXPECT_TRUE(hi.isApprox(Vector3f(2, 0.75f, -0.5f)));
}

}  // namespace
}  // namespace weft::viewer
