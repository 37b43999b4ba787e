// Semi-implicit Euler against analytic answers: free fall and projectile (the exact discrete
// recurrence and the continuous formula), a mass on a spring (period), energy drift of an
// undamped oscillator, restitution of the soft ground contact, sliding friction, a hanging
// cloth coming to rest, resting on static shapes at the distance their signed distance gives,
// dihedral bending and neo-Hookean tetrahedra relaxing to rest, and the same step on the
// simulator as on the CPU.
#include <cmath>

#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

TEST(SemiImplicit, FreeFallAndProjectile) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.add_particle(Vec3(0, 10, 0), Vec3(0, 0, 0), 1.0f);
    b.add_particle(Vec3(0, 0, 0), Vec3(3, 4, -1), 2.0f);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    const int n = 120;
    const double dt = 1.0 / 120;
    State s = rollout(m, integ, n, float(dt));
    auto q = host_vec3(s.particle_q);
    auto v = host_vec3(s.particle_qd);
    // symplectic Euler: v_n = v0 - g n dt, x_n = x0 + v0 t - g dt^2 n (n + 1) / 2
    double t = n * dt;
    double drop = kG * dt * dt * n * (n + 1) / 2;
    EXPECT_NEAR(q[0][1], 10.0 - drop, 1e-4);
    EXPECT_NEAR(v[0][1], -kG * t, 1e-4);
    EXPECT_NEAR(q[1][0], 3.0 * t, 1e-5);
    EXPECT_NEAR(q[1][2], -1.0 * t, 1e-5);
    EXPECT_NEAR(q[1][1], 4.0 * t - drop, 1e-4);
    // and the continuous answer within the method's O(dt) error g t dt / 2
    EXPECT_NEAR(q[0][1], 10.0 - 0.5 * kG * t * t, 0.5 * kG * t * dt * 1.01);
}

// A particle of mass m hanging on a spring from a fixed particle, gravity off.
Model oscillator(float mass, float ke, float kd, float stretch) {
    ModelBuilder b(0.0f);
    b.ground = false;
    b.add_particle(Vec3(0, 0, 0), Vec3::Zero(), 0.0f);
    b.add_particle(Vec3(0, -1.0f - stretch, 0), Vec3::Zero(), mass);
    b.add_spring(0, 1, ke, kd, 1.0f);
    return b.finalize("cpu");
}

TEST(SemiImplicit, MassOnSpringPeriod) {
    REQUIRE_CPU();
    const double mass = 0.5, ke = 200.0;
    const double period = 2 * M_PI * std::sqrt(mass / ke);
    Model m = oscillator(float(mass), float(ke), 0.0f, 0.1f);
    SemiImplicitIntegrator integ;
    const double dt = period / 400;
    std::vector<double> crossings;
    double prev = -0.1;
    rollout(m, integ, 2400, float(dt), [&](int step, const State& s) {
        double y = host_vec3(s.particle_q)[1][1] + 1.0;  // displacement from rest
        if (prev < 0 && y >= 0) crossings.push_back(step * dt - dt * y / (y - prev));
        prev = y;
    });
    ASSERT_GE(crossings.size(), 4u);
    double measured = (crossings.back() - crossings.front()) / double(crossings.size() - 1);
    EXPECT_NEAR(measured / period, 1.0, 0.01) << "measured " << measured << " s, analytic " << period << " s";
}

TEST(SemiImplicit, UndampedEnergyHasNoDrift) {
    REQUIRE_CPU();
    // Symplectic Euler conserves a modified energy: the true energy oscillates with a relative
    // amplitude of about omega dt / 2 and does not drift. Bounds: every sample within omega dt
    // of E0, and the mean of the last period within 1e-3 of the first period's.
    const double mass = 1.0, ke = 100.0, omega = std::sqrt(ke / mass);
    const double dt = 0.002;
    Model m = oscillator(float(mass), float(ke), 0.0f, 0.2f);
    SemiImplicitIntegrator integ;
    const double e0 = 0.5 * ke * 0.2 * 0.2;
    const int per_period = int(std::lround(2 * M_PI / omega / dt));
    const int steps = 20000;
    double max_dev = 0, first = 0, last = 0;
    rollout(m, integ, steps, float(dt), [&](int step, const State& s) {
        auto q = host_vec3(s.particle_q)[1];
        auto v = host_vec3(s.particle_qd)[1];
        double l = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2]);
        double e = 0.5 * mass * (double(v[0]) * v[0] + double(v[1]) * v[1] + double(v[2]) * v[2]) + 0.5 * ke * (l - 1) * (l - 1);
        max_dev = std::max(max_dev, std::abs(e - e0) / e0);
        if (step <= per_period) first += e / per_period;
        if (step > steps - per_period) last += e / per_period;
    });
    EXPECT_LT(max_dev, omega * dt);
    EXPECT_NEAR(last / first, 1.0, 1e-3);
}

