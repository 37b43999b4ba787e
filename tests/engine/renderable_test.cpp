// engine/renderable.h: what a viewer draws of a model, and State arrays by name.
#include "engine/renderable.h"
#include "runtime/errors.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

TEST(Renderable, ParticleModelsDescribeWhatTheyHold) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f, 0.2f);
    EXPECT_EQ(model_renderables(b.finalize("cpu")).size(), 1u);  // particles only
    ClothGridDef c;
    c.dim_x = 2;
    c.dim_y = 3;
    c.add_springs = true;
    b.add_cloth_grid(c);
    b.add_shape_sphere(Vec3(0, -1, 0), 0.5f);
    Model m = b.finalize("cpu");
    auto r = model_renderables(m);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].kind, RenderableKind::Particles);
    EXPECT_EQ(r[0].count, m.particle_count);
    EXPECT_EQ(r[0].positions, "particle_q");
    EXPECT_EQ(r[0].radius.data(), m.particle_radius.data());
    EXPECT_EQ(r[1].kind, RenderableKind::Surface);
    EXPECT_EQ(r[1].count, 2 * 3 * 2);
    EXPECT_EQ(r[1].indices.data(), m.tri_indices.data());
    EXPECT_EQ(r[2].kind, RenderableKind::Lines);
    EXPECT_EQ(r[2].count, m.spring_count);
    EXPECT_EQ(r[3].kind, RenderableKind::Shapes);
    EXPECT_EQ(r[3].count, 1);
    EXPECT_TRUE(r[3].positions.empty());
    EXPECT_EQ(r[3].geo_type.data(), m.shape_geo_type.data());
}

TEST(Renderable, BodiesJointsAndSmokeAreDescribed) {
    // Shapes read the body poses when the model has bodies; each joint gives a frame on its parent's
    // side and one on its child's; a smoke grid is a volume of the State's density.
    REQUIRE_CPU();
    ModelBuilder b;
    int body = b.add_body(Vec3(0, 1, 0));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);
    b.add_joint_revolute(-1, body, JointFrame{}, JointFrame{});
    b.smoke.resolution = {8, 4, 1};
    b.smoke.cell_size = 0.5f;
    b.smoke.origin = {-2, 0, 0};
    Model m = b.finalize("cpu");
    auto r = model_renderables(m);
    ASSERT_EQ(r.size(), 4u);
    EXPECT_EQ(r[0].kind, RenderableKind::Shapes);
    EXPECT_EQ(r[0].positions, "body_q");
    EXPECT_EQ(r[0].body.data(), m.shape_body.data());
    EXPECT_EQ(r[1].kind, RenderableKind::Frames);
    EXPECT_EQ(r[1].name, "joint parent frames");
    EXPECT_EQ(r[1].body.data(), m.joint_parent.data());
    EXPECT_EQ(r[1].transform.data(), m.joint_X_p.data());
    EXPECT_EQ(r[2].kind, RenderableKind::Frames);
    EXPECT_EQ(r[2].body.data(), m.joint_child.data());
    EXPECT_EQ(r[2].transform.data(), m.joint_X_c.data());
    EXPECT_EQ(r[3].kind, RenderableKind::Volume);
    EXPECT_EQ(r[3].positions, "smoke_density");
    EXPECT_EQ(r[3].count, 32);
    EXPECT_EQ(r[3].dims, (std::array<int, 3>{8, 4, 1}));
    EXPECT_EQ(r[3].origin, (std::array<float, 3>{-2, 0, 0}));
    EXPECT_FLOAT_EQ(r[3].cell, 0.5f);
    State s = m.state();
    EXPECT_EQ(state_array(s, r[3].positions).size(), 32);
}

TEST(Renderable, StateArraysByName) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 1.0f);
    Model m = b.finalize("cpu");
    State s = m.state();
    EXPECT_EQ(state_array(s, "particle_q").data(), s.particle_q.data());
    EXPECT_EQ(state_array(s, "particle_qd").data(), s.particle_qd.data());
    try {
        state_array(s, "particle_v");
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "State has no array 'particle_v' (did you mean 'particle_q'?)");
    }
}

}  // namespace
