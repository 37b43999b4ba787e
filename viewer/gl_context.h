// viewer/gl_context.h: an OpenGL 3.3 core context without a window, for `--headless`.
//
// Mesa's EGL "surfaceless" platform (EGL_MESA_platform_surfaceless) gives a context with no
// display server at all, rendering into the renderer's framebuffer objects; it works under
// llvmpipe on a machine with no GPU and no X server. Where it is missing, headless falls back to
// GLFW with an invisible window, which needs a display (Xvfb): viewer/window.h.
#pragma once

#include <memory>
#include <string>

namespace weft::viewer {

class HeadlessContext {
public:
    // Creates the context and makes it current on this thread. Throws runtime::RuntimeError
    // saying which EGL step failed (no surfaceless platform, no OpenGL 3.3 core context).
    HeadlessContext();
    ~HeadlessContext();
    HeadlessContext(const HeadlessContext&) = delete;
    HeadlessContext& operator=(const HeadlessContext&) = delete;

    void make_current();

private:
    void* display_ = nullptr;
    void* context_ = nullptr;
};

// Mesa's llvmpipe compiles shaders with its own LLVM (15 on Debian 12), while the CPU device has
// already loaded LLVM 14 and Clang 14 into the process; without care the driver's LLVM binds some
// template symbols to Clang 14's copies and crashes. This loads Mesa's driver first with
// RTLD_DEEPBIND, so that the driver and its LLVM resolve their symbols among themselves. A no-op
// where Mesa's driver is not installed (NVIDIA's GL) and after the first call. Every context
// constructor here calls it.
void isolate_gl_driver();

// "llvmpipe (LLVM 15.0.6, 256 bits), OpenGL 4.5 (Core Profile) Mesa 22.3.6": the current context.
std::string gl_description();

}  // namespace weft::viewer