TEST(SemiImplicit, ReboundHeightIsRestitutionSquared) {
    REQUIRE_CPU();
    // The soft contact is a spring ke with a damper kd acting only while the particle approaches
    // (v.n < 0). Compression is a damped oscillation from the impact speed v0 to rest; the rebound
    // is undamped, so the exit speed is omega0 x_max. With zeta = kd / (2 sqrt(ke m)):
    //   e = exp(-zeta / sqrt(1 - zeta^2) * atan(sqrt(1 - zeta^2) / zeta)),  h1 = e^2 h0.
    const double mass = 1.0, ke = 1e5, zeta = 0.1;
    const double kd = 2 * zeta * std::sqrt(ke * mass);
    const double e = std::exp(-zeta / std::sqrt(1 - zeta * zeta) * std::atan(std::sqrt(1 - zeta * zeta) / zeta));
    const double r = 0.05, h0 = 1.0;
    ModelBuilder b;
    b.soft_contact_ke = float(ke);
    b.soft_contact_kd = float(kd);
    b.soft_contact_mu = 0.0f;
    b.add_particle(Vec3(0, float(h0 + r), 0), Vec3::Zero(), float(mass), float(r));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    bool touched = false;
    double apex = 0;
    rollout(m, integ, 15000, 1e-4f, [&](int, const State& s) {
        double y = host_vec3(s.particle_q)[0][1] - r;
        if (y < 0) touched = true;
        if (touched && y > 0) apex = std::max(apex, y);
    });
    ASSERT_TRUE(touched);
    EXPECT_NEAR(apex / h0, e * e, 0.02 * e * e) << "e = " << e;
}

TEST(SemiImplicit, SlidingStopDistance) {
    REQUIRE_CPU();
    // Coulomb friction mu m g decelerates a sliding particle: it stops after v0^2 / (2 mu g).
    const double mass = 1.0, mu = 0.4, v0 = 2.0, ke = 1e4, r = 0.05;
    ModelBuilder b;
    b.soft_contact_ke = float(ke);
    b.soft_contact_kd = 100.0f;
    b.soft_contact_kf = 1e4f;
    b.soft_contact_mu = float(mu);
    b.add_particle(Vec3(0, float(r - mass * kG / ke), 0), Vec3(float(v0), 0, 0), float(mass), float(r));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 4000, 5e-4f);
    double expected = v0 * v0 / (2 * mu * kG);
    auto q = host_vec3(s.particle_q)[0];
    EXPECT_NEAR(q[0], expected, 0.02 * expected);
    EXPECT_NEAR(host_vec3(s.particle_qd)[0][0], 0.0, 1e-3);
}

TEST(SemiImplicit, HangingClothComesToRest) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    ClothGridDef c;
    c.dim_x = 8;
    c.dim_y = 8;
    c.cell_x = c.cell_y = 0.1f;
    c.mass = 0.05f;
    c.fix_left = true;
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));  // the grid in the x-z plane
    c.tri_ke = c.tri_ka = 1e3f;
    c.tri_kd = 5.0f;
    c.edge_ke = 1.0f;
    c.edge_kd = 0.1f;
    b.add_cloth_grid(c);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 6000, 1e-3f);
    auto q = host_vec3(s.particle_q);
    auto v = host_vec3(s.particle_qd);
    double max_speed = 0, min_y = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        max_speed = std::max(max_speed, double(std::sqrt(v[i][0] * v[i][0] + v[i][1] * v[i][1] + v[i][2] * v[i][2])));
        min_y = std::min(min_y, double(q[i][1]));
    }
    EXPECT_LT(max_speed, 0.02);
    EXPECT_LT(min_y, -0.7);  // it hangs: the free edge is close to a cloth length (0.8 m) below the fixed one
    for (const auto& p : q) EXPECT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]));
}

