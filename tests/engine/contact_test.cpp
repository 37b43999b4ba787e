// Contacts: momentum conservation of particle-particle collisions through the hash grid, resting
// on static shapes at the distance their signed distance gives, the dihedral bending and
// neo-Hookean tetrahedra relaxing to rest, and bit-identical results for 1 and 4 CPU threads.
#include <cmath>
#include <cstring>

#include "engine/particle_grid.h"
#include "runtime/cpu/thread_pool.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

std::array<double, 3> momentum(const Model& m, const State& s, const std::vector<float>& mass) {
    auto v = host_vec3(s.particle_qd);
    std::array<double, 3> p{0, 0, 0};
    for (size_t i = 0; i < v.size(); ++i)
        for (int k = 0; k < 3; ++k) p[size_t(k)] += double(mass[i]) * v[i][size_t(k)];
    return p;
}

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
    auto p0 = momentum(m, s0, b.particle_mass);
    State s = rollout(m, integ, 1000, 5e-4f);
    auto p1 = momentum(m, s, b.particle_mass);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(p1[size_t(k)], p0[size_t(k)], 1e-4) << "component " << k;
    auto v = host_vec3(s.particle_qd);
    EXPECT_LT(v[0][0], 0.0f);  // the light particle bounced back
    EXPECT_GT(v[1][0], -1.0f); // the heavy one was slowed down
    EXPECT_EQ(particle_grid_dropped(m, s.grid_bucket_count), 0);
}

