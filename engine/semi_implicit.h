// engine/semi_implicit.h: the semi-implicit (symplectic) Euler integrator of Warp's warp.sim,
// registered as "semi_implicit" (option: angular_damping of rigid bodies, 0.05 1/s as Warp's).
//
// One simulate() call is a fixed sequence of launches, reading state_in and writing state_out:
//
//   [hash grid]        build_grid, sort_grid_buckets -> state_out.grid_*  (particle contact only;
//                                                       from state_in's positions)
//   particle terms     eval_particle_terms  -> force_terms[0, n)     external, drag, contacts
//   elements           eval_triangles / eval_bending / eval_tetrahedra
//                                           -> force_terms[slots]
//   assembly           accumulate_forces    -> state_out.particle_f  fixed-order sum per particle
//                      (accumulate_forces_with_springs when there are springs: each particle
//                      evaluates its own springs, which then need no force slots: their writes
//                      and gathers were most of a 512² cloth substep on the H200)
//   integration        integrate_particles  -> state_out.particle_q, particle_qd
//                      v' = v + (f / m + g) dt,  x' = x + v' dt
//
// Rigid bodies (when the model has them), after the particles:
//
//   [particle reactions] eval_body_particle_contacts -> body_particle_wrench  (particles and body
//                                           shapes only) the pushes of particles on body shapes,
//                                           one thread per fixed chunk of (shape, particle) pairs
//   body contacts      eval_body_forces     -> state_out.body_f       one thread per body sums its
//                                                                     contact wrenches (rigid.py)
//                                                                     and its chunks, in order
//   integration        integrate_bodies     -> state_out.body_q, body_qd  (Warp's integrate_rigid_body)
//
// Particles touch the shapes on bodies with the bodies' poses and velocities of state_in (the
// particle's side in eval_particle_terms, the body's in eval_body_particle_contacts, one function
// for both: kernels/soft_contact.py).
//
// state_out.particle_f is the total force of the step that produced state_out. The force slots
// (`force_terms`, one per element vertex) are the integrator's scratch, shared by every step.
// Under a Tape a step is ONE record (Tape::record_func) whose backward runs the launches'
// adjoints in reverse order, with the slots' gradient and particle_f's gradient in scratch arrays
// zeroed first: no adjoint needs the slots' values (the assembly is a sum, and each element's
// adjoint recomputes its forces from positions and velocities), so a recorded rollout keeps per
// step only positions, velocities (with gradients) and particle_f, not the slots.
//
// Symplectic Euler keeps the energy of an undamped oscillator bounded (no drift) for dt below
// the stability limit 2 / omega; tests/engine check this and the period.
#pragma once

#include "engine/broad_phase.h"
#include "engine/integrator.h"

namespace weft::engine {

class SemiImplicitIntegrator : public Integrator {
public:
    SemiImplicitIntegrator() = default;

    const IntegratorInfo& info() const override;
    void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                  const Control* control = nullptr) override;
    std::vector<Renderable> renderables(const Model& model) const override { return model_renderables(model); }

    float angular_damping = 0.05f;  // option "angular_damping" (1/s)

private:
    Array force_terms_;       // vec3 (term_layout.count): the force slots, shared by every step
    Array force_terms_grad_;  // their gradient, and particle_f's, during a recorded step's backward
    Array force_grad_;
    Array body_force_grad_;            // body_f's gradient during a recorded step's backward
    Array body_particle_wrench_;       // spatial_vector (body_count x particle_body_chunks): scratch, as the slots
    Array body_particle_wrench_grad_;  // its gradient during a recorded step's backward
    BodyCandidates body_candidates_;   // the broad phase's lists (new ones for each recorded step)
};

}  // namespace weft::engine
