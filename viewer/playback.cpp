// viewer/playback.cpp: see playback.h.
#include "viewer/playback.h"

#include <algorithm>

namespace weft::viewer {

void Playback::play() {
    playing_ = true;
    next_due_ = -1.0;
}

void Playback::pause() { playing_ = false; }

void Playback::toggle() { playing_ ? pause() : play(); }

void Playback::step() {
    playing_ = false;
    step_requested_ = true;
}

void Playback::reset() {
    playing_ = false;
    step_requested_ = false;
    reset_requested_ = true;
}

bool Playback::take_reset() {
    bool r = reset_requested_;
    reset_requested_ = false;
    return r;
}

int Playback::frames_due(double now, double fps) {
    if (step_requested_) {
        step_requested_ = false;
        return 1;
    }
    if (!playing_) return 0;
    double period = 1.0 / (fps * double(std::clamp(speed, 1e-3f, 100.0f)));
    if (next_due_ < 0.0) next_due_ = now;
    if (now < next_due_) return 0;
    // Behind by more than a frame: drop the backlog instead of catching up later.
    next_due_ = std::max(next_due_ + period, now);
    return 1;
}

void Playback::frame_done(int steps, double seconds) {
    ++frames_done_;
    if (seconds <= 0.0) return;
    double rate = double(steps) / seconds;
    steps_per_second_ = steps_per_second_ == 0.0 ? rate : 0.9 * steps_per_second_ + 0.1 * rate;
}

}  // namespace weft::viewer
