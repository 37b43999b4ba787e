// tests/viewer/renderer_test.cpp: screenshots of scenes with known geometry, checked against the
// camera's projection computed here with Eigen: the objects' pixels are where the projection puts
// them and have their colour (the albedo scaled by the light, the same factor in every channel),
// the background is everywhere else. Not golden images: drivers differ, geometry does not.
#include "viewer/renderer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/integrator_registry.h"
#include "engine/model_builder.h"
#include "runtime/device.h"
#include "tests/viewer/viewer_test_util.h"

namespace weft::viewer {
namespace {

using Eigen::Vector2f;
using Eigen::Vector3f;
using test::ContextKind;

constexpr int kWidth = 320, kHeight = 240;

// Whether pixel p is `albedo` lit by some factor in [lo, hi] (the same in every channel).
::testing::AssertionResult lit_as(const uint8_t* p, const Vector3f& albedo, float lo = 0.3f, float hi = 1.02f) {
    float k[3];
    for (int c = 0; c < 3; ++c) k[c] = float(p[c]) / (255.0f * albedo[c]);
    float kmin = std::min({k[0], k[1], k[2]}), kmax = std::max({k[0], k[1], k[2]});
    if (kmin >= lo && kmax <= hi && kmax - kmin <= 0.06f + 3.0f / (255.0f * albedo.minCoeff()))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "pixel (" << int(p[0]) << ", " << int(p[1]) << ", " << int(p[2])
                                         << ") is not albedo (" << albedo.transpose() << ") lit; factors " << k[0] << " " << k[1]
                                         << " " << k[2];
}

bool is_background(const uint8_t* p, const Vector3f& bg) {
    for (int c = 0; c < 3; ++c)
        if (std::abs(int(p[c]) - int(std::lround(bg[c] * 255.0f))) > 1) return false;
    return true;
}

// The scene: one particle (a sphere of radius 0.3) at (-0.6, 0.8, 0) and a box of half extents
// (0.3, 0.4, 0.25) at (0.7, 0.4, 0.1), rotated 0.4 rad about y; no ground.
struct KnownScene {
    Vector3f ball{-0.6f, 0.8f, 0.0f};
    float ball_radius = 0.3f;
    Vector3f box{0.7f, 0.4f, 0.1f};
    Vector3f half{0.3f, 0.4f, 0.25f};
    Eigen::Quaternionf box_rot{Eigen::AngleAxisf(0.4f, Vector3f::UnitY())};
    Vector3f ball_color{0.2f, 0.8f, 0.3f};
    engine::Model model;
    FrameData frame;

