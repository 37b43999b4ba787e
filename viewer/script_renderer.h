// viewer/script_renderer.h: the renderer a simulation script drives frame by frame, in the shape
// of Warp 1.9's wp.sim.render.SimRendererOpenGL (python/weft/sim_render.py binds it):
//
//   ScriptRenderer r("cloth", 1024, 768, "");     // a window; or png_dir = "out/": PNG frames;
//                                                 // or video_path = "out.mp4": a video (finish())
//   while (r.is_running()) {
//       r.begin_frame(t);
//       r.render(model, state);                    // what the model's particles, cloth, springs,
//       r.end_frame();                             //   shapes, bodies and smoke look like now
//   }
//
// In a window, end_frame draws and handles input (left drag orbits, right drag pans, the wheel
// zooms; closing the window ends is_running()). Headless, end_frame writes
// png_dir/frame_NNNNN.png, numbered from 0, and/or adds the frame to the video at video_path
// (viewer/video_writer.h: ffmpeg, `fps` frames per second), which finish() or close() completes;
// a renderer destroyed before that removes the unfinished video. The camera frames the first
// state rendered.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/model.h"
#include "viewer/camera.h"
#include "viewer/frame_data.h"
#include "viewer/renderer.h"

namespace weft::viewer {

class Window;
class FrameWriter;
class VideoWriter;

class ScriptRenderer {
public:
    // A window when png_dir and video_path are both empty. Throws runtime::RuntimeError when no
    // window (or, headless, no context) can be made, VideoError when the video cannot be started.
    ScriptRenderer(const std::string& title, int width, int height, const std::string& png_dir,
                   const std::string& video_path = "", double fps = 60.0);
    ~ScriptRenderer();

    void begin_frame(double time);
    // Takes what to draw from `state` (a copy to the host); the last call before end_frame wins.
    void render(const engine::Model& model, const engine::State& state);
    void end_frame();
    bool is_running() const;
    // Completes the video (its path joins written()); nothing without one or once done.
    void finish();
    void close();  // finish(), then the window or context goes

    double time() const { return time_; }
    int frames() const { return frames_; }                                // end_frame calls so far
    const std::vector<std::string>& written() const { return written_; }  // headless: the files, the video once finished
    bool show_particles = true;
    bool show_springs = true;
    bool show_surfaces = true;
    bool show_joints = false;  // the joints' frames as axes (Warp's default: off)
    ColorOptions colors;
    RenderOptions options;
    OrbitCamera camera;

private:
    std::unique_ptr<Window> window_;
    std::unique_ptr<FrameWriter> writer_;
    std::unique_ptr<Renderer> renderer_;
    std::unique_ptr<VideoWriter> video_;
    std::string png_dir_;
    FrameData frame_;
    std::unique_ptr<SnapshotCache> cache_;  // of the model last rendered (a new one for another model)
    const engine::Model* cached_model_ = nullptr;
    bool fitted_ = false, closed_ = false, in_frame_ = false;
    double time_ = 0;
    int frames_ = 0;
    double mouse_x_ = 0, mouse_y_ = 0;
    std::vector<std::string> written_;
};

}  // namespace weft::viewer
