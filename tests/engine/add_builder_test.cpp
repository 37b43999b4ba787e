// ModelBuilder::add_builder (engine/add_builder.cpp): copies of a model side by side. Indices are
// offset and positions moved (against an Eigen transform), articulations stay separate, copies in
// separate worlds pass through each other while copies in one world collide, N jointed copies in one
// model follow the single model's trajectory moved by their offsets, particles meet only their
// own world's static shapes, and what worlds cannot separate yet is refused by name.
#include <Eigen/Geometry>
#include <cmath>
#include <cstring>

#include "engine/integrator_registry.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;
using Xform = ModelBuilder::Xform;

std::vector<std::array<float, 7>> body_poses(const State& s) {
    std::vector<std::array<float, 7>> q(size_t(s.body_count));
    s.body_q.copy_to_host(q.data(), q.size() * sizeof(q[0]));
    return q;
}

ModelBuilder pendulum_with_cloth_strip(bool static_sphere = true) {
    ModelBuilder b;
    int p0 = b.add_particle(Vec3(0, 1, 0), Vec3(0.1f, 0, 0), 1.0f);
    int p1 = b.add_particle(Vec3(0.2f, 1, 0), Vec3::Zero(), 1.0f);
    b.add_spring(p0, p1, 100.0f, 1.0f);
    int body = b.add_body(Vec3(0.3f, 2, 0));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);
    if (static_sphere) b.add_shape_sphere(-1, Vec3(0, 0.5f, 0), Quat::Identity(), 0.2f);
    JointAxisDef z;
    z.axis = Vec3::UnitZ();
    b.add_joint_revolute(-1, body, {Vec3(0, 2, 0), Quat::Identity()}, {Vec3(-0.3f, 0, 0), Quat::Identity()}, z);
    b.joint_q = {0.25f};
    return b;
}

TEST(AddBuilder, CopiesAreOffsetAndMoved) {
    ModelBuilder one = pendulum_with_cloth_strip();
    ModelBuilder b;
    Xform x{Vec3(5, 0, -1), Quat(Eigen::AngleAxisf(0.5f, Vec3::UnitY()))};
    EXPECT_EQ(b.add_builder(one), 0);
    EXPECT_EQ(b.add_builder(one, x), 1);
    EXPECT_EQ(b.add_builder(one, {}, false), -1);
    EXPECT_EQ(b.num_worlds, 2);
    ASSERT_EQ(b.particle_count(), 6);
    ASSERT_EQ(b.body_count(), 3);
    ASSERT_EQ(b.joint_count(), 3);
    EXPECT_EQ(b.spring_indices[2], 2);
    EXPECT_EQ(b.spring_indices[3], 3);
    Eigen::Isometry3f X = Eigen::Isometry3f::Identity();
    X.linear() = x.q.toRotationMatrix();
    X.translation() = x.p;
    EXPECT_LT((b.particle_q[3] - X * one.particle_q[1]).norm(), 1e-6f);
    EXPECT_LT((b.particle_qd[2] - X.linear() * one.particle_qd[0]).norm(), 1e-6f);
    Vec3 body1(b.body_q[1][0], b.body_q[1][1], b.body_q[1][2]);
    EXPECT_LT((body1 - X * Vec3(0.3f, 2, 0)).norm(), 1e-6f);
    EXPECT_EQ(b.shape_body[2], 1);   // the box of copy 1 on body 1
    EXPECT_EQ(b.shape_body[3], -1);  // its static sphere, moved
    Vec3 sphere(b.shape_transform[3][0], b.shape_transform[3][1], b.shape_transform[3][2]);
    EXPECT_LT((sphere - X * Vec3(0, 0.5f, 0)).norm(), 1e-6f);
    EXPECT_EQ(b.joint_child[1], 1);
    EXPECT_EQ(b.joint_parent[1], -1);
    Vec3 anchor(b.joint_X_p[1][0], b.joint_X_p[1][1], b.joint_X_p[1][2]);
    EXPECT_LT((anchor - X * Vec3(0, 2, 0)).norm(), 1e-6f);
    EXPECT_EQ(b.articulation_count(), 3);
    EXPECT_EQ(b.joint_q.size(), 3u);
    EXPECT_EQ(b.body_world, (std::vector<int>{0, 1, -1}));
    EXPECT_EQ(b.shape_world, (std::vector<int>{0, 0, 1, 1, -1, -1}));
    EXPECT_EQ(message_of([&] { b.add_builder(b); }), "add_builder: a builder cannot be added to itself; add a copy");
    ModelBuilder smoky;
    smoky.smoke.resolution = {4, 4, 1};
    EXPECT_EQ(message_of([&] { b.add_builder(smoky); }),
              "add_builder: the added builder has a smoke grid, which is one per model and is not copied; set the receiving "
              "builder's smoke instead");
}

