// viewer/script_renderer.cpp: see script_renderer.h.
#define GL_GLEXT_PROTOTYPES 1
#include "viewer/script_renderer.h"

#include <GL/gl.h>
#include <GLFW/glfw3.h>

#include <filesystem>

#include "runtime/errors.h"
#include "viewer/frame_writer.h"
#include "viewer/image.h"
#include "viewer/window.h"

namespace weft::viewer {

namespace {

void on_scroll(GLFWwindow* w, double, double dy) {
    if (auto* cam = static_cast<OrbitCamera*>(glfwGetWindowUserPointer(w))) cam->zoom(float(dy));
}

}  // namespace

ScriptRenderer::ScriptRenderer(const std::string& title, int width, int height, const std::string& png_dir) : png_dir_(png_dir) {
    if (png_dir.empty()) {
        window_ = std::make_unique<Window>(title, width, height, true);
        renderer_ = std::make_unique<Renderer>();
        glfwSetWindowUserPointer(window_->handle(), &camera);
        glfwSetScrollCallback(window_->handle(), on_scroll);
    } else {
        std::filesystem::create_directories(png_dir);
        writer_ = std::make_unique<FrameWriter>(width, height);
    }
}

ScriptRenderer::~ScriptRenderer() { close(); }

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
    frame_ = snapshot(model, state, parts, {}, colors);
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
        std::string path = frame_png_path(png_dir_, frames_ - 1);
        writer_->write(frame_, path);
        written_.push_back(path);
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
    closed_ = true;
    if (window_) window_->make_current();
    renderer_.reset();
    window_.reset();
    writer_.reset();
}

}  // namespace weft::viewer
