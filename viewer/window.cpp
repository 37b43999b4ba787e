// viewer/window.cpp: GLFW initialisation with the error callback captured, so that a failure
// reaches the user as one sentence instead of GLFW's stderr noise.
#include "viewer/window.h"

#include <GLFW/glfw3.h>

#include <cstdlib>
#include <mutex>

#include "runtime/errors.h"
#include "viewer/gl_context.h"

namespace weft::viewer {

namespace {

std::string g_last_error;

void on_error(int, const char* description) { g_last_error = description ? description : "unknown GLFW error"; }

// GLFW is initialised once per process and kept (terminating it while ImGui or a renderer holds
// GL objects would be worse than leaving it to process exit).
bool init_glfw(std::string* why) {
    static std::once_flag once;
    static bool ok = false;
    static std::string failure;
    std::call_once(once, [] {
        isolate_gl_driver();
        glfwSetErrorCallback(on_error);
        const char* display = std::getenv("DISPLAY");
        const char* wayland = std::getenv("WAYLAND_DISPLAY");
        if ((!display || !*display) && (!wayland || !*wayland)) {
            failure = "no display (DISPLAY is not set)";
            return;
        }
        ok = glfwInit() == GLFW_TRUE;
        if (!ok) failure = "no display (" + g_last_error + ")";
    });
    if (!ok && why) *why = failure;
    return ok;
}

}  // namespace

bool display_available(std::string* why) { return init_glfw(why); }

Window::Window(const std::string& title, int width, int height, bool visible) {
    std::string why;
    if (!init_glfw(&why))
        throw runtime::RuntimeError(why +
                                    ": run with --headless to write PNG frames, or under a virtual display: "
                                    "xvfb-run -a weft view ...");
    glfwDefaultWindowHints();
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_SAMPLES, 4);
    window_ = glfwCreateWindow(width, height, title.c_str(), nullptr, nullptr);
    if (!window_) throw runtime::RuntimeError("cannot open a window with an OpenGL 3.3 core context: " + g_last_error);
    make_current();
    glfwSwapInterval(1);
}

Window::~Window() { glfwDestroyWindow(window_); }

void Window::make_current() { glfwMakeContextCurrent(window_); }
bool Window::should_close() const { return glfwWindowShouldClose(window_); }
void Window::framebuffer_size(int& width, int& height) const { glfwGetFramebufferSize(window_, &width, &height); }
void Window::swap() { glfwSwapBuffers(window_); }

}  // namespace weft::viewer
