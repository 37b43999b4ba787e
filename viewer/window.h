// viewer/window.h: a GLFW window with an OpenGL 3.3 core context (visible for `weft view`,
// invisible for headless rendering where EGL is missing and for the tests under Xvfb).
//
// Creating a window needs a display; without one the error says what to do instead, as
//   weft view: no display (DISPLAY is not set): run with --headless to write PNG frames, or
//   under a virtual display: xvfb-run -a weft view ...
#pragma once

#include <string>

struct GLFWwindow;

namespace weft::viewer {

class Window {
public:
    // Throws runtime::RuntimeError with the message above when there is no display, or with
    // GLFW's description when the window or the context cannot be made.
    Window(const std::string& title, int width, int height, bool visible = true);
    ~Window();
    Window(const Window&) = delete;
    Window& operator=(const Window&) = delete;

    GLFWwindow* handle() const { return window_; }
    void make_current();
    bool should_close() const;
    void framebuffer_size(int& width, int& height) const;  // pixels
    void swap();

private:
    GLFWwindow* window_ = nullptr;
};

// Whether a display is there to open windows on (GLFW initialises); `why` says why not.
bool display_available(std::string* why = nullptr);

}  // namespace weft::viewer
