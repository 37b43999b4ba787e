// engine/mpm.h: the MLS-MPM integrator (Hu et al. 2018), registered as "mpm": particles of
// elastic, fluid, sand and snow materials (engine/mpm_defs.h) on a dense background grid.
//
//   p2g          kernels/mpm.py: F_out = (I + dt C_in) F_in and the material's plasticity
//                (-> state_out.mpm_F, mpm_Jp); stress; scatter of mass and momentum (atomic)
//                                                     -> grid mass, grid momentum
//   grid_update  momentum / mass + dt g, walls of the domain box        -> grid velocity
//   g2p          gather: velocity, affine C, advection  -> state_out.particle_q, particle_qd, mpm_C
//
// The grid (three arrays of (cells + 1)^3 nodes) is the integrator's scratch, zeroed each step.
// Under a recording Tape, or for a requires_grad model, each step gets fresh grid arrays instead,
// so that the recorded launches of every step keep their own grid for the backward pass (the
// Tape's overwrite check would refuse a reused one). The launches are recorded one by one; the
// atomic adds of p2g have their adjoint in the compiler (a read of the grid's gradient).
//
// The model's particles must all be MPM particles (ModelBuilder::add_mpm_volume), with no
// springs, triangles, tetrahedra or bodies: the step would not simulate them. An external force
// in the control (Control::particle_f) adds f dt to the particle's momentum in p2g.
#pragma once

#include "engine/integrator.h"

namespace weft::engine {

class MpmIntegrator : public Integrator {
public:
    MpmIntegrator() = default;
    explicit MpmIntegrator(const IntegratorOptions&) {}

    const IntegratorInfo& info() const override;
    void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                  const Control* control = nullptr) override;
    std::vector<Renderable> renderables(const Model& model) const override { return model_renderables(model); }

private:
    Array grid_mv_, grid_m_, grid_v_;  // vec3, float, vec3 (nodes): momentum, mass, velocity (no gradient)
    Array zero_force_;                 // vec3 (particle_count): the force without a control
};

// The node count of the model's MPM grid: (cells_x + 1) (cells_y + 1) (cells_z + 1).
int64_t mpm_node_count(const Model& model);

}  // namespace weft::engine
