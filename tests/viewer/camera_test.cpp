// tests/viewer/camera_test.cpp: the orbit camera's projection against its own ray (a round trip),
// against the pinhole model computed by hand, and the mouse operations' invariants.
#include "viewer/camera.h"

#include <gtest/gtest.h>

#include <cmath>

namespace weft::viewer {
namespace {

using Eigen::Vector2f;
using Eigen::Vector3f;

TEST(CameraTest, TargetProjectsToTheImageCentreAndRaysRoundTrip) {
    OrbitCamera cam;
    cam.target = Vector3f(1, 2, 3);
    Vector2f p;
    float depth = 0;
    ASSERT_TRUE(cam.project(cam.target, 640, 480, p, &depth));
    EXPECT_NEAR(p.x(), 320.0f, 1e-3f);
    EXPECT_NEAR(p.y(), 240.0f, 1e-3f);
    EXPECT_NEAR(depth, cam.distance, 1e-4f);
    for (Vector3f w : {Vector3f(0, 0, 0), Vector3f(2, 2.5f, 3.3f), Vector3f(0.5f, 1.5f, 2.0f)}) {
        ASSERT_TRUE(cam.project(w, 640, 480, p));
        Ray r = cam.ray(p.x(), p.y(), 640, 480);
        // The ray through the point's pixel passes through the point.
        Vector3f to = w - r.origin;
        EXPECT_LT((to - to.dot(r.direction) * r.direction).norm(), 1e-4f * to.norm());
    }
}

TEST(CameraTest, MatchesThePinholeModel) {
    // Looking down -z from +z (yaw 0, pitch 0): a point at height h, depth D appears h f / D
    // pixels above the centre, f = (H / 2) / tan(fov / 2); x to the right is +x.
    OrbitCamera cam;
    cam.target = Vector3f::Zero();
    cam.yaw = 0;
    cam.pitch = 0;
    cam.distance = 5;
    float f = 240.0f / std::tan(0.5f * cam.fov_y);
    Vector2f p;
    ASSERT_TRUE(cam.project(Vector3f(0.4f, 0.3f, -1.0f), 640, 480, p));
    EXPECT_NEAR(p.x(), 320.0f + 0.4f * f / 6.0f, 1e-3f);
    EXPECT_NEAR(p.y(), 240.0f - 0.3f * f / 6.0f, 1e-3f);
    EXPECT_FALSE(cam.project(Vector3f(0, 0, 6.0f), 640, 480, p));  // behind the eye
}

TEST(CameraTest, OrbitKeepsDistancePanMovesTargetZoomScales) {
    OrbitCamera cam;
    float d = cam.distance;
    cam.orbit(100, 30);
    EXPECT_NEAR((cam.eye() - cam.target).norm(), d, 1e-4f);
    cam.orbit(0, 1e6f);
    EXPECT_LT(cam.pitch, 1.5708f);  // clamped short of the pole
    // Panning by a quarter of the window's height moves the target's projection by as much.
    OrbitCamera before = cam;
    cam.pan(0, 120, 480);
    Vector2f p;
    ASSERT_TRUE(before.project(cam.target, 640, 480, p));
    EXPECT_NEAR(p.y(), 240.0f - 120.0f, 0.5f);
    cam.zoom(1);
    EXPECT_NEAR(cam.distance, 0.9f * d, 1e-4f);
    cam.zoom(-1000);
    EXPECT_LE(cam.distance, 1e5f);
}

TEST(CameraTest, FitKeepsTheBoxInView) {
    OrbitCamera cam;
    Vector3f lo(-3, 0, -1), hi(5, 2, 1);
    cam.fit(lo, hi);
    for (int k = 0; k < 8; ++k) {
        Vector3f corner((k & 1) ? hi.x() : lo.x(), (k & 2) ? hi.y() : lo.y(), (k & 4) ? hi.z() : lo.z());
        Vector2f p;
        ASSERT_TRUE(cam.project(corner, 400, 400, p));
        EXPECT_GT(p.x(), 0);
        EXPECT_LT(p.x(), 400);
        EXPECT_GT(p.y(), 0);
        EXPECT_LT(p.y(), 400);
    }
}

}  // namespace
}  // namespace weft::viewer
