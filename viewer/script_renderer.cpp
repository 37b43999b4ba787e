// viewer/script_renderer.cpp: see script_renderer.h.
#define GL_GLEXT_PROTOTYPES 1
#include "viewer/script_renderer.h"

#include <GL/gl.h>
#include <GLFW/glfw3.h>

#include <exception>
#include <filesystem>

#include "runtime/errors.h"
#include "viewer/frame_writer.h"
#include "viewer/image.h"
#include "viewer/video_writer.h"
#include "viewer/window.h"

namespace weft::viewer {

namespace {

void on_scroll(GLFWwindow* w, double, double dy) {
    if (auto* cam = static_cast<OrbitCamera*>(glfwGetWindowUserPointer(w))) cam->zoom(float(dy));
}

}  // namespace

ScriptRenderer::ScriptRenderer(const std::string& title, int width, int height, const std::string& png_dir,
                               const std::string& video_path, double fps)
    : png_dir_(png_dir) {
    if (png_dir.empty() && video_path.empty()) {
        window_ = std::make_unique<Window>(title, width, height, true);
        renderer_ = std::make_unique<Renderer>();
        glfwSetWindowUserPointer(window_->handle(), &camera);
        glfwSetScrollCallback(window_->handle(), on_scroll);
    } else {
        if (!video_path.empty()) {
            std::filesystem::path parent = std::filesystem::path(video_path).parent_path();
            if (!parent.empty()) std::filesystem::create_directories(parent);
            video_ = std::make_unique<VideoWriter>(video_path, width, height, fps);
        }
        if (!png_dir.empty()) std::filesystem::create_directories(png_dir);
        writer_ = std::make_unique<FrameWriter>(width, height);
    }
}

ScriptRenderer::~ScriptRenderer() {
    video_.reset();  // unfinished: ffmpeg stopped, the temporary removed
    close();
}

void ScriptRenderer::finish() {
    if (!video_) return;
    std::unique_ptr<VideoWriter> video = std::move(video_);
    video->finish();
    written_.push_back(video->path());
}

void ScriptRenderer::begin_frame(double time) {
    if (in_frame_) throw runtime::RuntimeError("begin_frame: the previous frame has not ended (call end_frame first)");
    in_frame_ = true;
    time_ = time;
}

void ScriptRenderer::render(const engine::Model& model, const engine::State& state) {
    if (!in_frame_) throw runtime::RuntimeError("render: call begin_frame(time) first");
    std::vector<engine::Renderable> parts;
    for (const engine::Renderable& r : engine::model_renderables(model)) {
        if (r.kind == engine::RenderableKind::Particles && !show_particles) continue;
        if (r.kind == engine::RenderableKind::Lines && !show_springs) continue;
        if (r.kind == engine::RenderableKind::Surface && !show_surfaces) continue;
        if (r.kind == engine::RenderableKind::Frames && !show_joints) continue;
        parts.push_back(r);
    }
    if (&model != cached_model_ || !cache_) {
        cache_ = std::make_unique<SnapshotCache>();
        cached_model_ = &model;
    }
    frame_ = snapshot(model, state, parts, {}, colors, cache_.get());
    if (!fitted_) {
        fit_camera(writer_ ? writer_->camera() : camera, frame_);
        fitted_ = true;
    }
}

void ScriptRenderer::end_frame() {
    if (!in_frame_) throw runtime::RuntimeError("end_frame: call begin_frame(time) first");
    in_frame_ = false;
    ++frames_;
    if (writer_) {
        Image image = writer_->render(frame_);
        if (!png_dir_.empty()) {
            std::string path = frame_png_path(png_dir_, frames_ - 1);
            write_png(path, image);
            written_.push_back(path);
        }
        if (video_) try {
                video_->add(image);
            } catch (...) {  // ffmpeg is gone and the temporary removed: nothing left to finish
                video_.reset();
                throw;
            }
        return;
    }
    if (closed_) return;
    window_->make_current();
    glfwPollEvents();
    double x = 0, y = 0;
    glfwGetCursorPos(window_->handle(), &x, &y);
    float dx = float(x - mouse_x_), dy = float(y - mouse_y_);
    mouse_x_ = x, mouse_y_ = y;
    int width = 0, height = 0;
    window_->framebuffer_size(width, height);
    if (glfwGetMouseButton(window_->handle(), GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS) camera.orbit(dx, dy);
    if (glfwGetMouseButton(window_->handle(), GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS) camera.pan(dx, dy, float(height));
    if (width > 0 && height > 0) {
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        renderer_->render(frame_, camera, width, height, options);
    }
    window_->swap();
}

bool ScriptRenderer::is_running() const { return !closed_ && (!window_ || !window_->should_close()); }

void ScriptRenderer::close() {
    if (closed_) return;
    std::exception_ptr video_error;  // the window or context goes even when the video fails
    try {
        finish();
    } catch (...) { video_error = std::current_exception(); }
    closed_ = true;
    if (window_) window_->make_current();
    renderer_.reset();
    window_.reset();
    writer_.reset();
    if (video_error) std::rethrow_exception(video_error);
}

}  // namespace weft::viewer