// Two balls dropped onto the same place: in separate worlds they fall through each other exactly as
// one ball alone falls; in one world they collide.
TEST(AddBuilder, SeparateWorldsNeverTouch) {
    REQUIRE_CPU();
    ModelBuilder one;
    one.ground = false;
    int ball = one.add_body(Vec3(0, 1, 0));
    one.add_shape_sphere(ball, Vec3::Zero(), Quat::Identity(), 0.1f);
    ModelBuilder apart, together;
    apart.ground = together.ground = false;
    apart.add_builder(one);
    apart.add_builder(one, {Vec3(0.05f, 0.1f, 0), Quat::Identity()});
    together.add_builder(one, {}, false);
    together.add_builder(one, {Vec3(0.05f, 0.1f, 0), Quat::Identity()}, false);
    Model ms = one.finalize("cpu"), ma = apart.finalize("cpu"), mt = together.finalize("cpu");
    EXPECT_EQ(ma.num_worlds, 2);
    SemiImplicitIntegrator i1, i2, i3;
    auto single = body_poses(rollout(ms, i1, 100, 1e-3f));
    auto a = body_poses(rollout(ma, i2, 100, 1e-3f));
    auto t = body_poses(rollout(mt, i3, 100, 1e-3f));
    for (int k = 0; k < 7; ++k) EXPECT_EQ(a[0][size_t(k)], single[0][size_t(k)]) << k;  // bit for bit
    EXPECT_NEAR(a[1][1] - a[0][1], 0.1f, 1e-6f);
    EXPECT_GT(std::hypot(t[1][0] - t[0][0], t[1][1] - t[0][1]), 0.2f);  // pushed apart to touching
}

// Eight copies of a jointed pendulum with a cloth strip, each in its own world at its own offset,
// stepped as one model: every copy follows the single model's trajectory moved by its offset.
TEST(AddBuilder, BatchedWorldsFollowTheSingleModel) {
    REQUIRE_CPU();
    ModelBuilder one = pendulum_with_cloth_strip(false);  // static shapes of a world meet only its own bodies
    one.ground = false;
    ModelBuilder batch;
    batch.ground = false;
    for (int w = 0; w < 8; ++w) batch.add_builder(one, {Vec3(3.0f * float(w), 0, 0), Quat::Identity()});
    Model m1 = one.finalize("cpu"), mb = batch.finalize("cpu");
    SemiImplicitIntegrator i1, ib;
    State s1 = rollout(m1, i1, 200, 5e-4f), sb = rollout(mb, ib, 200, 5e-4f);
    auto q1 = body_poses(s1), qb = body_poses(sb);
    auto p1 = host_vec3(s1.particle_q), pb = host_vec3(sb.particle_q);
    for (int w = 0; w < 8; ++w) {
        EXPECT_NEAR(qb[size_t(w)][0] - 3.0f * float(w), q1[0][0], 2e-5f) << "world " << w;
        EXPECT_NEAR(qb[size_t(w)][1], q1[0][1], 2e-5f) << "world " << w;
        for (int i = 0; i < 2; ++i) {
            EXPECT_NEAR(pb[size_t(2 * w + i)][0] - 3.0f * float(w), p1[size_t(i)][0], 2e-5f) << "world " << w;
            EXPECT_NEAR(pb[size_t(2 * w + i)][1], p1[size_t(i)][1], 2e-5f) << "world " << w;
        }
    }
}

// Two worlds at one place, each with a particle above its own static sphere at a different x: a
// particle lands on its world's sphere only, bit for bit as that world alone (semi-implicit and
// XPBD), and falls past the other world's sphere.
TEST(AddBuilder, ParticlesMeetTheStaticShapesOfTheirOwnWorldOnly) {
    auto world = [](float sphere_x) {
        ModelBuilder b;
        b.ground = false;
        b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f, 0.05f);
        b.add_shape_sphere(-1, Vec3(sphere_x, 0.5f, 0), Quat::Identity(), 0.3f);
        return b;
    };
    ModelBuilder on = world(0.0f), off = world(5.0f);
    ModelBuilder both;
    both.ground = false;
    both.add_builder(off);
    both.add_builder(on);
    for (const char* solver : {"semi_implicit", "xpbd"}) {
        Model m_on = on.finalize("cpu"), m_both = both.finalize("cpu");
        auto i_on = create_integrator(solver, {}), i_both = create_integrator(solver, {});
        State s_on = rollout(m_on, *i_on, 600, 1e-3f), s_both = rollout(m_both, *i_both, 600, 1e-3f);
        auto q_on = host_vec3(s_on.particle_q), q_both = host_vec3(s_both.particle_q);
        EXPECT_GT(q_on[0][1], 0.5f) << solver << ": rests on its sphere";
        EXPECT_EQ(std::memcmp(q_both[1].data(), q_on[0].data(), sizeof(float) * 3), 0)
            << solver << ": world 1 differs from itself alone";
        EXPECT_LT(q_both[0][1], 0.0f) << solver << ": world 0's particle fell past world 1's sphere";
    }
}

TEST(AddBuilder, WhatWorldsDoNotSeparateYetIsRefused) {
    ModelBuilder one;
    one.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f);
    ModelBuilder contact;
    contact.particle_contact = true;
    contact.add_builder(one);
    contact.add_builder(one);
    EXPECT_NO_THROW(contact.finalize("cpu")) << "particle contact of two worlds stays inside each";
    contact.add_particle(Vec3(0, 2, 0), Vec3::Zero(), 1.0f);  // world -1: would need every world's buckets
    EXPECT_EQ(message_of([&] { contact.finalize("cpu"); }),
              "finalize: particle-particle contact between 1 particles of no world (added to the builder directly) and 2 "
              "particles of its worlds: that contact separates worlds and cannot also span them (turn particle_contact "
              "off, or add the shared particles as a world of their own)");
}

}  // namespace
