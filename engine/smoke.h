// engine/smoke.h: the Eulerian smoke integrator (docs/smoke.md), registered as "smoke". Its
// parameters live in the model's grid (ModelBuilder::smoke, a scene's [smoke] table), so it takes
// no options. One step, each stage reading one set of arrays and writing another:
//
//   sources        density += rate dt inside each source; faces inside a source with a velocity
//                  take that velocity                                  apply_density/velocity_sources
//   advection      velocity by itself, density by the velocity:        advect (semi-Lagrangian, RK2),
//                  semi-Lagrangian, MacCormack, or conservative        maccormack_correct, advect_conservative
//                  (density only: upwind finite volumes)
//   forces         buoyancy (against gravity, times density) and      vorticity, confinement_force, add_forces
//                  vorticity confinement
//   viscosity      explicit Laplacian, substepped below nu dt / h^2 = 1/8   diffuse
//   projection     engine/smoke_projection.h (MGPCG by default)    -> state_out.smoke_u, _v, _w
//   tracers        the model's particles, massless, moved through the projected velocity (midpoint
//                  rule): they show the flow (particle_q, particle_qd)     advect_particles
//
// With model.requires_grad, while a Tape records, every stage writes new arrays (with gradients),
// so the Tape replays the step backwards; the projection is one Tape entry whose adjoint is the
// projection itself. Otherwise (no Tape, or a checkpointed rollout's unrecorded forward pass) the
// stages reuse the integrator's scratch arrays.
#pragma once

#include <map>
#include <memory>

#include "engine/integrator.h"
#include "engine/smoke_projection.h"

namespace weft::engine {

class SmokeIntegrator : public Integrator {
public:
    SmokeIntegrator() = default;
    explicit SmokeIntegrator(const IntegratorOptions&) {}

    const IntegratorInfo& info() const override;
    void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                  const Control* control = nullptr) override;
    std::vector<Renderable> renderables(const Model& model) const override { return model_renderables(model); }

    // The projection of the last step: iterations, residual, divergence before and after.
    const SmokeSolveStats& last_solve() const { return last_; }
    // Viscosity substeps the last step took (0 without viscosity).
    int last_viscosity_substeps() const { return viscosity_substeps_; }

private:
    Array field(const std::string& key, int64_t size, bool grad, const runtime::Device& device, bool vec3 = false);
    std::map<std::string, Array> scratch_;
    SmokeProjection projection_;
    SmokeSolveStats last_;
    int viscosity_substeps_ = 0;
};

}  // namespace weft::engine
