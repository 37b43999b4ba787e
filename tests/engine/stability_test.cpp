// engine/stability.h: the explicit rule's terms against their formulas, the worst spring named,
// and every shipped scene of an explicit solver within the limit.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "engine/stability.h"

namespace {

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
