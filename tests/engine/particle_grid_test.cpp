// engine/particle_grid.h: particle-particle collisions through the hash grid conserve momentum,
// and no particle is dropped from a grid that is big enough.
#include "engine/particle_grid.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

TEST(Contact, ParticleCollisionsConserveMomentum) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    b.particle_contact = true;
    b.particle_ke = 1e4f;
    b.particle_kd = 10.0f;
    b.particle_mu = 0.3f;
    // a head-on pair, an oblique pair with friction, and a cluster of five
    b.add_particle(Vec3(-0.5f, 0, 0), Vec3(2, 0, 0), 1.0f, 0.1f);
    b.add_particle(Vec3(0.5f, 0, 0), Vec3(-1, 0, 0), 3.0f, 0.1f);
    b.add_particle(Vec3(-0.5f, 1.05f, 0), Vec3(2, 0, 0.5f), 1.0f, 0.1f);
    b.add_particle(Vec3(0.5f, 1.0f, 0.02f), Vec3(-2, 0, 0), 2.0f, 0.12f);
    for (int k = 0; k < 5; ++k)
        b.add_particle(Vec3(3.0f + 0.15f * float(k), 0.01f * float(k), 0), Vec3(k == 0 ? 3.0f : 0.0f, 0, 0), 1.0f, 0.08f);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s0 = m.state();
    auto p0 = momentum(s0, b.particle_mass);
    State s = rollout(m, integ, 1000, 5e-4f);
    auto p1 = momentum(s, b.particle_mass);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p1[size_t(k)], p0[size_t(k)], 1e-4) << "component " << k;
    auto v = host_vec3(s.particle_qd);
    EXPECT_LT(v[0][0], 0.0f);   // the light particle bounced back
    EXPECT_GT(v[1][0], -1.0f);  // the heavy one was slowed down
    EXPECT_EQ(particle_grid_dropped(m, s.grid_bucket_count), 0);
}

}  // namespace
