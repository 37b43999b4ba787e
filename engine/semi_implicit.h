// engine/semi_implicit.h: the semi-implicit (symplectic) Euler integrator of Warp's warp.sim.
//
// One simulate() call is a fixed sequence of launches, all reading state_in and writing other
// arrays (state_in's scratch, then state_out):
//
//   [hash grid]        build_grid, sort_grid_buckets                 (particle contact only)
//   particle terms     eval_particle_terms  -> force_terms[0, n)     external, drag, contacts
//   elements           eval_triangles / eval_bending / eval_tetrahedra
//                                           -> force_terms[slots]
//   assembly           accumulate_forces    -> state_in.particle_f   fixed-order sum per particle
//                      (accumulate_forces_with_springs when there are springs: each particle
//                      evaluates its own springs, which then need no force slots: their writes
//                      and gathers were most of a 512² cloth substep on the H200)
//   integration        integrate_particles  -> state_out.particle_q, particle_qd
//                      v' = v + (f / m + g) dt,  x' = x + v' dt
//
// Symplectic Euler keeps the energy of an undamped oscillator bounded (no drift) for dt below
// the stability limit 2 / omega; tests/engine check this and the period.
#pragma once

#include "engine/model.h"

namespace weft::engine {

class SemiImplicitIntegrator {
public:
    SemiImplicitIntegrator() = default;
    // Advances state_in by dt (seconds) into state_out. `control` may be null (no external force).
    // state_in.particle_f receives the total force used; state_in's scratch arrays are written.
    void simulate(const Model& model, State& state_in, State& state_out, float dt, const Control* control = nullptr);
};

}  // namespace weft::engine