TEST(Contact, ParticlesRestOnStaticShapes) {
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
    b.add_shape_plane(Eigen::Vector4f(0, 1, 0, 1.0f));  // y = -1
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

TEST(Bending, BentHingeRelaxesToItsRestAngle) {
    REQUIRE_CPU();
    // Two triangles sharing the edge 2-3, flat at rest, opened by 60 degrees.
    for (int solver = 0; solver < 2; ++solver) {
        ModelBuilder b(0.0f);
        b.ground = false;
        int i = b.add_particle(Vec3(0, 0, -0.5f), Vec3::Zero(), 0.1f);
        int j = b.add_particle(Vec3(0, 0, 0.5f), Vec3::Zero(), 0.1f);
        int k = b.add_particle(Vec3(-0.5f, 0, 0), Vec3::Zero(), 0.0f);
        int l = b.add_particle(Vec3(0.5f, 0, 0), Vec3::Zero(), 0.0f);
        b.add_edge(i, j, k, l, NAN, solver == 0 ? 1.0f : 100.0f, 0.5f);
        EXPECT_NEAR(b.edge_rest_angle[0], 0.0f, 1e-6);
        b.particle_q[size_t(j)] = Vec3(0, 0.5f * std::sin(float(M_PI) / 3), 0.5f * std::cos(float(M_PI) / 3));
        Model m = b.finalize("cpu");
        auto angle = [&](const State& s) {
            auto q = host_vec3(s.particle_q);
            // flat when the elevations of the two wings above their half planes cancel
            return std::atan2(q[size_t(j)][1], q[size_t(j)][2]) + std::atan2(q[size_t(i)][1], -q[size_t(i)][2]);
        };
        State s;
        if (solver == 0) {
            SemiImplicitIntegrator integ;
            s = rollout(m, integ, 20000, 2e-4f);
            EXPECT_NEAR(angle(s), 0.0, 0.02) << "semi-implicit";
        } else {
            // XPBD bending has no damping: the hinge oscillates about its rest angle with an
            // amplitude that must not grow; its mean over the last 2 s is the rest angle.
            XPBDIntegrator integ(4);
            double mean = 0, peak = 0;
            rollout(m, integ, 400, 1e-2f, [&](int step, const State& st) {
                double a = angle(st);
                if (step > 200) mean += a / 200;
                peak = std::max(peak, std::abs(a));
            });
            EXPECT_NEAR(mean, 0.0, 0.02) << "xpbd";
            EXPECT_LT(peak, M_PI / 3 + 0.01) << "xpbd";
        }
    }
}

double soft_volume(const ModelBuilder& b, const State& s) {
    auto q = host_vec3(s.particle_q);
    double vol = 0;
    for (const auto& t : b.tet_indices) {
        Eigen::Vector3d x0(q[size_t(t[0])][0], q[size_t(t[0])][1], q[size_t(t[0])][2]);
        Eigen::Matrix3d D;
        for (int c = 0; c < 3; ++c)
            D.col(c) = Eigen::Vector3d(q[size_t(t[size_t(c + 1)])][0], q[size_t(t[size_t(c + 1)])][1], q[size_t(t[size_t(c + 1)])][2]) - x0;
        vol += D.determinant() / 6.0;
    }
    return vol;
}

TEST(Tetrahedra, CompressedBlockRecoversItsVolumeAndKeepsMomentum) {
    REQUIRE_CPU();
    for (int solver = 0; solver < 2; ++solver) {
        ModelBuilder b(0.0f);
        b.ground = false;
        SoftGridDef d;
        d.dim_x = d.dim_y = d.dim_z = 2;
        d.cell_x = d.cell_y = d.cell_z = 0.1f;
        d.density = 100.0f;
        d.k_mu = 2e3f;
        d.k_lambda = 1e4f;
        d.k_damp = 2.0f;
        b.add_soft_grid(d);
        ASSERT_EQ(b.tet_count_or_zero(), 40);
        for (auto& p : b.particle_q) p.y() *= 0.8f;  // squash along y
        Model m = b.finalize("cpu");
        State s;
        if (solver == 0) {
            SemiImplicitIntegrator integ;
            s = rollout(m, integ, 4000, 2.5e-4f);
        } else {
            XPBDIntegrator integ(8, 1.0f);
            s = rollout(m, integ, 100, 1e-2f);
        }
        EXPECT_NEAR(soft_volume(b, s) / 0.008, 1.0, 0.03) << (solver == 0 ? "semi-implicit" : "xpbd");
        auto p = momentum(m, s, b.particle_mass);
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(p[size_t(k)], 0.0, 1e-4);
    }
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

uint64_t hash_state(const State& s) {
    auto q = host_vec3(s.particle_q);
    auto v = host_vec3(s.particle_qd);
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t n) {
        const unsigned char* c = static_cast<const unsigned char*>(p);
        for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    };
    mix(q.data(), q.size() * 12);
    mix(v.data(), v.size() * 12);
    return h;
}

TEST(Determinism, SameBitsWithOneAndFourThreads) {
    REQUIRE_CPU();
    // Cloth (triangles, bending, springs) falling on a pile of contacting particles and a sphere.
    ModelBuilder b;
    b.particle_contact = true;
    ClothGridDef c;
    c.dim_x = c.dim_y = 12;
    c.cell_x = c.cell_y = 0.05f;
    c.pos = Vec3(-0.3f, 0.6f, 0.3f);
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
    c.add_springs = true;
    c.particle_radius = 0.02f;
    b.add_cloth_grid(c);
    for (int k = 0; k < 64; ++k) b.add_particle(Vec3(0.04f * float(k % 4), 0.3f + 0.04f * float(k / 16), 0.04f * float((k / 4) % 4)), Vec3::Zero(), 0.01f, 0.02f);
    b.add_shape_sphere(Vec3(0, 0, 0), 0.2f);
    Model m = b.finalize("cpu");
    uint64_t hashes[2][2];
    for (int t = 0; t < 2; ++t) {
        runtime::set_cpu_threads(t == 0 ? 1 : 4);
        SemiImplicitIntegrator si;
        hashes[0][t] = hash_state(rollout(m, si, 200, 1e-3f));
        XPBDIntegrator xp(3);
        hashes[1][t] = hash_state(rollout(m, xp, 50, 4e-3f));
    }
    runtime::set_cpu_threads(0);
    EXPECT_EQ(hashes[0][0], hashes[0][1]) << "semi-implicit";
    EXPECT_EQ(hashes[1][0], hashes[1][1]) << "xpbd";
}

TEST(Devices, SpringStepOnTheSimulatorMatchesTheCpu) {
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
