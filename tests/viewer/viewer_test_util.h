// tests/viewer/viewer_test_util.h: GL contexts for the viewer's tests, and where they save images.
//
// Every rendering test runs once per context kind: EGL surfaceless (no display needed) and a
// GLFW invisible window (needs a display: without one, ensure_display() starts an Xvfb server
// for the test process, which scripts/setup.sh installs). A kind that is missing skips with the
// reason.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <memory>
#include <string>

#include "runtime/device.h"
#include "viewer/gl_context.h"
#include "viewer/window.h"

// Tests that build their models on the cpu device skip where the build has none (the GPU machine
// builds without LLVM).
#define WEFT_REQUIRE_CPU_DEVICE()                                                       \
    do {                                                                                \
        if (!weft::runtime::device_available(weft::runtime::parse_device("cpu")))       \
            GTEST_SKIP() << "this build has no cpu device (it was built without LLVM)"; \
    } while (0)

namespace weft::viewer::test {

enum class ContextKind { Egl, GlfwHidden };

inline std::string kind_name(const testing::TestParamInfo<ContextKind>& info) {
    return info.param == ContextKind::Egl ? "egl" : "glfw";
}

// Holds whichever context the kind makes (current on this thread).
struct TestContext {
    std::unique_ptr<HeadlessContext> egl;
    std::unique_ptr<Window> window;
};

// Without DISPLAY, starts `Xvfb -displayfd` (once per process, stopped at exit) and sets DISPLAY
// to the server it reports, so that windows (and child processes) have a display. Returns false
// with `why` when there is no display and no Xvfb.
inline bool ensure_display(std::string& why) {
    static std::string failure = [] {
        const char* d = std::getenv("DISPLAY");
        if (d && *d) return std::string();
        int fds[2];
        if (pipe(fds) != 0) return std::string("no display, and no pipe for Xvfb");
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            std::string fd = std::to_string(fds[1]);
            execlp("Xvfb", "Xvfb", "-displayfd", fd.c_str(), "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
                   static_cast<char*>(nullptr));
            _exit(127);
        }
        close(fds[1]);
        std::string number;
        char c;
        while (read(fds[0], &c, 1) == 1 && c != '\n') number += c;
        close(fds[0]);
        if (pid < 0 || number.empty()) {
            if (pid > 0) waitpid(pid, nullptr, 0);
            return std::string("no display (DISPLAY is not set) and Xvfb did not start (apt-get install xvfb)");
        }
        static pid_t server = pid;
        std::atexit([] {
            kill(server, SIGTERM);
            waitpid(server, nullptr, 0);
        });
        setenv("DISPLAY", (":" + number).c_str(), 1);
        return std::string();
    }();
    why = failure;
    return failure.empty();
}

// Returns false with `why` when the kind cannot be made here.
inline bool make_context(ContextKind kind, TestContext& c, std::string& why) {
    try {
        if (kind == ContextKind::Egl) {
            c.egl = std::make_unique<HeadlessContext>();
        } else {
            if (!ensure_display(why) || !display_available(&why)) return false;
            c.window = std::make_unique<Window>("weft test", 64, 64, false);
        }
        return true;
    } catch (const std::exception& e) {
        why = e.what();
        return false;
    }
}

#define WEFT_REQUIRE_CONTEXT(kind, ctx)                                                 \
    ::weft::viewer::test::TestContext ctx;                                              \
    do {                                                                                \
        std::string why_;                                                               \
        if (!::weft::viewer::test::make_context(kind, ctx, why_)) GTEST_SKIP() << why_; \
    } while (0)

// build/test-artifacts/viewer/NAME: the tests' images, kept for a look after the run.
inline std::string artifact(const std::string& name) {
    std::filesystem::path dir = std::filesystem::path(WEFT_BINARY_DIR) / "test-artifacts" / "viewer";
    std::filesystem::create_directories(dir);
    return (dir / name).string();
}

}  // namespace weft::viewer::test
