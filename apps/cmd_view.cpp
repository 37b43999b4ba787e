// `weft view SCENE.toml`: watch a scene in a window (viewer/app.h), or write its frames as PNG
// files without one.
//
//   weft view scenes/cloth_drape.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--color-by Q]
//   weft view scenes/cloth_drape.toml --headless --png out/ [--frames N] [--size 1280x720]
//
// --headless renders with EGL (no display needed) and writes frame_00000.png (the initial state)
// to frame_NNNNN.png (frame N; the scene's frame count by default). In a window, --frames N plays
// from the start and closes after N frames, and --png DIR then writes the whole window (panels
// included) after each frame. Exit codes: 0 success, 1 scene or run error (the
// scene loader's located message), 2 usage.
#include <cstdio>
#include <filesystem>

#include "apps/cli.h"
#include "engine/scene.h"
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
                "                 [--headless --png DIR] [--size WxH]\n"
                "Opens a window that plays the scene (docs/viewer.md: mouse, keys, panels). --headless writes\n"
                "DIR/frame_00000.png .. frame_NNNNN.png instead, with no display needed. In a window, --frames N plays\n"
                "from the start and closes after N frames; with --png DIR it writes the window after each frame.\n");
            return 0;
        }
    Args args(argv, {"device", "frames", "png", "size", "color-by"}, {"headless"});
    if (args.positional().size() != 1)
        throw UsageError("expected one scene file, got " + std::to_string(args.positional().size()));
    bool headless = args.flag("headless");
    if (headless && !args.get("png")) throw UsageError("--headless writes PNG frames: give --png DIR");
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
        o.width = width;
        o.height = height;
        if (auto p = args.get("png")) {
            std::filesystem::create_directories(*p);
            o.window_png_dir = *p;
        }
        return viewer::run_app(session, o);
    }
    std::string dir = *args.get("png");
    std::filesystem::create_directories(dir);
    if (frames < 0) frames = scene.frames;
    viewer::FrameWriter writer(width, height);
    writer.write(session.snapshot(colors), viewer::frame_png_path(dir, 0));
    for (int f = 1; f <= frames; ++f) {
        session.step_frame();
        writer.write(session.snapshot(colors), viewer::frame_png_path(dir, f));
    }
    printf("%s: wrote %d frames (%dx%d) to %s on %s; rendered with %s\n", scene.name.c_str(), frames + 1, width, height,
           dir.c_str(), session.device().str().c_str(), writer.context_description().c_str());
    return 0;
}

}  // namespace weft::apps
