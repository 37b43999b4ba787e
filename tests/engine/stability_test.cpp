// engine/stability.h: the explicit rule's terms against their formulas, the worst spring named,
// the triangles' and tetrahedra's estimate against the step size at which a semi-implicit run of
// them actually diverges (found by bisection), and every shipped scene of an explicit solver within
// the limit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "engine/semi_implicit.h"
#include "engine/stability.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;

TEST(Stability, SpringsAndContactPastTheLimit) {
    ModelBuilder b;
    b.ground = true;
    b.soft_contact_ke = 1e3f;
    b.soft_contact_kd = 10.0f;
    b.soft_contact_kf = 500.0f;  // kf dt / m = 500 * 0.01 / 2 = 2.5
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 0.0f);
    b.add_particle(Vec3(0.3f, 1, 0), Vec3::Zero(), 2.0f);
    b.add_particle(Vec3(0.6f, 1, 0), Vec3::Zero(), 4.0f);
    b.add_spring(0, 1, 1e5f, 1.0f);   // sqrt(1e5 / 2) 0.01 = 2.236
    b.add_spring(1, 2, 4e5f, 10.0f);  // sqrt(4e5 / 2) 0.01 = 4.472 (the lighter end)
    Model m = b.finalize("cpu");
    auto v = explicit_stability_violations(m, 0.01f);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].force, "ground and shape contact");
    EXPECT_EQ(v[0].term, "kf dt/m");
    EXPECT_NEAR(v[0].value, 2.5, 1e-6);
    EXPECT_EQ(v[0].message(), "ground and shape contact: kf dt/m = 2.5 >= 2 (kf 500 N s/m, m 2 kg, dt 0.01 s)");
    EXPECT_EQ(v[1].force, "spring 1 (particles 1, 2)");
    EXPECT_NEAR(v[1].value, std::sqrt(4e5 / 2) * 0.01, 1e-4);
    EXPECT_EQ(v[1].message(), "spring 1 (particles 1, 2): sqrt(ke/m) dt = 4.47 >= 2 (ke 4e+05 N/m, m 2 kg, dt 0.01 s)");
    EXPECT_TRUE(explicit_stability_violations(m, 0.004f).empty()) << "kf: 1.0, springs: 1.79";
}

// A particle on a body's shape meets the mean of soft_contact_* and the shape's material (Warp's
// rule): the default shape kd of 1000 N s/m makes (10 + 1000) / 2 = 505 for 10 g at 0.5 ms.
TEST(Stability, BodyShapeMaterialIsAveragedIn) {
    ModelBuilder b;
    b.soft_contact_kf = 10.0f;
    int body = b.add_body(Vec3(0, 0.1f, 0));
    b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);  // ke 1e5, kd 1e3, kf 1e3
    ShapeParams soft;
    soft.kd = soft.kf = 10.0f;
    b.add_shape_sphere(body, Vec3(0, 0.3f, 0), Quat::Identity(), 0.05f, soft);
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 0.01f);
    Model m = b.finalize("cpu");
    auto v = explicit_stability_violations(m, 5e-4f);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].message(),
              "particle contact with shape 0 (its material averaged in): kd dt/m = 25.3 >= 2 (kd 505 N s/m, m 0.01 kg, dt "
              "0.0005 s)");
    EXPECT_EQ(v[1].term, "kf dt/m");
    EXPECT_NEAR(v[1].value, 505 * 5e-4 / 0.01, 1e-3);
    EXPECT_TRUE(explicit_stability_violations(m, 2e-5f).empty());
}

// Adds scale * (u - 0.5), u uniform in [0, 1) from a fixed pseudo-random stream of `seed`, to every
// component: the perturbed positions (every mode of the system starts excited) and velocities of
// the tests below.
void add_noise(std::vector<Vec3>& v, float scale, uint32_t seed) {
    for (Vec3& x : v)
        for (int c = 0; c < 3; ++c) {
            seed = seed * 1664525u + 1013904223u;
            x[c] += scale * (float(seed >> 8) / float(1u << 24) - 0.5f);
        }
}

// Moves every particle of the builder by up to 1e-4 m, after the elements' rest shapes were taken.
void perturb(ModelBuilder& b) { add_noise(b.particle_q, 2e-4f, 12345u); }

// A cloth of nx x ny cells of 10 g particles with the membrane's materials only (no bending).
ClothGridDef membrane(int nx, int ny, float tri_ke, float tri_ka, float tri_kd) {
    ClothGridDef d;
    d.dim_x = nx;
    d.dim_y = ny;
    d.mass = 0.01f;
    d.tri_ke = tri_ke;
    d.tri_ka = tri_ka;
    d.tri_kd = tri_kd;
    d.edge_ke = 0.0f;
    return d;
}

