// viewer/script_renderer.h: the renderer a simulation script drives frame by frame, in the shape
// of Warp 1.9's wp.sim.render.SimRendererOpenGL (python/weft/sim_render.py binds it):
//
//   ScriptRenderer r("cloth", 1024, 768, "");     // a window; or png_dir = "out/": PNG frames
//   while (r.is_running()) {
//       r.begin_frame(t);
//       r.render(model, state);                    // what the model's particles, cloth, springs,
//       r.end_frame();                             //   shapes, bodies and smoke look like now
//   }
//
// In a window, end_frame draws and handles input (left drag orbits, right drag pans, the wheel
// zooms; closing the window ends is_running()). Headless, end_frame writes
// png_dir/frame_NNNNN.png, numbered from 0. The camera frames the first state rendered.
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

class ScriptRenderer {
public:
    // Throws runtime::RuntimeError when no window (or, headless, no context) can be made.
    ScriptRenderer(const std::string& title, int width, int height, const std::string& png_dir);
    ~ScriptRenderer();

    void begin_frame(double time);
    // Takes what to draw from `state` (a copy to the host); the last call before end_frame wins.
    void render(const engine::Model& model, const engine::State& state);
    void end_frame();
    bool is_running() const;
    void close();

    double time() const { return time_; }
    int frames() const { return frames_; }                                // end_frame calls so far
    const std::vector<std::string>& written() const { return written_; }  // headless: the files
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
    std::string png_dir_;
    FrameData frame_;
    bool fitted_ = false, closed_ = false, in_frame_ = false;
    double time_ = 0;
    int frames_ = 0;
    double mouse_x_ = 0, mouse_y_ = 0;
    std::vector<std::string> written_;
};

}  // namespace weft::viewer
