// engine/semi_implicit.h: the semi-implicit (symplectic) Euler integrator of Warp's warp.sim.
//
// One simulate() call is one launch (two more first with particle contact), reading state_in and
// writing state_out:
//
//   [hash grid]   build_grid, sort_grid_buckets      (particle contact only) -> state_in's grid
//   step          step_particles (kernels/step.py)   -> state_in.particle_f, state_out.particle_q/qd
//                 each particle sums its own force (external, drag, contacts), its springs, and
//                 the forces of the triangles, bending edges and tetrahedra it belongs to, in a
//                 fixed order, then integrates: v' = v + (f / m + g) dt,  x' = x + v' dt
//
// Every element is evaluated once per vertex (a triangle three times), in exchange for no force
// slots: no float atomics and no per-slot arrays, so a recorded rollout holds positions,
// velocities and forces per state only, and a step is one launch (forward and backward).
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
    // state_in.particle_f receives the total force used (the hash grid, with particle contact, too).
    void simulate(const Model& model, State& state_in, State& state_out, float dt, const Control* control = nullptr);
};

}  // namespace weft::engine
