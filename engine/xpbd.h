// engine/xpbd.h: the XPBD integrator (Macklin et al. 2016; Müller et al. 2020 for rigid bodies),
// as Warp's XPBDIntegrator, registered as "xpbd".
//
// Particles (options `iterations`, default 2, `relaxation` 0.9, `contact_relaxation` 0.9):
//   predict            integrate_particles with the external force only: x* = x + (v + (f/m + g) dt) dt
//   [hash grid]        from the predicted positions -> state_out.grid_* (particle contact only)
//   iterations x N     solve_particle_contacts_xpbd, solve_springs_xpbd, solve_triangles_xpbd,
//                      solve_bending_xpbd, solve_tetrahedra_xpbd
//                                           -> deltas (one slot per particle and element vertex)
//                      apply_deltas: x_{k+1} = x_k + contact_relaxation * contact delta
//                                    + relaxation * (element deltas / their count), v = (x_{k+1} - x0) / dt
//
// Rigid bodies (kernels/xpbd_joints.py, xpbd_contacts.py, xpbd_restitution.py; options joint_linear_relaxation 0.7,
// joint_angular_relaxation 0.4, rigid_contact_relaxation 0.8, rigid_contact_con_weighting 1,
// angular_damping 0, enable_restitution 0, rigid_contact_margin 0.1 m, Warp's defaults):
//   eval_body_actions  the control's wrenches and the force-mode joint axes' actions
//   integrate_bodies   the semi-implicit prediction (kernels/rigid.py)
//   iterations x N     solve_joints (a thread per joint) -> sum_body_joints (per body) ->
//                      apply_body_deltas; solve_contact_slots (contacts found
//                      within the margin at state_in's poses, a thread per body and pair slot) ->
//                      sum_contact_slots (a thread per body) -> apply_body_deltas (divided by each
//                      body's closed contacts when weighted)
//   [restitution]      solve_restitution_slots (the contact pass's slots) -> apply_restitution_slots
//                      -> state_out.body_qd
//
// Constraints are solved Jacobi-style (every constraint sees the same positions), which is why
// the summed corrections are scaled by the relaxations (< 1 damps the overshoot where constraints
// share particles or bodies). Each pass writes new arrays: with model.requires_grad they are new
// per call, so a Tape can replay them; otherwise scratch buffers are reused. Without a control, the
// prediction reads a zero force array of the integrator's own. A model with both particles and
// shapes on bodies is refused (particle contact with moving bodies is the semi-implicit
// integrator's).
#pragma once

#include <map>
#include <string>

#include "engine/broad_phase.h"
#include "engine/integrator.h"

namespace weft::engine {

class XPBDIntegrator : public Integrator {
public:
    explicit XPBDIntegrator(int iterations = 2, float relaxation = 0.9f);
    // From options resolved against info().options (create_integrator does this).
    explicit XPBDIntegrator(const IntegratorOptions& options);

    const IntegratorInfo& info() const override;
    void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                  const Control* control = nullptr) override;
    std::vector<Renderable> renderables(const Model& model) const override { return model_renderables(model); }

    int iterations;
    float relaxation;
    float contact_relaxation = 0.9f;
    float joint_linear_relaxation = 0.7f;
    float joint_angular_relaxation = 0.4f;
    float rigid_contact_relaxation = 0.8f;
    bool rigid_contact_con_weighting = true;
    float angular_damping = 0.0f;
    bool enable_restitution = false;
    float rigid_contact_margin = 0.1f;  // m: contacts are found this far apart at the step's start

private:
    void simulate_bodies(const Model& model, const State& state_in, State& state_out, float dt, const Control* control);
    ScratchArrays body_scratch_;              // the body passes' arrays, by name
    BodyCandidates body_candidates_;          // the broad phase's lists of the step in progress
    const void* coupling_checked_ = nullptr;  // the shape_body array last checked for shapes on bodies

    Array scratch_[5];  // prediction x and v, x ping-pong, intermediate v (no gradient)
    Array deltas_;      // deltas of iterations after the first (no gradient)
    Array zero_force_;  // vec3 (particle_count) of zeros: the prediction's force without a control
};

}  // namespace weft::engine
