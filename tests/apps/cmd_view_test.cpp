// `weft view` and `weft run --render` as a user runs them: headless PNG frames, the window under
// Xvfb (started by the test when there is no display), and the error paths: no display, a scene
// that does not load, usage mistakes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/apps/weft_cli.h"
#include "tests/viewer/viewer_test_util.h"
#include "viewer/image.h"

namespace {

using weft::test::run_weft;
namespace fs = std::filesystem;

const std::string kScenes = std::string(WEFT_SOURCE_DIR) + "/scenes/";

fs::path fresh_dir(const std::string& name) {
    fs::path d = fs::path(WEFT_BINARY_DIR) / "test-artifacts" / "cmd_view" / name;
    fs::remove_all(d);
    return d;
}

// How many pixels of two same-size images differ.
int differing(const weft::viewer::Image& a, const weft::viewer::Image& b) {
    int n = 0;
    for (size_t i = 0; i < a.rgba.size(); i += 4)
        if (std::memcmp(&a.rgba[i], &b.rgba[i], 3) != 0) ++n;
    return n;
}

TEST(ViewCommand, HeadlessWritesEveryFrame) {
    fs::path dir = fresh_dir("headless");
    auto r = run_weft("view " + kScenes + "bounce.toml --headless --frames 12 --size 160x120 --png " + dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("bounce: wrote 13 frames (160x120) to " + dir.string()), std::string::npos) << r.out;
    for (int f = 0; f <= 12; ++f) ASSERT_TRUE(fs::exists(weft::viewer::frame_png_path(dir.string(), f))) << f;
    EXPECT_FALSE(fs::exists(weft::viewer::frame_png_path(dir.string(), 13)));
    auto first = weft::viewer::read_png(weft::viewer::frame_png_path(dir.string(), 0));
    auto last = weft::viewer::read_png(weft::viewer::frame_png_path(dir.string(), 12));
    EXPECT_EQ(first.width, 160);
    EXPECT_EQ(first.height, 120);
    EXPECT_GT(differing(first, last), 20) << "the ball fell between frame 0 and 12";
}

TEST(ViewCommand, RunRenderWritesTheSameFrames) {
    fs::path dir = fresh_dir("run_render");
    auto r = run_weft("run " + kScenes + "bounce.toml --frames 3 --quiet --out " + (dir / "npz").string() + " --render " +
                      dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    for (int f = 0; f <= 3; ++f) EXPECT_TRUE(fs::exists(weft::viewer::frame_png_path(dir.string(), f))) << f;
    EXPECT_EQ(weft::viewer::read_png(weft::viewer::frame_png_path(dir.string(), 3)).width, 1280);
}

TEST(ViewCommand, WindowPlaysAndCloses) {
    std::string why;
    if (!weft::viewer::test::ensure_display(why)) GTEST_SKIP() << why;
    fs::path dir = fresh_dir("window");
    auto r = run_weft("view " + kScenes + "bounce.toml --frames 3 --size 640x400 --png " + dir.string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("bounce: 3 frames on cpu; the window drew "), std::string::npos) << r.out;
    // The window after frames 1 to 3, panels included: its size, and frames that differ.
    for (int f = 1; f <= 3; ++f) ASSERT_TRUE(fs::exists(weft::viewer::frame_png_path(dir.string(), f))) << f;
    auto w = weft::viewer::read_png(weft::viewer::frame_png_path(dir.string(), 3));
    EXPECT_EQ(w.width, 640);
    EXPECT_EQ(w.height, 400);
}

TEST(ViewCommand, WindowRunningAheadStopsAtItsFrames) {
    // --run-ahead: the worker steps frames back to back and the window draws the latest; the run
    // still ends at exactly --frames.
    std::string why;
    if (!weft::viewer::test::ensure_display(why)) GTEST_SKIP() << why;
    auto r = run_weft("view " + kScenes + "bounce.toml --frames 40 --run-ahead --size 320x200");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("bounce: 40 frames on cpu; the window drew "), std::string::npos) << r.out;
}

TEST(ViewCommand, NoDisplaySuggestsHeadless) {
    std::string cmd = std::string("env -u DISPLAY -u WAYLAND_DISPLAY ") + WEFT_BINARY + " view " + kScenes + "bounce.toml 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) out += buf;
    int status = pclose(f);
    EXPECT_EQ(WEXITSTATUS(status), 1) << out;
    EXPECT_EQ(out,
              "no display (DISPLAY is not set): run with --headless to write PNG frames, or under a virtual display: "
              "xvfb-run -a weft view ...\n");
}

TEST(ViewCommand, BadSceneShowsTheLocatedError) {
    fs::path dir = fresh_dir("bad");
    fs::create_directories(dir);
    fs::path bad = dir / "bad.toml";
    std::ofstream(bad) << "[simulation]\nfps = 60\nfrmes = 3\n";
    for (std::string mode : {std::string(), " --headless --png " + dir.string()}) {
        auto r = run_weft("view " + bad.string() + mode);
        EXPECT_EQ(r.code, 1) << r.out;
        EXPECT_EQ(r.out, bad.string() + ":3:1: unknown key 'frmes' (did you mean 'frames'?)\n") << mode;
    }
}

TEST(ViewCommand, UsageErrors) {
    auto r = run_weft("view " + kScenes + "bounce.toml --headless");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --headless writes PNG frames or a video: give --png DIR or --video FILE.mp4\n");
    r = run_weft("view " + kScenes + "bounce.toml --headless --png x --size 10y");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --size expects WIDTHxHEIGHT, got '10y'\n");
    r = run_weft("view " + kScenes + "bounce.toml --headless --png x --run-ahead");
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --run-ahead is for a window (it draws the latest frame); --headless writes every frame\n");
    r = run_weft("view " + kScenes + "bounce.toml --headles");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("--headles"), std::string::npos) << r.out;
    r = run_weft("vew");
    EXPECT_NE(r.out.find("unknown command 'vew' (did you mean 'view'?)"), std::string::npos) << r.out;
}

}  // namespace