// Whether `steps` semi-implicit steps of dt keep every particle within 1 cm of where it started.
bool stays_bounded(const Model& m, float dt, int steps) {
    SemiImplicitIntegrator integ;
    const auto q0 = test::host_vec3(m.particle_q);
    const State s = test::rollout(m, integ, steps, dt);
    const auto q = test::host_vec3(s.particle_q);
    for (size_t i = 0; i < q.size(); ++i)
        for (int c = 0; c < 3; ++c)
            if (!(std::abs(q[i][size_t(c)] - q0[i][size_t(c)]) < 0.01f)) return false;
    return true;
}

// The step size at which the run starts to diverge, as a multiple of `dt0`: bisection between
// `lo` (bounded) and `hi` (not), to 1%.
double divergence_factor(const Model& m, double dt0, double lo, double hi, int steps) {
    EXPECT_TRUE(stays_bounded(m, float(lo * dt0), steps)) << "at " << lo << " x the estimate";
    EXPECT_FALSE(stays_bounded(m, float(hi * dt0), steps)) << "at " << hi << " x the estimate";
    while (hi / lo > 1.01) {
        const double mid = std::sqrt(lo * hi);
        (stays_bounded(m, float(mid * dt0), steps) ? lo : hi) = mid;
    }
    return std::sqrt(lo * hi);
}

// The estimate's limiting step: the dt at which the element term reaches 2, from the term at dt
// (both terms are a rate times dt: the highest frequency, or the highest damping rate).
double limit_dt(const Model& m, const std::string& term) {
    const float dt = 1.0f;  // far past any limit: both terms are reported
    for (const auto& v : explicit_stability_violations(m, dt))
        if (v.term == term) return kExplicitLimit / (v.value / dt);
    ADD_FAILURE() << "no '" << term << "' violation at dt = 1 s";
    return 0;
}

// Free cloth, no gravity, no ground: the membrane alone. Its estimate is the highest frequency of
// the linearised system, so the run must diverge within a few percent of it: below it the symplectic
// step keeps the 1e-4 m perturbation bounded, above it the top mode grows every step.
TEST(Stability, ClothTrianglesDivergeAtTheirEstimate) {
    REQUIRE_CPU();
    for (auto [ke, ka] : {std::pair{1e3f, 1e3f}, {1e4f, 1e2f}, {1e2f, 1e4f}}) {
        ModelBuilder b(0.0f);
        b.ground = false;
        ClothGridDef d = membrane(6, 5, ke, ka, 0.0f);
        d.cell_y = 0.08f;
        b.add_cloth_grid(d);
        perturb(b);
        Model m = b.finalize("cpu");
        const double dt0 = limit_dt(m, "sqrt(lambda_max(M^-1 K)) dt");
        const double f = divergence_factor(m, dt0, 0.8, 1.25, 3000);
        std::printf("[ measured ] triangles, tri_ke %g, tri_ka %g: diverges at %.3f x the estimated limit %.4g s\n", ke, ka, f,
                    dt0);
        EXPECT_NEAR(f, 1.0, 0.04) << "tri_ke " << ke << ", tri_ka " << ka << ": the run diverges at " << f
                                  << " x the estimated limit " << dt0 << " s";
    }
}

// The membrane's damping alone (stiffness negligible): forward-Euler damping is stable while
// lambda_max(M^-1 C) dt < 2.
TEST(Stability, ClothDampingDivergesAtItsEstimate) {
    REQUIRE_CPU();
    ModelBuilder b(0.0f);
    b.ground = false;
    b.add_cloth_grid(membrane(5, 5, 1e-3f, 1e-3f, 20.0f));
    perturb(b);
    add_noise(b.particle_qd, 1e-3f, 7u);  // a velocity to damp
    Model m = b.finalize("cpu");
    const double dt0 = limit_dt(m, "lambda_max(M^-1 C) dt");
    const double f = divergence_factor(m, dt0, 0.8, 1.25, 3000);
    std::printf("[ measured ] triangle damping: diverges at %.3f x the estimated limit %.4g s\n", f, dt0);
    EXPECT_NEAR(f, 1.0, 0.04) << "the run diverges at " << f << " x the estimated limit " << dt0 << " s";
}