TEST(SemiImplicit, ParticlesRestOnStaticShapes) {
    REQUIRE_CPU();
    // Each particle comes to rest where the contact spring carries its weight: sdf = r - m g / ke.
    const float r = 0.05f, ke = 1e4f, mass = 0.1f;
    ModelBuilder b;
    b.ground = false;
    b.soft_contact_ke = ke;
    b.soft_contact_kd = 20.0f;
    b.add_shape_sphere(Vec3(0, 0, 0), 0.5f);
    b.add_shape_box(Vec3(2, 0, 0), 0.3f, 0.2f, 0.3f, Quat(Eigen::AngleAxisf(0.3f, Vec3(0, 1, 0))));
    b.add_shape_capsule(Vec3(4, 0, 0), 0.2f, 0.5f, Quat(Eigen::AngleAxisf(float(M_PI) / 2, Vec3(0, 0, 1))));  // lying along x
    b.add_shape_plane(Eigen::Vector4f(0, 1, 0, 1.0f));                                                        // y = -1
    b.add_particle(Vec3(0, 0.7f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(2.1f, 0.4f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(4.3f, 0.4f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(6, 0, 0), Vec3::Zero(), mass, r);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 4000, 5e-4f);
    auto q = host_vec3(s.particle_q);
    const float sink = mass * 9.80665f / ke;
    EXPECT_NEAR(q[0][1], 0.5f + r - sink, 2e-4);
    EXPECT_NEAR(q[1][1], 0.2f + r - sink, 2e-4);
    EXPECT_NEAR(q[2][1], 0.2f + r - sink, 2e-4);
    EXPECT_NEAR(q[3][1], -1.0f + r - sink, 2e-4);
    EXPECT_NEAR(q[0][0], 0.0f, 1e-4);
}

TEST(SemiImplicit, ParticlesRestOnStaticCylindersAndCones) {
    REQUIRE_CPU();
    // As above, on the flat ends and the side of cylinders and on a cone's base: sdf = r - m g / ke.
    // The friction coefficient is within its explicit limit (kf dt / m = 0.5 < 2): the side's
    // normal, turned by a float quaternion, is 6e-8 off the vertical, and an unstable viscous
    // friction (the default kf = 1e3 gives 5) grows that into a sideways slide.
    const float r = 0.05f, ke = 1e4f, mass = 0.1f;
    ModelBuilder b;
    b.ground = false;
    b.soft_contact_ke = ke;
    b.soft_contact_kd = 20.0f;
    b.soft_contact_kf = 100.0f;
    b.add_shape_cylinder(Vec3(0, 0, 0), 0.3f, 0.2f);                                                            // upright
    b.add_shape_cylinder(Vec3(2, 0, 0), 0.25f, 0.6f, Quat(Eigen::AngleAxisf(float(M_PI) / 2, Vec3(0, 0, 1))));  // along x
    b.add_shape_cone(Vec3(4, 0, 0), 0.3f, 0.2f);                                                                // base up
    b.add_particle(Vec3(0.1f, 0.4f, 0.05f), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(2.3f, 0.5f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(4.1f, 0.4f, -0.05f), Vec3::Zero(), mass, r);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 4000, 5e-4f);
    auto q = host_vec3(s.particle_q);
    const float sink = mass * 9.80665f / ke;
    EXPECT_NEAR(q[0][1], 0.2f + r - sink, 2e-4);
    EXPECT_NEAR(q[1][1], 0.25f + r - sink, 2e-4);
    EXPECT_NEAR(q[2][1], 0.2f + r - sink, 2e-4);
    EXPECT_NEAR(q[0][0], 0.1f, 1e-4);
    EXPECT_NEAR(q[1][0], 2.3f, 1e-4);
    EXPECT_NEAR(q[2][2], -0.05f, 1e-4);
}

TEST(SemiImplicit, BentHingeRelaxesToItsRestAngle) {
    REQUIRE_CPU();
    // Two triangles sharing the edge 2-3, flat at rest, opened by 60 degrees.
    ModelBuilder b = bent_hinge(1.0f);
    EXPECT_NEAR(b.edge_rest_angle[0], 0.0f, 1e-6);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 20000, 2e-4f);
    EXPECT_NEAR(hinge_angle(s), 0.0, 0.02);
}

TEST(SemiImplicit, CompressedBlockRecoversItsVolumeAndKeepsMomentum) {
    REQUIRE_CPU();
    ModelBuilder b = squashed_block();
    ASSERT_EQ(b.tet_count_or_zero(), 40);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 4000, 2.5e-4f);
    EXPECT_NEAR(soft_volume(b, s) / 0.008, 1.0, 0.03);
    auto p = momentum(s, b.particle_mass);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p[size_t(k)], 0.0, 1e-4);
}

