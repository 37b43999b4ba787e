// viewer/gl_context.cpp: EGL surfaceless display (or, where there is none, the first EGL device),
// a config-less OpenGL 3.3 core context (EGL_KHR_no_config_context), made current with no surface.
#include "viewer/gl_context.h"

#include <EGL/egl.h>
#include <dlfcn.h>

#include <cstring>
#include <EGL/eglext.h>
#include <GL/gl.h>

#include "runtime/errors.h"

namespace weft::viewer {

namespace {

std::string egl_error(const char* step) {
    char code[16];
    snprintf(code, sizeof code, "0x%04x", unsigned(eglGetError()));
    return std::string("headless OpenGL: ") + step + " failed (EGL error " + code + ")";
}

}  // namespace

void isolate_gl_driver() {
    static void* driver = [] {
        // The Mesa megadriver: every name in dri/ is a link to one file, so one load covers them.
        for (const char* path :
             {"/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so", "/usr/lib64/dri/swrast_dri.so", "/usr/lib/dri/swrast_dri.so"})
            if (void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) return h;
        return static_cast<void*>(nullptr);
    }();
    (void)driver;
}

HeadlessContext::HeadlessContext() {
    isolate_gl_driver();
    auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!get_display) throw runtime::RuntimeError("headless OpenGL: EGL has no eglGetPlatformDisplayEXT");
    EGLDisplay display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    EGLint major = 0, minor = 0;
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
        // Without the surfaceless platform (NVIDIA's EGL may lack it), the first EGL device
        // (EGL_EXT_platform_device), as headless NVIDIA machines are driven.
        std::string surfaceless = egl_error("opening Mesa's surfaceless EGL platform");
        auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
        EGLDeviceEXT devices[8];
        EGLint count = 0;
        display = EGL_NO_DISPLAY;
        if (query_devices && query_devices(8, devices, &count) && count > 0)
            display = get_display(EGL_PLATFORM_DEVICE_EXT, devices[0], nullptr);
        if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor))
            throw runtime::RuntimeError(surfaceless + "; " +
                                        egl_error("opening the first EGL device").substr(std::strlen("headless OpenGL: ")));
    }
    if (!eglBindAPI(EGL_OPENGL_API)) throw runtime::RuntimeError(egl_error("eglBindAPI(OpenGL)"));
    const EGLint attributes[] = {
        EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
        EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
    if (context == EGL_NO_CONTEXT) {
        std::string e = egl_error("creating an OpenGL 3.3 core context");
        eglTerminate(display);
        throw runtime::RuntimeError(e);
    }
    display_ = display;
    context_ = context;
    make_current();
}

HeadlessContext::~HeadlessContext() {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
}

void HeadlessContext::make_current() {
    if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
        throw runtime::RuntimeError(egl_error("eglMakeCurrent"));
}

std::string gl_description() {
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const char* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    return std::string(renderer ? renderer : "?") + ", OpenGL " + (version ? version : "?");
}

}  // namespace weft::viewer
