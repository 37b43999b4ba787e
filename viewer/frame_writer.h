// viewer/frame_writer.h: PNG frames without a window, for `weft view --headless --png DIR` and
// `weft run --render DIR`.
//
//   FrameWriter w(1280, 720);                       // an OpenGL context of its own
//   w.write(frame0, frame_png_path(dir, 0));        // the camera frames the first picture's bounds
//   w.write(frame1, frame_png_path(dir, 1));        // and stays there, so frames line up as a video
//
// The context is EGL surfaceless (viewer/gl_context.h), which needs no display; where EGL cannot
// make one, a hidden GLFW window (which needs a display, e.g. Xvfb); when neither works the error
// says both reasons.
#pragma once

#include <memory>
#include <string>

#include "viewer/camera.h"
#include "viewer/frame_data.h"
#include "viewer/renderer.h"

namespace weft::viewer {

class HeadlessContext;
class Window;

class FrameWriter {
public:
    FrameWriter(int width, int height, const RenderOptions& options = {});
    ~FrameWriter();

    // Renders `frame` and writes it to `path` (PNG). The first call fits the camera to the frame.
    void write(const FrameData& frame, const std::string& path);
    Image render(const FrameData& frame);

    OrbitCamera& camera() { return camera_; }
    const std::string& context_description() const { return description_; }  // "EGL: llvmpipe ..., OpenGL 4.5 ..."

private:
    std::unique_ptr<HeadlessContext> egl_;
    std::unique_ptr<Window> window_;
    std::unique_ptr<Renderer> renderer_;
    OrbitCamera camera_;
    bool fitted_ = false;
    int width_, height_;
    RenderOptions options_;
    std::string description_;
};

// Points `camera` at `frame`: its bounds, seen from the default direction, the ground included.
void fit_camera(OrbitCamera& camera, const FrameData& frame);

}  // namespace weft::viewer
