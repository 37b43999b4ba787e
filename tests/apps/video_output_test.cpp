// `--video` of `weft view --headless` and `weft run` (apps/video_output.cpp) as a user runs them,
// with Debian's ffmpeg: ffprobe reads back the frame count (frames + 1: frame 0 is the initial
// state), the size and the duration (frames / fps); a run with --png as well decodes to the same
// pictures as its PNG files. The failures leave nothing behind and exit 1: no ffmpeg on PATH, an
// output path that cannot be written, ffmpeg killed mid-run (an error naming its signal, not a
// SIGPIPE death); Ctrl-C exits 130, killing ffmpeg and removing the temporary.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "tests/apps/weft_cli.h"
#include "viewer/image.h"
#include "tests/viewer/video_test_util.h"
#include "viewer/video_writer.h"

namespace {

using weft::test::capture;
using weft::test::probe;
using weft::test::run_weft;
namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) { return weft::test::fresh_artifact_dir("video_output", name); }

const std::string kScenes = std::string(WEFT_SOURCE_DIR) + "/scenes/";

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

TEST(VideoOption, HeadlessViewWritesEveryFrame) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("view"), video = dir / "bounce.mp4";
    auto r = run_weft("view " + kScenes + "bounce.toml --headless --frames 12 --size 160x120 --png " + (dir / "png").string() +
                      " --video " + video.string());
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("bounce: wrote 13 frames (160x120) to " + (dir / "png").string() + " and " + video.string() +
                         " (60 fps) on cpu"),
              std::string::npos)
        << r.out;
    auto kv = probe(video);
    EXPECT_EQ(kv["nb_read_frames"], "13");
    EXPECT_EQ(kv["width"], "160");
    EXPECT_EQ(kv["height"], "120");
    EXPECT_EQ(kv["r_frame_rate"], "60/1");
    EXPECT_NEAR(std::stod(kv["duration"]), 13.0 / 60.0, 1e-3);
    // Each decoded frame is its PNG, within what yuv420p H.264 loses.
    std::string rgb = capture("ffmpeg -v error -i '" + video.string() + "' -f rawvideo -pix_fmt rgb24 pipe:1");
    const size_t pixels = 160 * 120;
    ASSERT_EQ(rgb.size(), pixels * 3 * 13);
    for (int f = 0; f <= 12; f += 4) {
        auto png = weft::viewer::read_png(weft::viewer::frame_png_path((dir / "png").string(), f));
        double err = 0;
        for (size_t i = 0; i < pixels; ++i)
            for (size_t c = 0; c < 3; ++c)
                err += std::abs(double(uint8_t(rgb[(size_t(f) * pixels + i) * 3 + c])) - png.rgba[i * 4 + c]);
        EXPECT_LT(err / double(pixels * 3), 4.0) << "frame " << f;
    }
    EXPECT_EQ(entries(dir), (std::vector<std::string>{"bounce.mp4", "png"}));
}

TEST(VideoOption, RunWritesFrameZeroToTheLast) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("run"), video = dir / "sub" / "bounce.mkv";
    auto r = run_weft("run " + kScenes + "bounce.toml --frames 5 --quiet --video " + video.string());
    ASSERT_EQ(r.code, 0) << r.out;
    auto kv = probe(video);
    EXPECT_EQ(kv["nb_read_frames"], "6");
    EXPECT_EQ(kv["width"], "1280");
    EXPECT_EQ(kv["height"], "720");
    EXPECT_NEAR(std::stod(kv["duration"]), 6.0 / 60.0, 1e-3);
    EXPECT_EQ(entries(dir / "sub"), std::vector<std::string>{"bounce.mkv"});
}

TEST(VideoOption, MissingFfmpegSaysSoAndWritesNothing) {
    fs::path dir = fresh_dir("no_ffmpeg");
    // A PATH without ffmpeg: the weft binary is given by its full path.
    for (std::string cmd : {"view " + kScenes + "bounce.toml --headless --frames 2 --png " + (dir / "png").string() +
                                " --video " + (dir / "v.mp4").string(),
                            "run " + kScenes + "bounce.toml --frames 2 --quiet --out " + (dir / "out").string() + " --render " +
                                (dir / "png").string() + " --video " + (dir / "v.mp4").string()}) {
        std::string full = "env PATH=" + dir.string() + " " + WEFT_BINARY + " " + cmd + " 2>&1";
        std::string out = capture(full + "; echo rc=$?");
        std::string alternative = cmd.rfind("view", 0) == 0 ? "--png DIR" : "--render DIR";
        EXPECT_EQ(out, "--video needs ffmpeg, which is not on PATH: apt-get install ffmpeg, or use " + alternative + "\nrc=1\n");
        EXPECT_TRUE(fs::is_empty(dir)) << cmd;
    }
}

