// tests/viewer/picking_test.cpp: clicks through the camera onto particles: the pixel a particle
// projects to picks it, the front one of two in line wins, a miss picks nothing.
#include "viewer/picking.h"

#include <gtest/gtest.h>

namespace weft::viewer {
namespace {

using Eigen::Vector2f;
using Eigen::Vector3f;

FrameData particles(const std::vector<Vector3f>& at, float radius) {
    FrameData f;
    ParticleData p;
    p.positions = at;
    p.radius.assign(at.size(), radius);
    p.colors.assign(at.size(), Vector3f::Ones());
    f.particles.push_back(p);
    return f;
}

TEST(PickingTest, ProjectedCentrePicksTheParticle) {
    OrbitCamera cam;
    FrameData f = particles({{0, 0.5f, 0}, {1, 1, -1}, {-1, 0.2f, 0.5f}}, 0.05f);
    for (int i = 0; i < 3; ++i) {
        Vector2f px;
        ASSERT_TRUE(cam.project(f.particles[0].positions[size_t(i)], 800, 600, px));
        Pick p = pick_particle(cam.ray(px.x(), px.y(), 800, 600), f);
        EXPECT_EQ(p.group, 0);
        EXPECT_EQ(p.particle, i);
        EXPECT_NEAR(p.distance, (cam.eye() - f.particles[0].positions[size_t(i)]).norm() - 0.05f, 1e-3f);
    }
    // A pixel well away from every particle.
    EXPECT_EQ(pick_particle(cam.ray(2, 2, 800, 600), f).particle, -1);
}

TEST(PickingTest, VertexArraysPickAsHostVectorsDo) {
    FrameData host = particles({{-0.5f, 0, 0}, {0.5f, 0, 0}, {0, 0.5f, -1}}, 0.2f);
    FrameData arrays;
    ParticleData p;
    auto x = std::make_shared<VertexArray>();
    x->count = 3, x->width = 3, x->host = {-0.5f, 0, 0, 0.5f, 0, 0, 0, 0.5f, -1};
    auto r = std::make_shared<VertexArray>();
    r->count = 3, r->width = 1, r->host = {0.2f, 0.2f, 0.2f};
    p.position_array = x;
    p.radius_array = r;
    arrays.particles.push_back(p);
    OrbitCamera cam;
    cam.distance = 4.0f;
    for (int k = 0; k < 3; ++k) {
        Vector2f px;
        ASSERT_TRUE(cam.project(host.particles[0].positions[size_t(k)], 200, 100, px));
        Ray ray = cam.ray(px.x(), px.y(), 200, 100);
        Pick a = pick_particle(ray, host), b = pick_particle(ray, arrays);
        EXPECT_EQ(a.particle, k);
        EXPECT_EQ(b.particle, k);
        EXPECT_FLOAT_EQ(a.distance, b.distance);
        EXPECT_EQ(describe_pick(a, host, {}), describe_pick(b, arrays, {}));
    }
}

TEST(PickingTest, TheNearerOfTwoInLineWins) {
    OrbitCamera cam;
    Vector3f a = cam.target, dir = (cam.target - cam.eye()).normalized();
    FrameData f = particles({a + 0.5f * dir, a}, 0.1f);  // index 0 is behind index 1
    Pick p = pick_particle(cam.ray(400, 300, 800, 600), f);
    EXPECT_EQ(p.particle, 1);
    std::string text = describe_pick(p, f, {Vector3f(0, 0, 0), Vector3f(1, 2, 3)});
    EXPECT_NE(text.find("particle 1: position"), std::string::npos) << text;
    EXPECT_NE(text.find("velocity (1.000, 2.000, 3.000) m/s"), std::string::npos) << text;
}

}  // namespace
}  // namespace weft::viewer
