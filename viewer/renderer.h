// viewer/renderer.h: the OpenGL 3.3 core renderer of a FrameData.
//
// [SECTION] RenderOptions  light, ground grid, shadows, background
// [SECTION] Renderer       render() into the bound framebuffer; render_image() offscreen
//
// A frame is two passes:
//   1. shadow map: every particle and mesh, seen from the directional light through an
//      orthographic box around the scene, into a 2048^2 depth texture;
//   2. colour: the ground grid, meshes (lit on both sides: back faces get their own colour and the
//      flipped normal), particles as instanced sphere impostors (a camera-facing quad per particle
//      whose fragments intersect the eye ray with the sphere and write the sphere's depth, so
//      spheres intersect meshes and each other exactly), then lines.
// Lighting is Lambert with an ambient term and a 3x3 PCF shadow lookup:
//   colour = albedo (ambient + (1 - ambient) max(n.l, 0) lit)
// with no specular and no tone mapping, so a pixel's colour is its albedo scaled, which the
// screenshot tests check. A frame of vertex arrays (snapshot's `vertex_arrays`) is drawn from
// buffers filled on the device (CUDA-OpenGL interop on cuda): particle colours, the scene's box and
// surface normals are then computed by the GPU (a range pass with GL_MAX blending, a normal pass
// that adds face normals into a float texture), and nothing is read back but the 2-texel range. Needs a current OpenGL >= 3.3 core context (viewer/gl_context.h or
// viewer/window.h); the GL functions come from libOpenGL (GLVND) directly.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <vector>

#include "viewer/camera.h"
#include "viewer/frame_data.h"
#include "viewer/image.h"

namespace weft::viewer {

// [SECTION] RenderOptions
struct RenderOptions {
    Eigen::Vector3f background{0.13f, 0.14f, 0.17f};      // linear RGB
    Eigen::Vector3f light_direction{0.35f, 1.0f, 0.45f};  // towards the light (normalised when used)
    float ambient = 0.35f;                                // share of the albedo lit everywhere, [0, 1]
    bool shadows = true;                                  // the directional light casts shadows
    bool grid = true;                                     // draw the ground plane (when the frame has one)
    Eigen::Vector3f ground_color{0.52f, 0.53f, 0.56f};    // with darker lines every metre
    int samples = 4;                                      // MSAA samples of render_image (1 = none)
};

// [SECTION] Renderer
class Renderer {
public:
    // Compiles the shaders. Throws runtime::RuntimeError if the current context is older than
    // OpenGL 3.3 or a shader does not compile (with the driver's log).
    Renderer();
    ~Renderer();
    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    // Draws `frame` into the framebuffer bound now (the window's, or render_image's), a
    // width x height viewport, clearing it first.
    void render(const FrameData& frame, const OrbitCamera& camera, int width, int height, const RenderOptions& options = {});

    // Draws into an offscreen framebuffer and reads it back (row 0 at the top).
    Image render_image(const FrameData& frame, const OrbitCamera& camera, int width, int height,
                       const RenderOptions& options = {});

    // Draws into an offscreen framebuffer of this size (kept between calls, multisampled as
    // render_image's) and waits until the GPU has finished it: the cost of a window's frame without
    // a window or a read-back, for benchmarks (bench/viewer/viewer_bench.cpp).
    void render_offscreen(const FrameData& frame, const OrbitCamera& camera, int width, int height,
                          const RenderOptions& options = {});

    // The top of the colour range each particle set of the last render() was drawn with: the
    // frame's own value_hi, or for vertex arrays with an automatic range the largest |value| the
    // GPU found (the legend shows it).
    const std::vector<float>& last_value_ranges() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace weft::viewer