TEST(SemiImplicit, SpringStepOnTheSimulatorMatchesTheCpu) {
    REQUIRE_CPU();
    runtime::Device sim = runtime::parse_device("sim:h200");
    if (!runtime::device_available(sim)) GTEST_SKIP() << "no sim:h200 device in this build";
    ModelBuilder b;
    b.add_particle(Vec3(0, 1, 0), Vec3(0.1f, 0, 0), 0.0f, 0.05f);
    b.add_particle(Vec3(0, 0.5f, 0.1f), Vec3(0, -1, 0), 0.2f, 0.05f);
    b.add_particle(Vec3(0.3f, 0.04f, 0), Vec3(0, -1, 0), 0.2f, 0.05f);
    b.add_spring(0, 1, 100.0f, 1.0f);
    b.add_spring(1, 2, 50.0f, 0.5f);
    std::vector<std::array<float, 3>> out[2];
    const char* devices[2] = {"cpu", "sim:h200"};
    for (int d = 0; d < 2; ++d) {
        Model m = b.finalize(devices[d]);
        SemiImplicitIntegrator integ;
        out[d] = host_vec3(rollout(m, integ, 3, 1e-3f).particle_q);
    }
    for (size_t i = 0; i < out[0].size(); ++i)
        for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(out[0][i][k], out[1][i][k], 1e-6) << i << "," << k;
}

}  // namespace

namespace {

// The speed clamp (kernels/particles.py): a finite velocity whose |v|^2 overflows float32 is
// scaled to max_velocity along its direction (it once became 0, freezing the particle), and a
// non-finite one stays non-finite so that a run reports it.
TEST(SemiImplicit, SpeedClampKeepsDirectionAndNeverTurnsInfIntoZero) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.gravity = Vec3::Zero();
    b.particle_max_velocity = 10.0f;
    b.add_particle(Vec3(0, 0, 0), Vec3(3e30f, -4e30f, 0), 1.0f);  // |v|^2 = 2.5e61: inf in float32
    b.add_particle(Vec3(0, 0, 0), Vec3(6, 8, 0), 1.0f);           // 10 m/s: at the limit, untouched
    b.add_particle(Vec3(0, 0, 0), Vec3::Zero(), 1.0f);
    Model m = b.finalize("cpu");
    State a = m.state(), s = m.state();
    // add_particle refuses an infinite velocity; give it to the state as a diverged step would
    std::vector<std::array<float, 3>> v0 = {{3e30f, -4e30f, 0}, {6, 8, 0}, {INFINITY, 0, 0}};
    a.particle_qd.copy_from_host(v0.data(), v0.size() * sizeof(v0[0]));
    SemiImplicitIntegrator integ;
    integ.simulate(m, a, s, 0.01f);
    auto v = host_vec3(s.particle_qd);
    EXPECT_NEAR(v[0][0], 6.0, 1e-5);  // 10 m/s along (3, -4, 0) / 5
    EXPECT_NEAR(v[0][1], -8.0, 1e-5);
    EXPECT_EQ(v[0][2], 0.0f);
    EXPECT_NEAR(v[1][0], 6.0, 1e-6);
    EXPECT_NEAR(v[1][1], 8.0, 1e-6);
    EXPECT_FALSE(std::isfinite(v[2][0])) << v[2][0];
}

}  // namespace
