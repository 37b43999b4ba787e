// engine/xpbd.h: the XPBD integrator (Macklin et al. 2016) for particles, as Warp's XPBDIntegrator,
// registered as "xpbd" with the options `iterations` (default 2) and `relaxation` (default 0.9).
//
//   predict            integrate_particles with the external force only: x* = x + (v + (f/m + g) dt) dt
//   [hash grid]        from the predicted positions -> state_out.grid_* (particle contact only)
//   iterations x N     solve_particle_contacts_xpbd, solve_springs_xpbd, solve_triangles_xpbd,
//                      solve_bending_xpbd, solve_tetrahedra_xpbd
//                                           -> deltas (one slot per particle and element vertex)
//                      apply_deltas: x_{k+1} = x_k + relaxation * sum(deltas), v = (x_{k+1} - x0) / dt
//
// Constraints are solved Jacobi-style (every constraint sees the same positions), which is why
// the summed corrections are scaled by `relaxation` (< 1 damps the overshoot where constraints
// share particles). Each iteration writes new arrays: with model.requires_grad they are new per
// call, so a Tape can replay them; otherwise scratch buffers are reused. Without a control, the
// prediction reads a zero force array of the integrator's own.
#pragma once

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

private:
    Array scratch_[5];  // prediction x and v, x ping-pong, intermediate v (no gradient)
    Array deltas_;      // deltas of iterations after the first (no gradient)
    Array zero_force_;  // vec3 (particle_count) of zeros: the prediction's force without a control
};

}  // namespace weft::engine