// A neo-Hookean block: the same for the tetrahedra, with one face fixed.
TEST(Stability, SoftBodyTetrahedraDivergeAtTheirEstimate) {
    REQUIRE_CPU();
    for (auto [mu, lambda] : {std::pair{1e4f, 1e4f}, {1e3f, 5e4f}}) {
        ModelBuilder b(0.0f);
        b.ground = false;
        SoftGridDef d;
        d.dim_x = 4;
        d.dim_y = 2;
        d.dim_z = 3;
        d.cell_x = d.cell_y = d.cell_z = 0.05f;
        d.k_mu = mu;
        d.k_lambda = lambda;
        d.fix_left = true;
        b.add_soft_grid(d);
        perturb(b);
        Model m = b.finalize("cpu");
        const double dt0 = limit_dt(m, "sqrt(lambda_max(M^-1 K)) dt");
        const double f = divergence_factor(m, dt0, 0.8, 1.25, 3000);
        std::printf("[ measured ] tetrahedra, k_mu %g, k_lambda %g: diverges at %.3f x the estimated limit %.4g s\n", mu, lambda,
                    f, dt0);
        EXPECT_NEAR(f, 1.0, 0.04) << "k_mu " << mu << ", k_lambda " << lambda << ": the run diverges at " << f
                                  << " x the estimated limit " << dt0 << " s";
    }
}

// The messages: the Model's (weft gradcheck) and the scene file's, at the block's key.
TEST(Stability, ElementMessagesNameTheBlockAndTheTerm) {
    ModelBuilder b(0.0f);
    b.ground = false;
    b.add_cloth_grid(membrane(2, 2, 1e4f, 1e4f, 0.0f));
    Model m = b.finalize("cpu");
    auto v = explicit_stability_violations(m, 0.01f);
    ASSERT_EQ(v.size(), 1u) << v[0].message() << "; " << v.back().message();
    EXPECT_EQ(v[0].force, "8 triangles");
    EXPECT_EQ(v[0].term, "sqrt(lambda_max(M^-1 K)) dt");
    EXPECT_EQ(v[0].message().rfind("8 triangles: sqrt(lambda_max(M^-1 K)) dt = ", 0), 0u) << v[0].message();
    EXPECT_NE(v[0].message().find(" >= 2 (highest frequency "), std::string::npos) << v[0].message();

    const std::string scene = R"([simulation]
fps = 60
substeps = 4

[[cloth]]
dim = [4, 4]
cell = [0.1, 0.1]
mass = 0.01
tri_ke = 1e5
tri_ka = 1e5
tri_kd = 50.0

[[soft_body]]
dim = [2, 2, 2]
cell = [0.1, 0.1, 0.1]
pos = [0.0, 1.0, 0.0]
k_mu = 1e3
k_lambda = 1e3

[model]
ground = false
)";
    Scene s = parse_scene(scene, "scenes/x.toml");
    auto w = s.warnings();
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(
        w[0].rfind("scenes/x.toml:11:10: warning: [[cloth]] 'tri_kd' = 50 exceeds the explicit scheme's stability limit: ", 0),
        0u)
        << w[0];
    EXPECT_NE(w[0].find("lambda_max(M^-1 C) dt = "), std::string::npos) << w[0];
    EXPECT_NE(w[0].find(" over the block's 32 triangles and dt = 0.00416667 s (must stay well below 2); raise substeps to "),
              std::string::npos)
        << w[0];
    EXPECT_EQ(
        w[1].rfind("scenes/x.toml:9:10: warning: [[cloth]] 'tri_ke' = 100000 exceeds the explicit scheme's stability limit: ", 0),
        0u)
        << w[1];
    EXPECT_NE(w[1].find("sqrt(lambda_max(M^-1 K)) dt = "), std::string::npos) << w[1];
    EXPECT_NE(w[1].find(" over the block's 32 triangles (with 'tri_ka' = 100000) and dt = "), std::string::npos) << w[1];
    // the soft block's estimates are there, below the limit
    int tets = 0;
    for (const StabilityEstimate& e : s.stability)
        if (e.element_nodes == 4) {
            ++tets;
            EXPECT_LT(e.value, kStabilityLimit) << e.term();
            EXPECT_EQ(e.module, "tetrahedra");
        }
    EXPECT_EQ(tets, 2);
}

TEST(Stability, ShippedScenesOfExplicitSolversAreWithinTheLimit) {
    int checked = 0;
    for (const auto& f : std::filesystem::directory_iterator(std::string(WEFT_SOURCE_DIR) + "/scenes")) {
        if (f.path().extension() != ".toml") continue;
        Scene s = load_scene(f.path().string());
        if (!integrator_info(s.solver).can(IntegratorCaps_Explicit)) continue;
        Model m = s.builder.finalize("cpu");
        for (const auto& v : explicit_stability_violations(m, s.dt())) ADD_FAILURE() << f.path() << ": " << v.message();
        ++checked;
    }
    EXPECT_GE(checked, 7);
    EXPECT_FALSE(integrator_info("xpbd").can(IntegratorCaps_Explicit));
    EXPECT_TRUE(integrator_info("semi_implicit").can(IntegratorCaps_Explicit));
}

}  // namespace
