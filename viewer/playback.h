// viewer/playback.h: play / pause / step / reset, the playback speed and the measured steps per
// second, as a state machine the window asks once per UI frame. No clock of its own: the caller
// passes the time, so the tests drive it with made-up times.
//
//   Playback p;                          // paused
//   p.toggle();                          // space: playing
//   int n = p.frames_due(now, fps);      // 0 or 1 frames to simulate now
//   ... simulate; p.frame_done(steps, seconds);
//
// While playing, frames are due at `speed` x the scene's frame rate of wall-clock time; when the
// simulation is slower than that, frames run back to back (at most one per UI frame, so the window
// keeps drawing) and the backlog is dropped rather than run later. step() asks for exactly one
// frame and pauses; reset() is taken once by the caller.
#pragma once

namespace weft::viewer {

class Playback {
public:
    bool playing() const { return playing_; }
    void play();
    void pause();
    void toggle();
    void step();   // one frame now, then paused
    void reset();  // the caller resets the simulation when take_reset() says so (and pauses)

    float speed = 1.0f;  // simulated seconds per wall-clock second, (0, 100]
    // While playing, frames run back to back as fast as the device goes instead of at `speed`
    // (the window's run-ahead loop; frames_due is then not asked).
    bool run_ahead = false;

    // Frames to simulate now (0 or 1) at wall-clock time `now` (s) for a scene of `fps` frames per
    // simulated second.
    int frames_due(double now, double fps);
    bool take_reset();

    // Records a simulated frame of `steps` solver steps that took `seconds` of wall-clock time.
    void frame_done(int steps, double seconds);
    double steps_per_second() const { return steps_per_second_; }  // averaged over about 10 frames; 0 before any
    long frames_done() const { return frames_done_; }

private:
    bool playing_ = false;
    bool step_requested_ = false;
    bool reset_requested_ = false;
    double next_due_ = -1.0;  // wall-clock time of the next frame while playing; < 0: now
    double steps_per_second_ = 0.0;
    long frames_done_ = 0;
};

}  // namespace weft::viewer
