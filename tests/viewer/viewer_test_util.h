// tests/viewer/viewer_test_util.h: GL contexts for the viewer's tests, and where they save images.
//
// Every rendering test runs once per context kind: EGL surfaceless (no display needed) and a
// GLFW invisible window (needs a display: ctest runs these binaries under xvfb-run). A kind that
// is missing skips with the reason.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "viewer/gl_context.h"
#include "viewer/window.h"

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

// Returns false with `why` when the kind cannot be made here.
inline bool make_context(ContextKind kind, TestContext& c, std::string& why) {
    try {
        if (kind == ContextKind::Egl) {
            c.egl = std::make_unique<HeadlessContext>();
        } else {
            if (!display_available(&why)) return false;
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
