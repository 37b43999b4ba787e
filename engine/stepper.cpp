// engine/stepper.cpp: see stepper.h.
#include "engine/stepper.h"

#include <string>
#include <utility>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"

namespace weft::engine {

FrameStepper::FrameStepper(const Model& model, State& a, State& b, int substeps, Step step, bool graphs, bool launch_lists)
    : model_(model),
      a_(&a),
      b_(&b),
      current_(&a),
      substeps_(substeps),
      step_(std::move(step)),
      graphs_(graphs),
      launch_lists_(launch_lists) {
    if (substeps < 1) throw runtime::RuntimeError("FrameStepper: substeps must be >= 1, got " + std::to_string(substeps));
    if (!step_) throw runtime::RuntimeError("FrameStepper: no step function");
    if (&a == &b) throw runtime::RuntimeError("FrameStepper: the two states must be different objects");
}

bool FrameStepper::uses_graph() const {
    const bool replays = model_.device.supports(runtime::Capability::GraphCapture) ||
                         (launch_lists_ && model_.device.supports(runtime::Capability::PersistentLaunch));
    return graphs_ && replays && !model_.requires_grad && !runtime::config().debug && runtime::active_recorder() == nullptr;
}

bool FrameStepper::uses_launch_list() const { return from_a_.is_launch_list() || from_b_.is_launch_list(); }

const std::string& FrameStepper::why_not_listed() const {
    return from_a_.why_not_listed().empty() ? from_b_.why_not_listed() : from_a_.why_not_listed();
}

void FrameStepper::run_eagerly(State* from, State* to) const {
    for (int s = 0; s < substeps_; ++s) {
        step_(*from, *to);
        std::swap(from, to);
    }
}

const runtime::Replay& FrameStepper::replay_from(State* start) {
    runtime::Replay& r = start == a_ ? from_a_ : from_b_;
    if (!r.valid()) {
        State* other = start == a_ ? b_ : a_;
        runtime::ReplayOptions o;
        o.launch_list = launch_lists_;
        r = runtime::Replay(
            model_.device, [this, start, other] { run_eagerly(start, other); }, o);
    }
    return r;
}

void FrameStepper::advance() {
    State* other = current_ == a_ ? b_ : a_;
    if (frames_ == 0 || !uses_graph())
        run_eagerly(current_, other);
    else
        replay_from(current_).run();
    if (substeps_ % 2 == 1) current_ = other;
    ++frames_;
}

}  // namespace weft::engine
