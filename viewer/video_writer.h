// viewer/video_writer.h: a video file from rendered frames, encoded by Debian's ffmpeg, for
// `weft view --headless --video`, `weft run --video` and wp.sim.render.SimRenderer("out.mp4").
//
//   VideoWriter v("out.mp4", 1280, 720, 60.0);  // starts ffmpeg, which reads raw RGB from a pipe
//   v.add(image);                                // one frame (rgb24: the alpha channel is dropped)
//   v.finish();                                  // waits for ffmpeg; out.mp4 appears, whole
//
// The file is whole or absent. ffmpeg writes a temporary next to it (`out.mp4.tmp.XXXXXX`, made
// by mkstemp, so nothing planted in the folder is followed), renamed over `out.mp4` only when
// ffmpeg exits with status 0. Every failure throws VideoError and leaves no file: ffmpeg not on
// PATH (checked before anything is created), a folder that cannot be written, ffmpeg exiting
// with another status, reporting an error (it exits with 0 after failing to write the file's
// end) or dying mid-video. Its message names ffmpeg's exit status (or signal) and
// the last lines ffmpeg wrote to stderr. The destructor of an unfinished writer kills ffmpeg and
// removes the temporary.
//
// ffmpeg is started with posix_spawn and an explicit argv, so a path is one argument and never
// shell text. Frames are written with SIGPIPE blocked on the writing thread (and a SIGPIPE that
// the write raised discarded), so an ffmpeg that died is an EPIPE error here, not a process
// killed by SIGPIPE. ffmpeg runs in a process group of its own, so a Ctrl-C at the terminal
// reaches the program, which decides what happens to the video (apps/atomic_write.h: it kills
// ffmpeg and removes the temporary).
//
// Containers: .mp4, .mov and .mkv (H.264, ffmpeg's default encoder for them, libx264) and .webm
// (VP9), all in yuv420p, which needs an even width and height.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "viewer/image.h"

namespace weft::viewer {

struct VideoError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The ffmpeg that PATH finds ("" when none): the first executable PATH entry/ffmpeg.
std::string find_ffmpeg();

// Whether `path` names a container VideoWriter writes (.mp4, .mov, .mkv, .webm).
bool is_video_path(const std::string& path);

class VideoWriter {
public:
    // Throws VideoError: no ffmpeg on PATH, an extension other than the four above, an odd width
    // or height, a temporary that cannot be created (the folder is missing or not writable).
    VideoWriter(const std::string& path, int width, int height, double fps);
    ~VideoWriter();
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;

    // Appends one frame of exactly width x height. Throws VideoError when ffmpeg stopped reading.
    void add(const Image& image);
    // Ends the input, waits for ffmpeg and renames the temporary into place. Throws VideoError
    // (nothing left behind) when ffmpeg did not exit with status 0.
    void finish();

    const std::string& path() const { return path_; }
    const std::string& temporary_path() const { return tmp_; }  // what ffmpeg writes until finish()
    int pid() const { return pid_; }                            // ffmpeg's process id (0 once it was waited for)
    int frames() const { return frames_; }

private:
    [[noreturn]] void fail(const std::string& what);  // kills / waits for ffmpeg, removes the temporary, throws
    std::string status_text(int status) const;        // "exited with status 1" / "was killed by signal 9 (Killed)"
    std::string stderr_tail() const;                  // ffmpeg's last stderr lines, indented
    void discard();                                   // what fail() and the destructor do, without the throw

    std::string path_, tmp_;
    int width_, height_;
    int pid_ = 0;
    int pipe_ = -1;   // ffmpeg's stdin
    int errfd_ = -1;  // ffmpeg's stderr (a memfd)
    int frames_ = 0;
    std::vector<unsigned char> rgb_;
};

}  // namespace weft::viewer
