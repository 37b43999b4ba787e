// XPBD cloth: a triangle-membrane cloth without springs hangs from its top edge, comes to rest
// and keeps its area; the same cloth with a flat rest shape on the ground
// stays flat (every constraint vanishes at rest).
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
    EXPECT_LT(min_y, 0.0);           // it stretched under gravity (the bottom edge started at y = 0)
    EXPECT_GT(min_y, -0.12);         // by less than 15% of its 0.8 m (20 Jacobi iterations are softer than the material)
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

}  // namespace
