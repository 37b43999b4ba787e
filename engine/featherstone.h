// engine/featherstone.h: the Featherstone integrator: articulations in reduced coordinates
// (joint_q, joint_qd), registered as "featherstone" with the options `rk4` (0: semi-implicit Euler,
// Warp's; 1: classical Runge-Kutta 4) and `angular_damping` (1/s; default 0).
//
// One evaluation of the dynamics at (q, qd) (kernels/featherstone.py says how):
//   eval_articulation_fk       q, qd -> body_q, body_qd of the evaluation (kernels/articulation.py)
//   eval_body_forces           contacts and control.body_f on those bodies, without joint springs
//   eval_featherstone_bias     motion columns S, velocities, bias accelerations, body forces
//   eval_featherstone_tau      subtree forces and inertias; tau = drives and limits - S^T F
//   eval_featherstone_mass     the dense mass matrix M(q) (+ armature) of each articulation
//   eval_featherstone_solve    qdd = M^-1 tau (Cholesky)
// A step is one evaluation and integrate_featherstone_euler (qd' = qd + dt qdd, q' = q + dt qd'),
// or four and integrate_featherstone_stage / _rk4; then eval_articulation_fk of the new joint_q,
// joint_qd gives state_out.body_q, body_qd. state_out.body_f is the first evaluation's wrench.
//
// Every body must be the child of a joint (a free joint for a floating one) and every joint in an
// articulation; particles are not stepped by this integrator (both refused by name). Each
// articulation is one thread: the kernels are exact and deterministic, and the cost grows with
// the cube of an articulation's dofs (the Cholesky), so thousands of small robots fill a GPU.
//
// Scratch: with model.requires_grad every array a step writes is new (the Tape records each launch
// and replays its adjoint); otherwise the integrator's buffers are reused, and a step queues the
// same launches on the same arrays every time (CUDA graph capture).
#pragma once

#include <map>
#include <string>

#include "engine/broad_phase.h"
#include "engine/integrator.h"

namespace weft::engine {

class FeatherstoneIntegrator : public Integrator {
public:
    explicit FeatherstoneIntegrator(bool rk4 = false, float angular_damping = 0.0f);
    explicit FeatherstoneIntegrator(const IntegratorOptions& options);  // resolved against info().options

    const IntegratorInfo& info() const override;
    void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                  const Control* control = nullptr) override;
    std::vector<Renderable> renderables(const Model& model) const override { return model_renderables(model); }

    bool rk4;
    float angular_damping;

private:
    ScratchArrays scratch_;          // by name ("s1.body_q", ...)
    BodyCandidates candidates_;      // the broad phase's lists of the evaluation in progress
    const void* checked_ = nullptr;  // the model (its body_parent_joint) whose bodies were checked
};

}  // namespace weft::engine
