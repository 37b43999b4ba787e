// viewer/session.h: a scene being watched: its model, state and integrator on one device, advanced
// a frame at a time, with the edits a viewer makes between frames. No window, no GL: the window
// (viewer/app.cpp), `weft view --headless` and the tests drive the same object.
//
//   Session s(load_scene("scenes/cloth_drape.toml"));   // on the scene's device
//   s.step_frame();                                     // scene.substeps solver steps
//   s.switch_device("sim:h200");                        // State and Control move; next frame continues
//   s.set_parameter("gravity_y", -3.0f);                // live edit, kept across switches and resets
//
// Device switch: the model is built again from the scene on the new device (the same builder, so
// the same arrays bit for bit), the edits are applied again, and the current State's arrays and
// the Control are copied across (runtime::Array::assign between devices). A new integrator is made
// for the device (its scratch lives there). The next frame starts from the same positions and
// velocities, so a run that switches between devices of the same arithmetic is bit-identical to
// one that does not (tests/viewer/session_test.cpp).
//
// A frame that throws (a device that fails mid-frame, the simulator's errors) or is cancelled
// leaves the state as it was before the frame: the frame's start is kept (host copy) and put back.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/integrator.h"
#include "engine/scene.h"
#include "engine/stepper.h"
#include "viewer/frame_data.h"

namespace weft::viewer {

// A scalar of the model a viewer may edit between frames.
struct ParameterSpec {
    std::string name;      // "gravity_y"
    std::string label;     // "gravity y (m/s^2)"
    float lo = 0, hi = 0;  // the accepted range (inclusive)
};

// One device the viewer can switch to, and whether it can here.
struct DeviceChoice {
    std::string device;  // "cpu", "cuda:0", "sim:h200"
    bool available = false;
    std::string reason;  // why not (the runtime's message), "" when available
};

// cpu, cuda:0 and sim:ARCH for every known architecture, each probed (runtime::backend).
std::vector<DeviceChoice> device_choices();

// Thrown out of step_frame when its cancel flag was raised; the state is back at the frame's start.
struct FrameCancelled : std::runtime_error {
    FrameCancelled() : std::runtime_error("the frame was cancelled") {}
};

class Session {
public:
    // Builds the scene's model on `device` ("" = the scene's own). Throws what finalize,
    // parse_device and create_integrator throw.
    explicit Session(engine::Scene scene, const std::string& device = "");
    ~Session();

    // Advances one frame (scene.substeps steps). `progress` (nullable) is called after each step
    // with (steps done, steps in the frame); `cancel` (nullable) is read before each step. On an
    // exception (FrameCancelled when cancelled) the state is the frame's start again.
    void step_frame(const std::function<void(int, int)>& progress = nullptr, const std::atomic<bool>* cancel = nullptr);
    // Back to the scene's initial state (frame 0), on the current device, edits kept.
    void reset();
    // Moves the simulation to `device` between frames. On an exception (the device is not there,
    // its compiler fails) the session stays on the device it was on, unchanged. Switching to the
    // device it is on builds it there again (the same trajectory, bit for bit).
    void switch_device(const std::string& device);

    // Live edits: see parameters(). Throws runtime::RuntimeError for an unknown name (with a
    // did-you-mean) or a value out of range (naming both).
    static const std::vector<ParameterSpec>& parameters();
    void set_parameter(const std::string& name, float value);
    float parameter(const std::string& name) const;

    // `vertex_arrays`: see viewer::snapshot (the window draws those; host vectors for tests and PNGs).
    FrameData snapshot(const ColorOptions& colors = {}, bool vertex_arrays = false) const;

    // Whether whole frames may run as one CUDA graph (the default; only cuda devices capture).
    // Off, every launch of a frame is made one by one, which is what measuring each kernel's time
    // needs (runtime/kernel_timing.h): a graph's replay launches nothing the runtime sees. The
    // trajectory is the same either way.
    void set_graphs(bool on);
    bool graphs() const { return graphs_; }

    const engine::Scene& scene() const { return scene_; }
    const engine::Model& model() const { return *model_; }
    const engine::State& state() const;
    const runtime::Device& device() const { return model_->device; }
    const engine::Integrator& integrator() const { return *integrator_; }
    int frame() const { return frame_; }  // frames since the start (or reset)
    int substeps() const { return substeps_; }

private:
    void build(const runtime::Device& device);  // model, states, control, integrator, stepper
    void apply_parameters();
    void make_stepper();

    engine::Scene scene_;
    int substeps_;
    std::vector<std::pair<std::string, float>> edits_;  // in the order made
    std::unique_ptr<engine::Model> model_;
    std::unique_ptr<engine::State> a_, b_;
    engine::Control control_;
    std::unique_ptr<engine::Integrator> integrator_;
    std::unique_ptr<engine::FrameStepper> stepper_;
    engine::State* current_ = nullptr;
    int frame_ = 0;
    bool graphs_ = true;
    std::unique_ptr<SnapshotCache> cache_;  // the model's arrays on the host; new with each model
};

}  // namespace weft::viewer
