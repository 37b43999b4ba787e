// viewer/frame_writer.cpp: see frame_writer.h.
#include "viewer/frame_writer.h"

#include "runtime/errors.h"
#include "viewer/gl_context.h"
#include "viewer/window.h"

namespace weft::viewer {

void fit_camera(OrbitCamera& camera, const FrameData& frame) {
    Eigen::Vector3f lo, hi;
    if (!frame.bounds(lo, hi)) return;
    if (frame.ground && frame.ground_plane.head<3>().isApprox(Eigen::Vector3f(0, 1, 0)))
        lo.y() = std::min(lo.y(), -frame.ground_plane[3]);
    camera.fit(lo, hi);
}

FrameWriter::FrameWriter(int width, int height, const RenderOptions& options)
    : width_(width), height_(height), options_(options) {
    std::string egl_error;
    try {
        egl_ = std::make_unique<HeadlessContext>();
        description_ = "EGL: " + gl_description();
    } catch (const std::exception& e) { egl_error = e.what(); }
    if (!egl_) {
        try {
            window_ = std::make_unique<Window>("weft", 64, 64, false);
            description_ = "GLFW hidden window: " + gl_description();
        } catch (const std::exception& e) {
            throw runtime::RuntimeError("cannot render without a window: " + egl_error + "; and " + e.what());
        }
    }
    renderer_ = std::make_unique<Renderer>();
}

FrameWriter::~FrameWriter() {
    renderer_.reset();  // its GL objects go while the context is still there
}

Image FrameWriter::render(const FrameData& frame) {
    if (!fitted_) {
        fit_camera(camera_, frame);
        fitted_ = true;
    }
    return renderer_->render_image(frame, camera_, width_, height_, options_);
}

void FrameWriter::write(const FrameData& frame, const std::string& path) { write_png(path, render(frame)); }

}  // namespace weft::viewer