    KnownScene() {
        engine::ModelBuilder b;
        b.add_particle(ball, Vector3f::Zero(), 1.0f, ball_radius);
        b.add_shape_box(box, half.x(), half.y(), half.z(), box_rot);
        b.ground = false;
        model = b.finalize("cpu");
        engine::State s = model.state();
        ColorOptions colors;
        colors.quantity = "none";
        colors.uniform = ball_color;
        frame = snapshot(model, s, engine::model_renderables(model), {}, colors);
    }
};

class RendererTest : public ::testing::TestWithParam<ContextKind> {};

TEST_P(RendererTest, ObjectsAppearWhereTheProjectionSaysInTheirColour) {
    WEFT_REQUIRE_CPU_DEVICE();
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    KnownScene s;
    OrbitCamera cam;
    cam.target = Vector3f(0.05f, 0.5f, 0.0f);
    cam.distance = 3.5f;
    cam.yaw = 0.3f;
    cam.pitch = 0.25f;
    RenderOptions o;
    Renderer renderer;
    Image img = renderer.render_image(s.frame, cam, kWidth, kHeight, o);
    write_png(test::artifact(std::string("known_scene_") + (GetParam() == ContextKind::Egl ? "egl" : "glfw") + ".png"), img);

    // The sphere: its centre's projection and its silhouette radius in pixels (perspective:
    // the tangent cone's half angle asin(r / D), against the focal length in pixels).
    Vector2f c;
    float depth = 0;
    ASSERT_TRUE(cam.project(s.ball, kWidth, kHeight, c, &depth));
    float focal = 0.5f * kHeight / std::tan(0.5f * cam.fov_y);
    float r_px = focal * std::tan(std::asin(s.ball_radius / (cam.eye() - s.ball).norm()));
    ASSERT_GT(r_px, 15.0f);
    Vector3f box_color = shape_color(0);

    // The box's silhouette: a pixel is inside if its ray hits the oriented box (slab test).
    Eigen::Matrix3f rot = s.box_rot.toRotationMatrix();
    auto hits_box = [&](float x, float y, float shrink) {
        Ray ray = cam.ray(x, y, kWidth, kHeight);
        Vector3f o = rot.transpose() * (ray.origin - s.box), d = rot.transpose() * ray.direction;
        float t0 = -INFINITY, t1 = INFINITY;
        for (int k = 0; k < 3; ++k) {
            float h = s.half[k] * shrink;
            float a = (-h - o[k]) / d[k], b = (h - o[k]) / d[k];
            t0 = std::max(t0, std::min(a, b));
            t1 = std::min(t1, std::max(a, b));
        }
        return t0 <= t1 && t1 > 0;
    };
    int ball_pixels = 0, box_pixels = 0, background_pixels = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            const uint8_t* p = img.pixel(x, y);
            float px = float(x) + 0.5f, py = float(y) + 0.5f;
            float dc = (Vector2f(px, py) - c).norm();
            if (dc < r_px - 2.0f) {  // inside the sphere's disc (the box is behind it, or beside)
                ASSERT_TRUE(lit_as(p, s.ball_color)) << "sphere pixel " << x << ", " << y;
                ++ball_pixels;
            } else if (dc > r_px + 2.0f && hits_box(px, py, 0.97f) && !hits_box(px, py, 0.0f)) {
                ASSERT_TRUE(lit_as(p, box_color)) << "box pixel " << x << ", " << y;
                ++box_pixels;
            } else if (dc > r_px + 2.0f && !hits_box(px, py, 1.03f)) {
                ASSERT_TRUE(is_background(p, o.background)) << "background pixel " << x << ", " << y << " is (" << int(p[0])
                                                            << ", " << int(p[1]) << ", " << int(p[2]) << ")";
                ++background_pixels;
            }
        }
    EXPECT_GT(ball_pixels, 1000);
    EXPECT_GT(box_pixels, 2000);
    EXPECT_GT(background_pixels, kWidth * kHeight / 2);
}

TEST_P(RendererTest, MovingTheParticleMovesItsPixels) {
    WEFT_REQUIRE_CPU_DEVICE();
    // The same check from another side: a particle moved by 0.5 m shows at the new projection and
    // leaves background where it was (a renderer that ignores positions fails here).
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    KnownScene s;
    OrbitCamera cam;
    cam.target = Vector3f(0, 0.8f, 0);
    cam.distance = 3.0f;
    cam.yaw = -0.5f;
    cam.pitch = 0.1f;
    Renderer renderer;
    for (float dx : {0.0f, 0.5f}) {
        FrameData f = s.frame;
        f.meshes.clear();
        f.particles[0].positions[0] += Vector3f(dx, 0, 0);
        f.serial = 0;  // changed by hand: not the snapshot it was
        Image img = renderer.render_image(f, cam, kWidth, kHeight);
        Vector2f now, before;
        ASSERT_TRUE(cam.project(f.particles[0].positions[0], kWidth, kHeight, now));
        ASSERT_TRUE(cam.project(s.ball + Vector3f(0.5f - dx, 0, 0), kWidth, kHeight, before));
        EXPECT_TRUE(lit_as(img.pixel(int(now.x()), int(now.y())), s.ball_color));
        EXPECT_TRUE(is_background(img.pixel(int(before.x()), int(before.y())), RenderOptions().background));
    }
}

TEST_P(RendererTest, GroundReceivesTheParticleShadow) {
    WEFT_REQUIRE_CPU_DEVICE();
    // With the light straight above, the ground under a particle is darker than the ground beside it.
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    engine::ModelBuilder b;
    b.add_particle(Vector3f(0, 0.6f, 0), Vector3f::Zero(), 1.0f, 0.25f);
    engine::Model model = b.finalize("cpu");
    engine::State st = model.state();
    FrameData f = snapshot(model, st, engine::model_renderables(model), {});
    OrbitCamera cam;
    cam.target = Vector3f(0, 0.3f, 0);
    cam.distance = 3.0f;
    cam.pitch = 0.7f;
    cam.yaw = 0.0f;
    RenderOptions o;
    o.light_direction = Vector3f(0, 1, 0);
    Renderer renderer;
    Image img = renderer.render_image(f, cam, kWidth, kHeight, o);
    write_png(test::artifact(std::string("shadow_") + (GetParam() == ContextKind::Egl ? "egl" : "glfw") + ".png"), img);
    // A ground point inside the sphere's shadow disc (radius 0.25 m under it) that the sphere does
    // not hide from the camera (its ray misses the sphere), and one 0.6 m beside it; both off the
    // grid lines.
    Vector2f under, beside;
    ASSERT_TRUE(cam.project(Vector3f(0.1f, 0, -0.15f), kWidth, kHeight, under));
    ASSERT_TRUE(cam.project(Vector3f(0.6f, 0, -0.15f), kWidth, kHeight, beside));
    const uint8_t* u = img.pixel(int(under.x()), int(under.y()));
    const uint8_t* v = img.pixel(int(beside.x()), int(beside.y()));
    EXPECT_TRUE(lit_as(u, o.ground_color, 0.3f, 0.5f)) << "in shadow";
    EXPECT_TRUE(lit_as(v, o.ground_color, 0.7f, 1.02f)) << "lit";
}

TEST_P(RendererTest, SurfacesAreLitOnBothSidesInTheirOwnColours) {
    // A 1 m square surface at y = 0.5 wound counter-clockwise seen from above (+y): from above its
    // pixels are the front colour, from below the back colour, both lit (the back uses the
    // flipped normal, so the light from above does not leave it black: ambient at least).
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    FrameData f;
    f.ground = false;
    MeshData m;
    m.positions = {{-0.5f, 0.5f, -0.5f}, {0.5f, 0.5f, -0.5f}, {-0.5f, 0.5f, 0.5f}, {0.5f, 0.5f, 0.5f}};
    m.normals.assign(4, Vector3f(0, 1, 0));
    m.indices = {0, 2, 1, 1, 2, 3};
    m.color = Vector3f(0.30f, 0.55f, 0.85f);
    m.back_color = Vector3f(0.85f, 0.45f, 0.30f);
    f.meshes.push_back(m);
    Renderer renderer;
    for (float pitch : {0.8f, -0.8f}) {
        OrbitCamera cam;
        cam.target = Vector3f(0, 0.5f, 0);
        cam.distance = 2.0f;
        cam.pitch = pitch;
        Image img = renderer.render_image(f, cam, kWidth, kHeight);
        Vector2f c;
        ASSERT_TRUE(cam.project(cam.target, kWidth, kHeight, c));
        const uint8_t* p = img.pixel(int(c.x()), int(c.y()));
        EXPECT_TRUE(lit_as(p, pitch > 0 ? m.color : m.back_color)) << "pitch " << pitch;
        EXPECT_TRUE(is_background(img.pixel(2, 2), RenderOptions().background));
    }
}

TEST_P(RendererTest, VolumesAbsorbAlongTheEyeRayThroughTheirValues) {
    // A 1 m cube of 8^3 cells at (-0.5, 0, -0.5)..(0.5, 1, 0.5): the cells with x > 0 hold 2 (the
    // largest value, drawn fully dense), the others 0. A pixel whose eye ray crosses the box only
    // where x > 0.2 must be background kept exp(-sigma L) plus the medium's colour for the rest,
    // L the ray's length in the box (slab test here); one whose ray stays at x < -0.2 must be the
    // background. A renderer that ignored the values, their positions or the path length fails.
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    FrameData f;
    f.ground = false;
    VolumeData v;
    v.dims = {8, 8, 8};
    v.origin = Vector3f(-0.5f, 0, -0.5f);
    v.cell = 0.125f;
    v.values.assign(512, 0.0f);
    for (int k = 0; k < 8; ++k)
        for (int j = 0; j < 8; ++j)
            for (int i = 4; i < 8; ++i) v.values[size_t((k * 8 + j) * 8 + i)] = 2.0f;
    v.value_hi = 2.0f;
    f.volumes.push_back(v);
    const float sigma = v.sigma();
    ASSERT_FLOAT_EQ(sigma, kVolumeOpacity);
    OrbitCamera cam;
    cam.target = Vector3f(0, 0.5f, 0);
    cam.distance = 3.0f;
    cam.yaw = 0.5f;
    cam.pitch = 0.35f;
    RenderOptions o;
    Renderer renderer;
    Image img = renderer.render_image(f, cam, kWidth, kHeight, o);
    write_png(test::artifact(std::string("volume_") + (GetParam() == ContextKind::Egl ? "egl" : "glfw") + ".png"), img);
    const Vector3f lo = v.origin, hi = v.origin + Vector3f::Constant(1.0f);
    int dense = 0, empty = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            // The ray through the pixel's four corners: all must stay on one side, well inside.
            float lengths[4];
            bool dense_side = true, empty_side = true, inside = true;
            for (int c = 0; c < 4; ++c) {
                Ray ray = cam.ray(float(x) + float(c & 1), float(y) + float(c >> 1), kWidth, kHeight);
                float t0 = 0, t1 = INFINITY;
                for (int k = 0; k < 3; ++k) {
                    float a = (lo[k] - ray.origin[k]) / ray.direction[k], b = (hi[k] - ray.origin[k]) / ray.direction[k];
                    t0 = std::max(t0, std::min(a, b));
                    t1 = std::min(t1, std::max(a, b));
                }
                inside = inside && t1 > t0 + 0.05f;
                lengths[c] = t1 > t0 ? t1 - t0 : 0.0f;
                for (float t : {t0, t1}) {
                    float px = ray.origin.x() + t * ray.direction.x();
                    dense_side = dense_side && px > 0.2f;
                    empty_side = empty_side && px < -0.2f;
                }
            }
            if (!inside) continue;
            const uint8_t* p = img.pixel(x, y);
            if (dense_side) {
                float lmin = *std::min_element(lengths, lengths + 4), lmax = *std::max_element(lengths, lengths + 4);
                for (int c = 0; c < 3; ++c) {
                    // The pixel averages the medium over its area: between the corners' values.
                    float a = o.background[c] * std::exp(-sigma * lmin) + v.color[c] * (1 - std::exp(-sigma * lmin));
                    float b = o.background[c] * std::exp(-sigma * lmax) + v.color[c] * (1 - std::exp(-sigma * lmax));
                    float got = float(p[c]) / 255.0f;
                    ASSERT_GE(got, std::min(a, b) - 3.0f / 255) << "pixel " << x << ", " << y << " channel " << c;
                    ASSERT_LE(got, std::max(a, b) + 3.0f / 255) << "pixel " << x << ", " << y << " channel " << c;
                }
                ++dense;
            } else if (empty_side) {
                ASSERT_TRUE(is_background(p, o.background)) << "empty-side pixel " << x << ", " << y;
                ++empty;
            }
        }
    EXPECT_GT(dense, 500);
    EXPECT_GT(empty, 500);
}

