// apps/video_output.h: `--video out.mp4` of `weft view --headless` and `weft run`: the option's
// checks, and a viewer::VideoWriter whose temporary and ffmpeg process a signal cleans up.
//
//   check_video_option(path, "--png DIR");     // before anything is built or written: usage errors
//                                              // (exit 2) for the extension, exit 1 without ffmpeg
//   VideoOutput video(path, 1280, 720, fps);   // ffmpeg started, its temporary tracked
//   video.add(image); ...                      // (apps/atomic_write.h: Ctrl-C kills ffmpeg and
//   video.finish();                            //  removes the temporary); out.mp4 appears
#pragma once

#include <memory>
#include <string>

#include "viewer/image.h"

namespace weft::viewer {
class VideoWriter;
}

namespace weft::apps {

// UsageError for a path whose extension is not a container viewer::VideoWriter writes; a
// runtime_error "--video needs ffmpeg, which is not on PATH: apt-get install ffmpeg, or use
// <alternative>" when there is no ffmpeg.
void check_video_option(const std::string& path, const std::string& alternative);

class VideoOutput {
public:
    // Creates the video's folder when it is missing. Throws viewer::VideoError (or a runtime_error
    // naming the folder) when the file cannot be started.
    VideoOutput(const std::string& path, int width, int height, double fps);
    ~VideoOutput();
    void add(const viewer::Image& image);
    void finish();  // the file is complete when it returns
    int frames() const;

private:
    std::unique_ptr<viewer::VideoWriter> writer_;
};

}  // namespace weft::apps
