// XPBD: a triangle-membrane cloth without springs hangs from its top edge, comes to rest and
// keeps its area; the same cloth with a flat rest shape on the ground stays flat (every
// constraint vanishes at rest); a particle rests on the ground and a stiff pendulum keeps its
// length; a bent hinge oscillates about its rest angle; a squashed soft block recovers its volume.
#include <cmath>

#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

ClothGridDef hanging_cloth() {
    ClothGridDef c;
    c.dim_x = c.dim_y = 8;
    c.cell_x = c.cell_y = 0.1f;
    c.mass = 0.05f;
    c.fix_left = true;
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
    c.tri_ke = c.tri_ka = 1e4f;
    c.edge_ke = 1.0f;
    return c;
}

TEST(XpbdCloth, HangingClothRestsAndKeepsItsArea) {
    REQUIRE_CPU();
    // A vertical cloth (local x-y plane) hanging from its top edge: gravity only stretches it.
    // XPBD has no explicit damping; its iterations dissipate the stretch oscillation.
    ModelBuilder b;
    b.ground = false;
    ClothGridDef c = hanging_cloth();
    c.rot = Quat::Identity();
    c.fix_left = false;
    c.fix_top = true;
    b.add_cloth_grid(c);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(20, 1.0f);
    State s = rollout(m, integ, 960, 1.0f / 240);
    auto q = host_vec3(s.particle_q);
    auto v = host_vec3(s.particle_qd);
    double max_speed = 0, min_y = 1, area = 0;
    for (size_t i = 0; i < q.size(); ++i) {
        max_speed = std::max(max_speed, double(std::sqrt(v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2])));
        min_y = std::min(min_y, double(q[i][1]));
    }
    for (const auto& t : b.tri_indices) {
        Eigen::Vector3d x0(q[size_t(t[0])][0], q[size_t(t[0])][1], q[size_t(t[0])][2]);
        Eigen::Vector3d x1(q[size_t(t[1])][0], q[size_t(t[1])][1], q[size_t(t[1])][2]);
        Eigen::Vector3d x2(q[size_t(t[2])][0], q[size_t(t[2])][1], q[size_t(t[2])][2]);
        area += 0.5 * (x1 - x0).cross(x2 - x0).norm();
    }
    // Known limitation: Jacobi XPBD keeps a residual flutter of a few cm/s here (0.07 m/s measured)
    EXPECT_LT(max_speed, 0.1);
    EXPECT_LT(min_y, 0.0);    // it stretched under gravity (the bottom edge started at y = 0)
    EXPECT_GT(min_y, -0.12);  // by less than 15% of its 0.8 m (20 Jacobi iterations are softer than the material)
    EXPECT_NEAR(area / 0.64, 1.0, 0.05);
}

TEST(XpbdCloth, FlatClothAtRestStaysPut) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    ClothGridDef c = hanging_cloth();
    c.fix_left = false;
    b.add_cloth_grid(c);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(4);
    State s = rollout(m, integ, 50, 1.0f / 240);
    auto q = host_vec3(s.particle_q);
    for (size_t i = 0; i < q.size(); ++i)
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(q[i][size_t(k)], b.particle_q[i][k], 1e-5) << i;
}

TEST(Xpbd, ParticleRestsOnGroundAndPendulumKeepsItsLength) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.add_particle(Vec3(0, 1, 0), Vec3(0.5f, 0, 0), 1.0f, 0.1f);
    int anchor = b.add_particle(Vec3(2, 2, 0), Vec3::Zero(), 0.0f, 0.1f);
    int bob = b.add_particle(Vec3(3, 2, 0), Vec3::Zero(), 1.0f, 0.1f);
    b.add_spring(anchor, bob, 1e6f, 0.0f);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(8, 1.0f);
    double max_err = 0, lowest = 2.0;
    State s = rollout(m, integ, 300, 1.0f / 240, [&](int, const State& st) {
        auto q = host_vec3(st.particle_q);
        double l = std::hypot(q[2][0] - 2.0, q[2][1] - 2.0, q[2][2]);
        max_err = std::max(max_err, std::abs(l - 1.0));
        lowest = std::min(lowest, double(q[2][1]));
    });
    auto q = host_vec3(s.particle_q);
    EXPECT_NEAR(q[0][1], 0.1f, 2e-3);
    EXPECT_LT(max_err, 5e-3);
    EXPECT_LT(lowest, 1.02);  // the pendulum swung through the bottom (y = 1)
}

TEST(Xpbd, BentHingeRelaxesToItsRestAngle) {
    REQUIRE_CPU();
    // XPBD bending has no damping: the hinge oscillates about its rest angle with an amplitude
    // that must not grow; its mean over the last 2 s is the rest angle.
    ModelBuilder b = bent_hinge(100.0f);
    EXPECT_NEAR(b.edge_rest_angle[0], 0.0f, 1e-6);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(4);
    double mean = 0, peak = 0;
    rollout(m, integ, 400, 1e-2f, [&](int step, const State& st) {
        double a = hinge_angle(st);
        if (step > 200) mean += a / 200;
        peak = std::max(peak, std::abs(a));
    });
    EXPECT_NEAR(mean, 0.0, 0.02);
    EXPECT_LT(peak, M_PI / 3 + 0.01);
}

TEST(Xpbd, CompressedBlockRecoversItsVolumeAndKeepsMomentum) {
    REQUIRE_CPU();
    ModelBuilder b = squashed_block();
    ASSERT_EQ(b.tet_count_or_zero(), 40);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(8, 1.0f);
    State s = rollout(m, integ, 100, 1e-2f);
    EXPECT_NEAR(soft_volume(b, s) / 0.008, 1.0, 0.03);
    auto p = momentum(s, b.particle_mass);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p[size_t(k)], 0.0, 1e-4);
}

}  // namespace