// A bent 12 x 12 cloth (particles of varied speed, triangles, springs) over the ground.
engine::Model bent_cloth() {
    engine::ModelBuilder b;
    const int n = 12;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            float x = -0.6f + 1.2f * float(i) / float(n - 1), z = -0.6f + 1.2f * float(j) / float(n - 1);
            Vector3f v(std::sin(3.0f * x), float(i * j % 5), 0.5f * z);
            b.add_particle(Vector3f(x, 0.6f + 0.25f * std::sin(4.0f * x) * std::cos(3.0f * z), z), v, 1.0f, 0.03f);
        }
    for (int j = 0; j + 1 < n; ++j)
        for (int i = 0; i + 1 < n; ++i) {
            int a = j * n + i;
            b.add_triangle(a, a + n, a + 1);
            b.add_triangle(a + 1, a + n, a + n + 1);
            b.add_spring(a, a + 1, 10.0f, 0.0f);
            b.add_spring(a, a + n, 10.0f, 0.0f);
        }
    return b.finalize("cpu");
}

TEST_P(RendererTest, VertexArraysDrawWhatHostVectorsDraw) {
    // The window's path (snapshot with vertex arrays: colours, the scene's box and the surface's
    // normals made by the GPU) against the host path (all of it computed here on the host): the
    // same pixels within rounding. Wrong GPU normals, colour map or range change whole regions.
    WEFT_REQUIRE_CPU_DEVICE();
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    engine::Model model = bent_cloth();
    engine::State st = model.state();
    FrameData host = snapshot(model, st, engine::model_renderables(model), {});
    FrameData arrays = snapshot(model, st, engine::model_renderables(model), {}, {}, nullptr, true);
    ASSERT_TRUE(arrays.has_vertex_arrays());
    ASSERT_TRUE(arrays.meshes[0].positions.empty() && arrays.meshes[0].position_array);
    OrbitCamera cam;
    cam.target = Vector3f(0, 0.5f, 0);
    cam.distance = 2.2f;
    cam.pitch = 0.6f;
    cam.yaw = 0.4f;
    Renderer renderer;
    Image a = renderer.render_image(host, cam, kWidth, kHeight);
    EXPECT_FLOAT_EQ(renderer.last_value_ranges().at(0), host.particles[0].value_hi);
    Image b = renderer.render_image(arrays, cam, kWidth, kHeight);
    EXPECT_NEAR(renderer.last_value_ranges().at(0), host.particles[0].value_hi, 1e-6f * host.particles[0].value_hi);
    const std::string kind = GetParam() == ContextKind::Egl ? "egl" : "glfw";
    write_png(test::artifact("cloth_host_" + kind + ".png"), a);
    write_png(test::artifact("cloth_arrays_" + kind + ".png"), b);
    int differ = 0, cloth = 0, worst = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x) {
            const uint8_t *p = a.pixel(x, y), *q = b.pixel(x, y);
            int d = 0;
            for (int c = 0; c < 3; ++c) d = std::max(d, std::abs(int(p[c]) - int(q[c])));
            worst = std::max(worst, d);
            differ += d > 2;
            cloth += !is_background(p, RenderOptions().background);
        }
    EXPECT_GT(cloth, kWidth * kHeight / 10);
    EXPECT_LE(differ, kWidth * kHeight / 1000) << "worst channel difference " << worst;
}

