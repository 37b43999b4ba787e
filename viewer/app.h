// viewer/app.h: the interactive window of `weft view`.
//
//   +--------------------------------------------------------------+
//   | [Playback]  play/pause step reset speed  frame 120  812 st/s |
//   | [Device]    cpu v  (cuda:0 greyed: no GPU)  progress  cancel |
//   | [Parameters] gravity, contact stiffness/damping/friction, ... |
//   | [Picker]    particle 12: position ..., velocity ...           |
//   | [Profile]   kernels by cycles -> click: lines with heat bars  |
//   |                       3D view (orbit / pan / zoom)           |
//   +--------------------------------------------------------------+
//
// Frames (and device switches, which compile) run on a worker thread, so the window keeps drawing
// while the simulator works; the UI thread touches the Session only while no job runs. A job that
// throws leaves its message in the panels and the scene runnable: a frame that fails on a device
// the user switched to moves the scene back to the previous device. Mouse: left drag orbits,
// right or shift-left drag pans, the wheel zooms, a left click picks a particle. Keys: space
// play/pause, '.' one frame, 'r' reset, 's' screenshot (PNG), 'h' help, 'f' frame the scene.
// Frames are drawn from vertex arrays (snapshot's `vertex_arrays`): on cuda the window reads the
// State's positions on the device (CUDA-OpenGL interop), with no host copy. Running ahead, the
// worker steps frames back to back and publishes a snapshot whenever the window took the last one.
#pragma once

#include <string>

#include "viewer/frame_data.h"
#include "viewer/session.h"

namespace weft::viewer {

struct AppOptions {
    int width = 1280, height = 800;    // window size, pixels
    int frames = -1;                   // >= 0: play from the start and close after that many frames
    std::string screenshot_dir = ".";  // where 's' writes weft_NNNNN.png
    std::string window_png_dir;        // non-empty: after each frame, the whole window (panels
                                       //   included) to DIR/frame_NNNNN.png
    ColorOptions colors;
    bool run_ahead = false;  // frames back to back as fast as the device goes (Playback::run_ahead)
};

// Opens the window and runs until it is closed (or `frames` frames were simulated). Returns 0, or
// 1 when a frame failed with `frames` set. Throws runtime::RuntimeError when no window can be
// opened (no display: the message suggests --headless and xvfb-run).
int run_app(Session& session, const AppOptions& options);

// The help overlay's text: one shortcut a line.
const char* help_text();

}  // namespace weft::viewer
