// viewer/video_writer.h: videos through Debian's ffmpeg. The reference is the images themselves:
// ffmpeg decodes the file back to RGB (a second, independent path through ffmpeg's decoder), and
// each decoded frame must match the frame that went in, within what yuv420p H.264 loses; ffprobe
// reports the frame count, size and duration (frames / fps). Then the failures: no ffmpeg on
// PATH, a folder that cannot be written, ffmpeg killed mid-video (an error, not SIGPIPE), ffmpeg
// failing mid-video (its status and stderr lines), ffmpeg reporting an error with exit status 0,
// and a writer dropped unfinished: none leaves a file.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "tests/viewer/video_test_util.h"
#include "viewer/video_writer.h"

namespace {

using weft::viewer::Image;
using weft::viewer::VideoError;
using weft::viewer::VideoWriter;
namespace fs = std::filesystem;
using weft::test::capture;
using weft::test::probe;

fs::path fresh_dir(const std::string& name) { return weft::test::fresh_artifact_dir("video_writer", name); }

// Frame k: a grey background, a red square at x = 16 + 12 k and a blue one that stays put.
Image frame(int k, int w, int h) {
    Image im;
    im.width = w;
    im.height = h;
    im.rgba.assign(size_t(w) * size_t(h) * 4, 255);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t* p = &im.rgba[(size_t(y) * size_t(w) + size_t(x)) * 4];
            p[0] = p[1] = p[2] = 96;
            if (x >= 16 + 12 * k && x < 48 + 12 * k && y >= 16 && y < 48) p[0] = 230, p[1] = 20, p[2] = 20;
            if (x >= 100 && x < 132 && y >= 60 && y < 92) p[0] = 20, p[1] = 20, p[2] = 230;
        }
    im.rgba[3] = 0;  // alpha is dropped
    return im;
}

TEST(VideoWriter, FramesComeBackInOrderWithTheirSizeAndRate) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("frames"), file = dir / "squares.mp4";
    const int w = 160, h = 112, n = 7;
    VideoWriter v(file.string(), w, h, 24.0);
    EXPECT_TRUE(fs::exists(v.temporary_path()));
    EXPECT_FALSE(fs::exists(file));  // not until ffmpeg is done
    for (int k = 0; k < n; ++k) v.add(frame(k, w, h));
    v.finish();
    EXPECT_EQ(v.frames(), n);
    ASSERT_TRUE(fs::exists(file));
    EXPECT_EQ(fs::directory_iterator(dir)->path(), file);  // the temporary is gone
    auto kv = probe(file);
    EXPECT_EQ(kv["codec_name"], "h264");
    EXPECT_EQ(kv["width"], "160");
    EXPECT_EQ(kv["height"], "112");
    EXPECT_EQ(kv["pix_fmt"], "yuv420p");
    EXPECT_EQ(kv["nb_read_frames"], "7");
    EXPECT_EQ(kv["r_frame_rate"], "24/1");
    EXPECT_NEAR(std::stod(kv["duration"]), 7.0 / 24.0, 1e-3);
    // Decoded back to RGB: each frame is the one that went in (the squares' colours and places).
    std::string rgb = capture("ffmpeg -v error -i '" + file.string() + "' -f rawvideo -pix_fmt rgb24 pipe:1");
    ASSERT_EQ(rgb.size(), size_t(w) * h * 3 * n);
    for (int k = 0; k < n; ++k) {
        Image ref = frame(k, w, h);
        double err = 0;
        for (size_t i = 0; i < size_t(w) * h; ++i)
            for (size_t c = 0; c < 3; ++c)
                err += std::abs(double(uint8_t(rgb[(size_t(k) * w * h + i) * 3 + c])) - ref.rgba[i * 4 + c]);
        EXPECT_LT(err / (double(w) * h * 3), 3.0) << "frame " << k;
        auto at = [&](int x, int y, int c) { return int(uint8_t(rgb[((size_t(k) * h + size_t(y)) * w + size_t(x)) * 3 + c])); };
        int cx = 32 + 12 * k;  // the red square's centre: red, not blue (RGB order kept)
        EXPECT_GT(at(cx, 32, 0), 200) << k;
        EXPECT_LT(at(cx, 32, 2), 50) << k;
        EXPECT_GT(at(116, 76, 2), 200) << k;
        EXPECT_LT(at(116, 76, 0), 50) << k;
    }
}

