// engine/stepper.h: advance a model frame by frame; on a device that supports graph capture (CUDA)
// each frame's substeps run as one graph.
//
//     FrameStepper frames(model, state_a, state_b, substeps,
//                         [&](State& in, State& out) { integrator.simulate(model, in, out, dt); });
//     for (int f = 0; f < 60; ++f) { frames.advance(); use(frames.current()); }
//
// A frame is `substeps` steps, each reading one state and writing the other. The first frame runs
// eagerly (it compiles or loads every kernel the step launches); from the second on, a frame is a
// runtime::Replay of the substeps recorded once (runtime/replay.h): a CUDA graph on cuda devices,
// which replaces substeps x (launches per step) driver calls by one. With an odd number of
// substeps a frame ends in the other state, so two replays are recorded, one starting from each.
// On a device without runtime::Capability::GraphCapture (cpu, sim), in debug mode, under an
// active Tape, or for a model with requires_grad (whose integrators allocate arrays per step),
// every frame runs eagerly; the results are the same either way. Pass `graphs = false` for a step
// whose integrator lacks IntegratorCaps_GraphCapture (engine/integrator.h).
//
// `launch_lists = true` makes the replay a runtime::LaunchList where the device has
// Capability::PersistentLaunch (cuda, sim): the frame's launches become ONE launch of a
// persistent grid with a grid barrier between them, for small systems whose frames are
// launch-bound (docs/engine.md, "Launch lists"). A frame the list cannot hold (one that
// zeroes an array, or launches a kernel with barriers: runtime/launch_list.h) is a graph as
// before, and why_not_listed() says why. Results are the same bits either way.
//
// The states are used in place (never reallocated or swapped by value): the graph holds their
// addresses. Change what they hold (assign, copy into them) between frames, not the arrays.
#pragma once

#include <functional>
#include <string>

#include "engine/model.h"
#include "runtime/replay.h"

namespace weft::engine {

class FrameStepper {
public:
    using Step = std::function<void(State& in, State& out)>;
    // `graphs = false` runs every frame eagerly (to compare, or to time launches one by one).
    FrameStepper(const Model& model, State& a, State& b, int substeps, Step step, bool graphs = true, bool launch_lists = false);

    void advance();                         // one frame
    State& current() { return *current_; }  // the state the last frame ended in
    int frames() const { return frames_; }
    bool uses_graph() const;                    // whether frames after the first are replayed (a graph or a launch list)
    bool uses_launch_list() const;              // whether the replay so far is a launch list
    const std::string& why_not_listed() const;  // with launch_lists, once a frame was replayed: "" or why not

private:
    void run_eagerly(State* from, State* to) const;
    const runtime::Replay& replay_from(State* start);

    const Model& model_;
    State* a_;
    State* b_;
    State* current_;
    int substeps_;
    Step step_;
    bool graphs_;
    bool launch_lists_;
    int frames_ = 0;
    runtime::Replay from_a_, from_b_;
};

}  // namespace weft::engine
