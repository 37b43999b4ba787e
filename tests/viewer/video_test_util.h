// Helpers of the tests that write videos through ffmpeg and read them back with ffprobe / ffmpeg
// (tests/viewer/video_writer_test.cpp, tests/apps/video_output_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "viewer/video_writer.h"

#define REQUIRE_FFMPEG()                                                                          \
    if (weft::viewer::find_ffmpeg().empty() || system("command -v ffprobe >/dev/null 2>&1") != 0) \
    GTEST_SKIP() << "ffmpeg / ffprobe are not installed (scripts/setup.sh installs ffmpeg)"

namespace weft::test {

// An empty folder WEFT_BINARY_DIR/test-artifacts/GROUP/NAME for one test's files.
inline std::filesystem::path fresh_artifact_dir(const std::string& group, const std::string& name) {
    std::filesystem::path d = std::filesystem::path(WEFT_BINARY_DIR) / "test-artifacts" / group / name;
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

// Everything `cmd` writes to stdout.
inline std::string capture(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    char buf[65536];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
    return out;
}

// ffprobe's key=value lines for the first video stream (frames counted by decoding): codec_name,
// width, height, pix_fmt, nb_read_frames, r_frame_rate, duration.
inline std::map<std::string, std::string> probe(const std::filesystem::path& file) {
    std::string out = capture(
        "ffprobe -v error -count_frames -select_streams v:0 -show_entries "
        "stream=codec_name,width,height,pix_fmt,nb_read_frames,r_frame_rate:format=duration "
        "-of default=noprint_wrappers=1 '" +
        file.string() + "'");
    std::map<std::string, std::string> kv;
    size_t pos = 0;
    while (pos < out.size()) {
        size_t nl = out.find('\n', pos), eq = out.find('=', pos);
        if (nl == std::string::npos) nl = out.size();
        if (eq < nl) kv[out.substr(pos, eq - pos)] = out.substr(eq + 1, nl - eq - 1);
        pos = nl + 1;
    }
    return kv;
}

}  // namespace weft::test