TEST(VideoOption, UnwritablePathsAndUsageErrors) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("unwritable");
    std::ofstream(dir / "file") << "a file, not a folder";
    fs::path video = dir / "file" / "v.mp4";
    auto r = run_weft("view " + kScenes + "bounce.toml --headless --frames 2 --video " + video.string());
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out,
              "cannot write " + video.string() + ": cannot create folder " + (dir / "file").string() + ": Not a directory\n");
    r = run_weft("run " + kScenes + "bounce.toml --frames 2 --quiet --out " + (dir / "out").string() + " --video " +
                 video.string());
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.out,
              "cannot write " + video.string() + ": cannot create folder " + (dir / "file").string() + ": Not a directory\n");
    EXPECT_FALSE(fs::exists(dir / "out" / "frame_00000.npz")) << "the video is started before any frame is written";
    r = run_weft("view " + kScenes + "bounce.toml --headless --video " + (dir / "v.gif").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --video '" + (dir / "v.gif").string() +
                         "': the extension chooses the container: .mp4, .mov, .mkv or .webm\n");
    r = run_weft("view " + kScenes + "bounce.toml --headless --size 161x120 --video " + (dir / "v.mp4").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --video needs an even width and height (yuv420p), got --size 161x120\n");
    r = run_weft("view " + kScenes + "bounce.toml --video " + (dir / "v.mp4").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft view: --video writes the frames of a headless run: add --headless\n");
    r = run_weft("run " + kScenes + "bounce.toml --vidoe " + (dir / "v.mp4").string());
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "weft run: unknown option --vidoe (did you mean --video?)\n");
    EXPECT_EQ(entries(dir), std::vector<std::string>{"file"});
}

// `weft ARGS...` in the background, its stdout and stderr in `log`.
pid_t spawn_weft(const std::vector<std::string>& args, const fs::path& log) {
    std::vector<std::string> all = {WEFT_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, WEFT_BINARY, &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

// The ffmpeg child of `parent`, once a temporary exists in `dir` (0 after 60 s without).
pid_t ffmpeg_child(pid_t parent, const fs::path& dir) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < until) {
        bool tmp = false;
        for (const auto& e : fs::directory_iterator(dir)) tmp |= e.path().filename().string().find(".tmp.") != std::string::npos;
        std::ifstream children("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children");
        pid_t child = 0;
        if (tmp && children >> child) {
            std::ifstream comm("/proc/" + std::to_string(child) + "/comm");
            std::string name;
            if (comm >> name && name == "ffmpeg") return child;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return 0;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int wait_code(pid_t pid) {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

// ffmpeg killed while weft run still renders: exit 1 with ffmpeg's fate, not a death by SIGPIPE
// (which would be 1000 + 13 here), and no temporary left.
TEST(VideoOption, FfmpegDyingMidRunIsAnError) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("killed"), log = dir.string() + ".log";
    pid_t weft =
        spawn_weft({"run", kScenes + "bounce.toml", "--frames", "100000", "--quiet", "--video", (dir / "v.mp4").string()}, log);
    pid_t ffmpeg = ffmpeg_child(weft, dir);
    ASSERT_GT(ffmpeg, 0) << slurp(log);
    kill(ffmpeg, SIGKILL);
    EXPECT_EQ(wait_code(weft), 1) << slurp(log);
    std::string out = slurp(log);
    EXPECT_EQ(out.rfind("cannot write " + (dir / "v.mp4").string() + ": ffmpeg stopped reading frame ", 0), 0u) << out;
    EXPECT_NE(out.find("(Broken pipe): ffmpeg was killed by signal 9 (Killed)\n"), std::string::npos) << out;
    EXPECT_TRUE(fs::is_empty(dir));
    fs::remove(log);
}

// Ctrl-C during a video: exit 130, ffmpeg killed, the temporary removed.
TEST(VideoOption, InterruptRemovesTheUnfinishedVideo) {
    REQUIRE_FFMPEG();
    for (const char* cmd : {"run", "view"}) {
        fs::path dir = fresh_dir(std::string("interrupt_") + cmd), log = dir.string() + ".log";
        std::vector<std::string> args = {cmd, kScenes + "bounce.toml", "--frames", "100000", "--video", (dir / "v.mp4").string()};
        args.push_back(std::string(cmd) == "run" ? "--quiet" : "--headless");
        pid_t weft = spawn_weft(args, log);
        pid_t ffmpeg = ffmpeg_child(weft, dir);
        ASSERT_GT(ffmpeg, 0) << slurp(log);
        kill(weft, SIGINT);
        EXPECT_EQ(wait_code(weft), 130) << slurp(log);
        EXPECT_NE(slurp(log).find(std::string("weft ") + cmd + ": interrupted (SIGINT)"), std::string::npos) << slurp(log);
        EXPECT_TRUE(fs::is_empty(dir)) << cmd;
        EXPECT_NE(kill(ffmpeg, 0), 0) << "ffmpeg is still running";
        fs::remove(log);
    }
}

}  // namespace