TEST(VideoWriter, MissingFfmpegIsNamedAndNothingIsWritten) {
    fs::path dir = fresh_dir("no_ffmpeg");
    const char* old = getenv("PATH");
    std::string saved = old ? old : "";
    setenv("PATH", dir.c_str(), 1);
    EXPECT_EQ(weft::viewer::find_ffmpeg(), "");
    try {
        VideoWriter v((dir / "x.mp4").string(), 64, 64, 30.0);
        ADD_FAILURE() << "no error";
    } catch (const VideoError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "writing video '" + (dir / "x.mp4").string() + "' needs ffmpeg, which is not on PATH: apt-get install ffmpeg");
    }
    setenv("PATH", saved.c_str(), 1);
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(VideoWriter, BadPathsAndSizes) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("bad");
    auto message = [](auto&& make) {
        try {
            make();
        } catch (const VideoError& e) { return std::string(e.what()); }
        return std::string("no error");
    };
    EXPECT_EQ(
        message([&] { VideoWriter v((dir / "x.avi").string(), 64, 64, 30.0); }),
        "cannot write video '" + (dir / "x.avi").string() + "': its extension chooses the container: .mp4, .mov, .mkv or .webm");
    EXPECT_EQ(message([&] { VideoWriter v((dir / "x.mp4").string(), 65, 64, 30.0); }),
              "cannot write video '" + (dir / "x.mp4").string() +
                  "': its frames are 65x64, and yuv420p video needs an even width and height");
    EXPECT_EQ(message([&] { VideoWriter v((dir / "x.mp4").string(), 64, 64, 0.0); }),
              "cannot write video '" + (dir / "x.mp4").string() + "': a frame rate of 0 per second");
    std::ofstream(dir / "file") << "a file, not a folder";
    EXPECT_EQ(message([&] { VideoWriter v((dir / "file" / "x.mp4").string(), 64, 64, 30.0); }),
              "cannot write " + (dir / "file" / "x.mp4").string() + ": Not a directory");
    VideoWriter v((dir / "x.webm").string(), 64, 64, 30.0);
    EXPECT_EQ(message([&] { v.add(frame(0, 32, 32)); }),
              "cannot write " + (dir / "x.webm").string() + ": a frame of 32x32 in a 64x64 video");
    EXPECT_EQ(message([&] { v.finish(); }), "cannot write " + (dir / "x.webm").string() + ": no frame was rendered");
    EXPECT_EQ(std::vector<fs::path>(fs::directory_iterator(dir), {}), std::vector<fs::path>{dir / "file"});
}

// ffmpeg killed between two frames: the next add() is an error naming the signal (this process
// is not killed by SIGPIPE), ffmpeg is reaped and the temporary removed.
TEST(VideoWriter, FfmpegDyingIsAnErrorNotSigpipe) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("killed"), file = dir / "x.mp4";
    VideoWriter v(file.string(), 320, 240, 30.0);
    v.add(frame(0, 320, 240));
    kill(v.pid(), SIGKILL);
    std::string what;
    try {
        for (int k = 1; k < 50; ++k) v.add(frame(k % 10, 320, 240));  // 230 KB a frame: past any pipe buffer
    } catch (const VideoError& e) { what = e.what(); }
    EXPECT_EQ(what.rfind("cannot write " + file.string() + ": ffmpeg stopped reading frame ", 0), 0u) << what;
    EXPECT_NE(what.find(" (Broken pipe): ffmpeg was killed by signal 9 (Killed)"), std::string::npos) << what;
    EXPECT_EQ(v.pid(), 0);
    EXPECT_TRUE(fs::is_empty(dir));
    sigset_t pending;
    sigpending(&pending);
    EXPECT_FALSE(sigismember(&pending, SIGPIPE));  // the SIGPIPE the write raised was taken
}

// Over RLIMIT_FSIZE ffmpeg prints "Error writing trailer ...: File too large" and exits with 0; its
// message fails the video, and the truncated file is removed.
TEST(VideoWriter, FfmpegErrorsFailTheVideoWhateverItsStatus) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("fsize"), file = dir / "x.mp4";
    struct rlimit old {};
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = old;
    small.rlim_cur = 512;
    auto old_handler = signal(SIGXFSZ, SIG_IGN);  // inherited by ffmpeg: EFBIG instead of a core dump
    setrlimit(RLIMIT_FSIZE, &small);
    std::string what;
    try {
        VideoWriter v(file.string(), 64, 64, 30.0);
        for (int k = 0; k < 5; ++k) v.add(frame(k % 3, 64, 64));
        v.finish();
    } catch (const VideoError& e) { what = e.what(); }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    EXPECT_EQ(what.rfind("cannot write " + file.string() + ": ffmpeg exited with status ", 0), 0u) << what;
    EXPECT_NE(what.find("\n  ffmpeg: "), std::string::npos) << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
    EXPECT_TRUE(fs::is_empty(dir));
}

// Frames of noise do not compress: ffmpeg fails on a write mid-video, exits with 1 and stops
// reading; the add() that meets the closed pipe reports its status and messages.
TEST(VideoWriter, FfmpegFailingMidVideoReportsItsMessages) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("fsize_mid"), file = dir / "x.mp4";
    struct rlimit old {};
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = old;
    small.rlim_cur = 4096;
    auto old_handler = signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    std::string what;
    int added = 0;
    try {
        VideoWriter v(file.string(), 320, 240, 30.0);
        Image noise = frame(0, 320, 240);
        uint32_t seed = 12345;
        for (added = 0; added < 400; ++added) {
            for (uint8_t& b : noise.rgba) b = uint8_t((seed = seed * 1664525u + 1013904223u) >> 24);
            v.add(noise);
        }
        v.finish();
    } catch (const VideoError& e) { what = e.what(); }
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    EXPECT_LT(added, 400) << what;  // it failed before the end
    EXPECT_EQ(what.rfind("cannot write " + file.string() + ": ffmpeg stopped reading frame " + std::to_string(added) +
                             " (Broken pipe): ffmpeg exited with status 1\n  ffmpeg: ",
                         0),
              0u)
        << what;
    EXPECT_NE(what.find("File too large"), std::string::npos) << what;
    EXPECT_TRUE(fs::is_empty(dir));
}

TEST(VideoWriter, UnfinishedVideoLeavesNothing) {
    REQUIRE_FFMPEG();
    fs::path dir = fresh_dir("unfinished");
    int pid = 0;
    {
        VideoWriter v((dir / "x.mkv").string(), 64, 64, 30.0);
        v.add(frame(0, 64, 64));
        pid = v.pid();
    }
    EXPECT_TRUE(fs::is_empty(dir));
    EXPECT_NE(kill(pid, 0), 0);  // ffmpeg was killed and reaped
}

}  // namespace
