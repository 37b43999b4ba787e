// viewer/session.cpp: building, stepping, moving and editing a scene's simulation (session.h).
#include "viewer/session.h"

#include <algorithm>
#include <cmath>

#include "engine/integrator_registry.h"
#include "runtime/errors.h"
#include "runtime/sim/sim_backend.h"
#include "support/closest_name.h"

namespace weft::viewer {

namespace {

// The model's editable scalars: where each lives in the Model.
float* field(engine::Model& m, const std::string& name) {
    if (name == "gravity_x") return &m.gravity[0];
    if (name == "gravity_y") return &m.gravity[1];
    if (name == "gravity_z") return &m.gravity[2];
    if (name == "contact_ke") return &m.soft_contact_ke;
    if (name == "contact_kd") return &m.soft_contact_kd;
    if (name == "contact_kf") return &m.soft_contact_kf;
    if (name == "contact_mu") return &m.soft_contact_mu;
    if (name == "particle_ke") return &m.particle_ke;
    if (name == "particle_kd") return &m.particle_kd;
    if (name == "particle_mu") return &m.particle_mu;
    if (name == "drag") return &m.particle_drag;
    return nullptr;
}

const ParameterSpec& spec(const std::string& name) {
    for (const ParameterSpec& p : Session::parameters())
        if (p.name == name) return p;
    std::vector<std::string> names;
    for (const ParameterSpec& p : Session::parameters()) names.push_back(p.name);
    std::string near = support::closest_name(name, names);
    throw runtime::RuntimeError("viewer: no parameter '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

}  // namespace

std::vector<DeviceChoice> device_choices() {
    std::vector<std::string> names = {"cpu", "cuda:0"};
    for (const std::string& arch : runtime::sim_arch_names()) names.push_back("sim:" + arch);
    std::vector<DeviceChoice> out;
    for (const std::string& n : names) {
        DeviceChoice c{n, true, ""};
        try {
            runtime::backend(runtime::parse_device(n));
        } catch (const std::exception& e) {
            c.available = false;
            c.reason = e.what();
        }
        out.push_back(c);
    }
    return out;
}

const std::vector<ParameterSpec>& Session::parameters() {
    static const std::vector<ParameterSpec> specs = {
        {"gravity_x", "gravity x (m/s^2)", -100.0f, 100.0f},
        {"gravity_y", "gravity y (m/s^2)", -100.0f, 100.0f},
        {"gravity_z", "gravity z (m/s^2)", -100.0f, 100.0f},
        {"contact_ke", "contact stiffness (N/m)", 0.0f, 1e7f},
        {"contact_kd", "contact damping (N s/m)", 0.0f, 1e5f},
        {"contact_kf", "contact friction stiffness (N s/m)", 0.0f, 1e7f},
        {"contact_mu", "contact friction", 0.0f, 10.0f},
        {"particle_ke", "particle stiffness (N/m)", 0.0f, 1e7f},
        {"particle_kd", "particle damping (N s/m)", 0.0f, 1e5f},
        {"particle_mu", "particle friction", 0.0f, 10.0f},
        {"drag", "drag (N s/m)", 0.0f, 1e3f},
        {"substeps", "substeps per frame", 1.0f, 1000.0f},
    };
    return specs;
}

Session::Session(engine::Scene scene, const std::string& device) : scene_(std::move(scene)), substeps_(scene_.substeps) {
    build(runtime::parse_device(device.empty() ? scene_.device : device));
}

Session::~Session() = default;

const engine::State& Session::state() const { return *current_; }

void Session::build(const runtime::Device& device) {
    auto model = std::make_unique<engine::Model>(scene_.builder.finalize(device.str()));
    auto integrator = engine::create_integrator(scene_.solver, scene_.solver_options);
    model_ = std::move(model);
    integrator_ = std::move(integrator);
    cache_ = std::make_unique<SnapshotCache>();
    a_ = std::make_unique<engine::State>(model_->state());
    b_ = std::make_unique<engine::State>(model_->state());
    control_ = model_->control();
    current_ = a_.get();
    apply_parameters();
}

void Session::apply_parameters() {
    for (const auto& [name, value] : edits_)
        if (float* f = field(*model_, name)) *f = value;
    make_stepper();
}

void Session::make_stepper() {
    // A replayed graph holds the launches' scalar arguments (gravity, dt): edits make a new stepper.
    const float dt = 1.0f / (scene_.fps * float(substeps_));
    engine::State* start = current_;
    engine::State* other = start == a_.get() ? b_.get() : a_.get();
    bool graphs = graphs_ && integrator_->info().can(engine::IntegratorCaps_GraphCapture);
    stepper_ = std::make_unique<engine::FrameStepper>(
        *model_, *start, *other, substeps_,
        [this, dt](engine::State& in, engine::State& out) { integrator_->simulate(*model_, in, out, dt, &control_); }, graphs);
}

void Session::set_graphs(bool on) {
    if (on == graphs_) return;
    graphs_ = on;
    make_stepper();
}

namespace {

// The rigid bodies' poses and velocities of `from` into `to` (states of the same scene).
void copy_bodies(engine::State& to, const engine::State& from) {
    if (from.body_count == 0) return;
    to.body_q.assign(from.body_q);
    to.body_qd.assign(from.body_qd);
}

}  // namespace

void Session::step_frame(const std::function<void(int, int)>& progress, const std::atomic<bool>* cancel) {
    // The frame's start, to put back if the frame does not finish.
    engine::State saved = model_->state();
    saved.particle_q.assign(current_->particle_q);
    saved.particle_qd.assign(current_->particle_qd);
    copy_bodies(saved, *current_);
    try {
        if (progress || cancel) {
            // Eagerly, step by step, so that progress is reported and cancel is honoured per step.
            engine::State* from = current_;
            engine::State* to = from == a_.get() ? b_.get() : a_.get();
            const float dt = 1.0f / (scene_.fps * float(substeps_));
            for (int s = 0; s < substeps_; ++s) {
                if (cancel && cancel->load()) throw FrameCancelled();
                integrator_->simulate(*model_, *from, *to, dt, &control_);
                std::swap(from, to);
                if (progress) progress(s + 1, substeps_);
            }
            current_ = from;
            make_stepper();  // the stepper follows the state the frame ended in
        } else {
            stepper_->advance();
            current_ = &stepper_->current();
        }
    } catch (...) {
        current_->particle_q.assign(saved.particle_q);
        current_->particle_qd.assign(saved.particle_qd);
        copy_bodies(*current_, saved);
        make_stepper();
        throw;
    }
    ++frame_;
}

void Session::reset() {
    current_ = a_.get();
    a_->particle_q.assign(model_->particle_q);
    a_->particle_qd.assign(model_->particle_qd);
    if (model_->body_count > 0) {
        a_->body_q.assign(model_->body_q);
        a_->body_qd.assign(model_->body_qd);
    }
    a_->particle_f.zero();
    frame_ = 0;
    make_stepper();
}

void Session::switch_device(const std::string& device) {
    runtime::Device target = runtime::parse_device(device);
    // Build everything on the new device first; the session changes only when all of it worked.
    Session moved(scene_, target.str());
    moved.edits_ = edits_;
    moved.substeps_ = substeps_;
    moved.apply_parameters();
    moved.current_->particle_q.assign(current_->particle_q);
    moved.current_->particle_qd.assign(current_->particle_qd);
    moved.current_->particle_f.assign(current_->particle_f);
    copy_bodies(*moved.current_, *current_);
    if (control_.particle_f.valid()) moved.control_.particle_f.assign(control_.particle_f);
    moved.stepper_.reset();  // it refers to the temporary session
    // Take its parts (the stepper refers to the model and states by address, which moving the
    // unique_ptrs keeps).
    model_ = std::move(moved.model_);
    a_ = std::move(moved.a_);
    b_ = std::move(moved.b_);
    control_ = moved.control_;
    integrator_ = std::move(moved.integrator_);
    cache_ = std::move(moved.cache_);
    current_ = moved.current_;
    make_stepper();  // its step lambda must capture this session, not the temporary
}

void Session::set_parameter(const std::string& name, float value) {
    const ParameterSpec& p = spec(name);
    if (!(value >= p.lo && value <= p.hi))
        throw runtime::RuntimeError("viewer: " + name + " = " + std::to_string(value) + " is out of range [" +
                                    std::to_string(p.lo) + ", " + std::to_string(p.hi) + "]");
    if (name == "substeps") {
        substeps_ = int(std::lround(value));
    } else {
        *field(*model_, name) = value;
        auto it = std::find_if(edits_.begin(), edits_.end(), [&](const auto& e) { return e.first == name; });
        if (it != edits_.end())
            it->second = value;
        else
            edits_.emplace_back(name, value);
    }
    make_stepper();
}

float Session::parameter(const std::string& name) const {
    spec(name);
    if (name == "substeps") return float(substeps_);
    return *field(*model_, name);
}

FrameData Session::snapshot(const ColorOptions& colors, bool vertex_arrays) const {
    return viewer::snapshot(*model_, *current_, integrator_->renderables(*model_), scene_.builder.shape_geo_src, colors,
                            cache_.get(), vertex_arrays);
}

}  // namespace weft::viewer