TEST_P(RendererTest, CudaArraysAreDrawnThroughInteropAsHostVectorsAre) {
    // On a GPU: the cloth's State on cuda:0, snapshot as device arrays (copies on the device) and
    // drawn through CUDA-OpenGL interop, against the host snapshot of the same State.
    const runtime::Device gpu = runtime::parse_device("cuda:0");
    if (!runtime::device_available(gpu)) GTEST_SKIP() << "no CUDA GPU here (device cuda:0 is not available)";
    WEFT_REQUIRE_CONTEXT(GetParam(), ctx);
    engine::ModelBuilder b;
    for (int j = 0; j < 40; ++j)
        for (int i = 0; i < 40; ++i)
            b.add_particle(
                Vector3f(-0.6f + 0.03f * float(i), 0.6f + 0.2f * std::sin(0.3f * float(i + j)), -0.6f + 0.03f * float(j)),
                Vector3f(0.1f * float(i % 7), 0.2f * float(j % 3), 0), 1.0f, 0.015f);
    for (int j = 0; j + 1 < 40; ++j)
        for (int i = 0; i + 1 < 40; ++i) {
            int a = j * 40 + i;
            b.add_triangle(a, a + 40, a + 1);
            b.add_triangle(a + 1, a + 40, a + 41);
            b.add_spring(a, a + 1, 10.0f, 0.0f);
        }
    engine::Model model = b.finalize("cuda:0");
    engine::State st = model.state();
    FrameData host = snapshot(model, st, engine::model_renderables(model), {});
    FrameData arrays = snapshot(model, st, engine::model_renderables(model), {}, {}, nullptr, true);
    ASSERT_TRUE(arrays.particles.at(0).position_array->device.valid());
    OrbitCamera cam;
    cam.target = Vector3f(0, 0.5f, 0);
    cam.distance = 2.2f;
    cam.pitch = 0.6f;
    Renderer renderer;
    Image a = renderer.render_image(host, cam, kWidth, kHeight);
    Image c = renderer.render_image(arrays, cam, kWidth, kHeight);
    EXPECT_NEAR(renderer.last_value_ranges().at(0), host.particles[0].value_hi, 1e-6f * host.particles[0].value_hi);
    write_png(test::artifact(std::string("cuda_arrays_") + (GetParam() == ContextKind::Egl ? "egl" : "glfw") + ".png"), c);
    int differ = 0;
    for (int y = 0; y < kHeight; ++y)
        for (int x = 0; x < kWidth; ++x)
            for (int k = 0; k < 3; ++k) differ += std::abs(int(a.pixel(x, y)[k]) - int(c.pixel(x, y)[k])) > 2;
    EXPECT_LE(differ, kWidth * kHeight / 1000);
}

INSTANTIATE_TEST_SUITE_P(Contexts, RendererTest, ::testing::Values(ContextKind::Egl, ContextKind::GlfwHidden), test::kind_name);

}  // namespace
}  // namespace weft::viewer
