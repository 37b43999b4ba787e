// apps/video_output.cpp: see video_output.h.
//
// Every step that changes whether a temporary exists runs inside SignalsHeld, so a signal sees
// either no temporary or a tracked one: starting (mkstemp + ffmpeg) then tracking; untracking
// then finishing (rename or removal); a failed add() has already removed the temporary and
// reaped ffmpeg, so it is untracked before the error travels on.
#include "apps/video_output.h"

#include <filesystem>
#include <system_error>

#include "apps/atomic_write.h"
#include "apps/cli.h"
#include "viewer/video_writer.h"

namespace weft::apps {

void check_video_option(const std::string& path, const std::string& alternative) {
    if (!viewer::is_video_path(path))
        throw UsageError("--video '" + path + "': the extension chooses the container: .mp4, .mov, .mkv or .webm");
    if (viewer::find_ffmpeg().empty())
        throw std::runtime_error("--video needs ffmpeg, which is not on PATH: apt-get install ffmpeg, or use " + alternative);
}

VideoOutput::VideoOutput(const std::string& path, int width, int height, double fps) {
    std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(parent, ec);
        if (ec)
            throw std::runtime_error("cannot write " + path + ": cannot create folder " + parent.string() + ": " + ec.message());
    }
    SignalsHeld held;
    writer_ = std::make_unique<viewer::VideoWriter>(path, width, height, fps);
    track_temporary(writer_->temporary_path(), writer_->pid());
}

VideoOutput::~VideoOutput() {
    SignalsHeld held;
    untrack_temporary();
    writer_.reset();  // an unfinished video: ffmpeg killed, the temporary removed
}

void VideoOutput::add(const viewer::Image& image) {
    try {
        writer_->add(image);
    } catch (...) {
        untrack_temporary();
        throw;
    }
}

void VideoOutput::finish() {
    SignalsHeld held;
    untrack_temporary();
    writer_->finish();
}

int VideoOutput::frames() const { return writer_->frames(); }

}  // namespace weft::apps
