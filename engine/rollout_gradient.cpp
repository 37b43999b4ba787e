// engine/rollout_gradient.cpp: rollouts under the Tape (plain or checkpointed), forward-only
// rollouts for finite differences, and the two non-finite diagnoses.
#include "engine/rollout_gradient.h"

#include <cmath>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/checkpoint.h"
#include "tape/tape.h"

namespace weft::engine {

namespace {

// The Model arrays that may carry gradients (engine/finalize.cpp uploads them with one).
std::vector<runtime::Array> model_arrays(const Model& m) {
    return {m.particle_q,         m.particle_qd,      m.particle_mass,           m.particle_inv_mass, m.particle_radius,
            m.spring_rest_length, m.spring_stiffness, m.spring_damping,          m.tri_poses,         m.tri_activations,
            m.tri_materials,      m.edge_rest_angle,  m.edge_bending_properties, m.tet_poses,         m.tet_activations,
            m.tet_materials};
}

const char* model_array_names[] = {
    "particle_q",         "particle_qd",      "particle_mass",           "particle_inv_mass", "particle_radius",
    "spring_rest_length", "spring_stiffness", "spring_damping",          "tri_poses",         "tri_activations",
    "tri_materials",      "edge_rest_angle",  "edge_bending_properties", "tet_poses",         "tet_activations",
    "tet_materials"};

// The first non-finite float of `a` (float32 storage), or -1.
int64_t first_nonfinite(const runtime::Array& a) {
    if (!a.valid() || a.size() == 0) return -1;
    std::vector<float> h(a.nbytes() / sizeof(float));
    a.copy_to_host(h.data(), h.size() * sizeof(float));
    for (size_t i = 0; i < h.size(); ++i)
        if (!std::isfinite(h[i])) return int64_t(i);
    return -1;
}

// Seeds the final State's gradients with the loss's and runs the tape backward.
LossValue backward_from_loss(tape::Tape& t, const Model& m, const State& last, const LossExpr& loss) {
    LossValue lv = loss.evaluate(m, last);
    auto seed = [&](const std::string& name) {
        const auto& g = lv.gradient.at(name);
        std::vector<float> f(g.begin(), g.end());
        runtime::Array a = runtime::Array::empty(vec3_type(), {int64_t(m.particle_count)}, m.device);
        if (!f.empty()) a.copy_from_host(f.data(), f.size() * sizeof(float));
        return a;
    };
    t.backward({{last.particle_q, seed("particle_q")}, {last.particle_qd, seed("particle_qd")}});
    return lv;
}

// A step from arrays {q, qd} into {q, qd}, for tape::checkpoint.
tape::StepFn array_step(const Rollout& r) {
    return [&r](int, const tape::StateArrays& in, tape::StateArrays& out) {
        State a = r.model->state(0), z = r.model->state(0);
        a.particle_q = in[0];
        a.particle_qd = in[1];
        z.particle_q = out[0];
        z.particle_qd = out[1];
        r.integrator->simulate(*r.model, a, z, r.dt);
    };
}

State advance(const Rollout& r, const State& initial, std::vector<State>* keep) {
    State cur = initial;
    if (keep) keep->push_back(cur);
    for (int k = 0; k < r.steps; ++k) {
        State next = r.model->state();
        r.integrator->simulate(*r.model, cur, next, r.dt);
        cur = next;
        if (keep) keep->push_back(cur);
    }
    return cur;
}

}  // namespace

void zero_model_gradients(const Model& model) {
    for (runtime::Array a : model_arrays(model))
        if (a.valid()) a.zero_grad();
}

RolloutGradient rollout_gradient(const Rollout& r, const State& initial, const LossExpr& loss) {
    const Model& m = *r.model;
    zero_model_gradients(m);
    State init = initial;
    init.particle_q.zero_grad();
    init.particle_qd.zero_grad();
    RolloutGradient out;
    tape::Tape t;
    State last = m.state();
    {
        runtime::ScopedRecorder rec(&t);
        if (r.steps > r.checkpoint_above) {
            tape::StateArrays a = {init.particle_q, init.particle_qd}, z = {last.particle_q, last.particle_qd};
            tape::CheckpointStats st = tape::checkpoint(array_step(r), r.steps, a, z);
            out.checkpointed = true;
            out.segment = st.segment;
        } else {
            last = advance(r, init, nullptr);
        }
    }
    LossValue lv = backward_from_loss(t, m, last, loss);
    out.loss = lv.value;
    out.loss_scale = lv.scale;
    return out;
}

double rollout_loss(const Rollout& r, const State& initial, const LossExpr& loss) {
    return loss.evaluate(*r.model, advance(r, initial, nullptr)).value;
}

std::string diagnose_forward(const Rollout& r, const State& initial) {
    bool was = runtime::config().verify_finite;
    runtime::config().verify_finite = true;
    State cur = initial;
    std::string found;
    for (int k = 0; k < r.steps && found.empty(); ++k) {
        State next = r.model->state();
        try {
            r.integrator->simulate(*r.model, cur, next, r.dt);
        } catch (const runtime::RuntimeError& e) {
            found = "step " + std::to_string(k + 1) + " of " + std::to_string(r.steps) + ": " + e.what();
        }
        cur = next;
    }
    runtime::config().verify_finite = was;
    if (found.empty())
        for (const auto& [name, a] : {std::pair{"particle_q", initial.particle_q}, {"particle_qd", initial.particle_qd}})
            if (int64_t i = first_nonfinite(a); i >= 0)
                found = std::string("the initial ") + name + " holds a non-finite value at scalar " + std::to_string(i);
    return found;
}

std::string diagnose_backward(const Rollout& r, const State& initial, const LossExpr& loss) {
    const Model& m = *r.model;
    std::vector<State> states;
    State init = initial;
    init.particle_q.zero_grad();
    init.particle_qd.zero_grad();
    zero_model_gradients(m);
    advance(r, init, &states);
    // the loss's own gradient
    LossValue lv = loss.evaluate(m, states.back());
    for (const auto& [name, g] : lv.gradient)
        for (double x : g)
            if (!std::isfinite(x)) return "the loss expression's own gradient with respect to " + name + " is not finite";
    runtime::Array gq = runtime::Array::empty(vec3_type(), {int64_t(m.particle_count)}, m.device);
    runtime::Array gqd = runtime::Array::empty(vec3_type(), {int64_t(m.particle_count)}, m.device);
    std::vector<float> f(lv.gradient.at("particle_q").begin(), lv.gradient.at("particle_q").end());
    if (!f.empty()) gq.copy_from_host(f.data(), f.size() * sizeof(float));
    f.assign(lv.gradient.at("particle_qd").begin(), lv.gradient.at("particle_qd").end());
    if (!f.empty()) gqd.copy_from_host(f.data(), f.size() * sizeof(float));
    for (int k = r.steps - 1; k >= 0; --k) {
        State& in = states[size_t(k)];
        State& out = states[size_t(k) + 1];
        tape::Tape t;
        {
            runtime::ScopedRecorder rec(&t);
            State again = m.state();
            again.particle_q = out.particle_q;
            again.particle_qd = out.particle_qd;
            r.integrator->simulate(m, in, again, r.dt);
        }
        std::string record = t.records().empty() ? std::string("the step") : t.records().back().describe();
        t.backward({{out.particle_q, gq}, {out.particle_qd, gqd}});
        std::string where =
            "step " + std::to_string(k + 1) + " of " + std::to_string(r.steps) + " (the backward of the " + record + ")";
        for (const auto& [name, a] : {std::pair{"particle_q", in.particle_q}, {"particle_qd", in.particle_qd}})
            if (int64_t i = first_nonfinite(*a.grad()); i >= 0)
                return where + ": non-finite gradient of " + name + " at scalar " + std::to_string(i);
        std::vector<runtime::Array> arrays = model_arrays(m);
        for (size_t j = 0; j < arrays.size(); ++j)
            if (arrays[j].valid() && arrays[j].requires_grad())
                if (int64_t i = first_nonfinite(*arrays[j].grad()); i >= 0)
                    return where + ": non-finite gradient of the model's " + model_array_names[j] + " at scalar " +
                           std::to_string(i);
        gq = runtime::Array::empty(vec3_type(), {int64_t(m.particle_count)}, m.device);
        gqd = runtime::Array::empty(vec3_type(), {int64_t(m.particle_count)}, m.device);
        gq.assign_unrecorded(*in.particle_q.grad());
        gqd.assign_unrecorded(*in.particle_qd.grad());
    }
    return "";
}

}  // namespace weft::engine
