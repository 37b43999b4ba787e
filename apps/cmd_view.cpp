// `weft view SCENE.toml`: watch a scene in a window (viewer/app.h), or write its frames as PNG
// files or a video without one.
//
//   weft view scenes/cloth_drape.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--color-by Q]
//   weft view scenes/cloth_drape.toml --headless [--png out/] [--video out.mp4] [--frames N] [--size 1280x720]
//
// --headless renders with EGL (no display needed) frame 0 (the initial state) to frame N (the
// scene's frame count by default): --png DIR writes them as frame_00000.png .. frame_NNNNN.png,
// --video FILE pipes them to ffmpeg at the scene's fps (apps/video_output.h; N + 1 frames, so
// (N + 1) / fps seconds). In a window, --frames N plays from the start and closes after N frames,
// and --png DIR then writes the whole window (panels included) after each frame. Exit codes: 0
// success, 1 scene, run or output error (the scene loader's located message; no ffmpeg), 2 usage,
// 130 / 143 SIGINT / SIGTERM during a --video run (the unfinished video is removed).
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "apps/atomic_write.h"
#include "apps/cli.h"
#include "apps/video_output.h"
#include "engine/scene.h"
#include "runtime/cancel.h"
#include "viewer/app.h"
#include "viewer/frame_writer.h"
#include "viewer/image.h"
#include "viewer/session.h"

namespace weft::apps {

namespace {

// --OPTION's integer, through the command line's one parser (apps/cli.h).
int parse_int(const std::string& option, const std::string& v, int lo, int hi) {
    return int(parse_integer("--" + option, v, lo, hi));
}

}  // namespace

int cmd_view(const std::vector<std::string>& argv) {
    for (const auto& a : argv)
        if (a == "--help" || a == "-h") {
            printf(
                "usage: weft view SCENE.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--color-by speed|force|none|ARRAY]\n"
                "                 [--headless [--png DIR] [--video FILE.mp4]] [--size WxH] [--run-ahead]\n"
                "Opens a window that plays the scene (docs/viewer.md: mouse, keys, panels). --headless renders frame 0\n"
                "(the initial state) to frame N with no display needed: --png DIR writes DIR/frame_00000.png ..\n"
                "frame_NNNNN.png, --video FILE pipes them to ffmpeg at the scene's fps (.mp4, .mov, .mkv or .webm).\n"
                "In a window, --frames N plays from the start and closes after N frames; with --png DIR it writes the\n"
                "window after each frame. --run-ahead (a window) steps frames back to back as fast as the device goes\n"
                "and draws the latest, instead of playing at the scene's frame rate.\n");
            return 0;
        }
    Args args(argv, {"device", "frames", "png", "video", "size", "color-by"}, {"headless", "run-ahead"});
    if (args.positional().size() != 1)
        throw UsageError("expected one scene file, got " + std::to_string(args.positional().size()));
    bool headless = args.flag("headless");
    if (headless && !args.get("png") && !args.get("video"))
        throw UsageError("--headless writes PNG frames or a video: give --png DIR or --video FILE.mp4");
    if (!headless && args.get("video")) throw UsageError("--video writes the frames of a headless run: add --headless");
    if (headless && args.flag("run-ahead"))
        throw UsageError("--run-ahead is for a window (it draws the latest frame); --headless writes every frame");
    if (!headless && args.get("png") && !args.get("frames"))
        throw UsageError(
            "--png DIR in a window writes the window after each frame of a --frames N run; add --frames N, or "
            "--headless");
    int width = 1280, height = 720;
    if (auto s = args.get("size")) {
        size_t x = s->find('x');
        if (x == std::string::npos) throw UsageError("--size expects WIDTHxHEIGHT, got '" + *s + "'");
        width = parse_int("size", s->substr(0, x), 16, 8192);
        height = parse_int("size", s->substr(x + 1), 16, 8192);
    }
    if (auto v = args.get("video")) {
        if (width % 2 || height % 2)
            throw UsageError("--video needs an even width and height (yuv420p), got --size " + std::to_string(width) + "x" +
                             std::to_string(height));
        check_video_option(*v, "--png DIR");
    }
    engine::Scene scene;
    try {
        scene = engine::load_scene(args.positional()[0]);
    } catch (const engine::SceneError& e) {
        fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    int frames = -1;
    if (auto f = args.get("frames")) frames = parse_int("frames", *f, 0, engine::kMaxFrames);
    viewer::ColorOptions colors;
    if (auto c = args.get("color-by")) colors.quantity = *c;
    if (auto d = args.get("device")) runtime::parse_device(*d);  // a bad device string before anything is built

    viewer::Session session(scene, args.get("device").value_or(""));
    if (!headless) {
        viewer::AppOptions o;
        o.frames = frames;
        o.colors = colors;
        o.run_ahead = args.flag("run-ahead");
        o.width = width;
        o.height = height;
        if (auto p = args.get("png")) {
            std::filesystem::create_directories(*p);
            o.window_png_dir = *p;
        }
        return viewer::run_app(session, o);
    }
    if (frames < 0) frames = scene.frames;
    std::optional<std::string> dir = args.get("png"), video_path = args.get("video");
    std::unique_ptr<VideoOutput> video;
    if (video_path) {
        exit_cleanly_on_signals("weft view");
        video = std::make_unique<VideoOutput>(*video_path, width, height, double(scene.fps));
    }
    if (dir) std::filesystem::create_directories(*dir);
    viewer::FrameWriter writer(width, height);
    for (int f = 0; f <= frames; ++f) {
        try {
            if (f > 0) session.step_frame();
        } catch (const runtime::LaunchInterrupted&) {  // Ctrl-C during a launch: the same exit as between launches
            if (video) exit_for_signal(SIGINT);
            throw;
        }
        viewer::Image image = writer.render(session.snapshot(colors));
        if (dir) viewer::write_png(viewer::frame_png_path(*dir, f), image);
        if (video) video->add(image);
    }
    if (video) video->finish();
    std::string where = dir ? *dir : "";
    if (video) {
        char rate[48];
        snprintf(rate, sizeof rate, " (%g fps)", double(scene.fps));
        where += (dir ? " and " : "") + *video_path + rate;
    }
    printf("%s: wrote %d frames (%dx%d) to %s on %s; rendered with %s\n", scene.name.c_str(), frames + 1, width, height,
           where.c_str(), session.device().str().c_str(), writer.context_description().c_str());
    return 0;
}

}  // namespace weft::apps
