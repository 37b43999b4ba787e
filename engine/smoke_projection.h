// engine/smoke_projection.h: the pressure projection of the smoke grid (docs/smoke.md), with its
// three solvers and its adjoint.
//
//   b = -div(u)                         divergence_rhs (one value per fluid cell)
//   L psi = b                           Jacobi | red-black Gauss-Seidel | MGPCG (the default)
//   u' = u - grad(psi) on open faces,   subtract_gradient (closed faces get 0)
//        0 on closed ones
//
// L is the 7-point Laplacian of the fluid cells with zero-flux walls and obstacles (symmetric,
// singular: constants are in its null space; b sums to zero, and the solvers keep psi's mean 0).
//
// MGPCG: conjugate gradients on L psi = b, preconditioned by one multigrid V-cycle per iteration
// (the SmokeGrid's levels; 2 weighted-Jacobi sweeps before and after, 30 on the coarsest level,
// restriction by summing children over 2^(d-1) (the Galerkin operator of piecewise-constant
// prolongation is 2^(d-1) times the rediscretised one), piecewise-constant prolongation). The V-cycle
// is a fixed symmetric linear operator, as CG needs. Dot products are two-stage, atomic-free
// reductions in float64; the CG scalars stay on the device, and the host reads |r|^2 once an
// iteration to stop at |r| <= tolerance |b| (or after `iterations`).
//
// Differentiation: the projection P = F - F G L^+ D F (F zeroes the closed faces, G = -D^T) is
// linear and symmetric, so its adjoint is itself. Under an active Tape, project() records one
// entry whose backward projects the gradients of the outputs (with the same solver and
// tolerance) and adds them to the inputs' gradients: the gradient of the exact projection, up to
// the solver's tolerance, whatever number of iterations the forward solve took.
#pragma once

#include <memory>
#include <vector>

#include "engine/smoke_grid.h"

namespace weft::engine {

struct SmokeSolveStats {
    int iterations = 0;           // CG iterations or sweeps taken
    double residual = 0.0;        // |b - L psi| / |b| (2-norms; 0 when b = 0)
    double divergence_in = 0.0;   // |div u| of the input (2-norm over the cells, in units of velocity: 1/h of b)
    double divergence_out = 0.0;  // |div u'| after the projection
    double relative_divergence() const { return divergence_in > 0 ? divergence_out / divergence_in : 0.0; }
};

class SmokeProjection {
public:
    // u, v, w -> u_out, v_out, w_out (other arrays, the grid's face sizes). `solver` and
    // `iterations` default to the grid's. Under an active Tape, records one entry (see above).
    SmokeSolveStats project(const SmokeGrid& g, const Array& u, const Array& v, const Array& w, const Array& u_out,
                            const Array& v_out, const Array& w_out);
    SmokeSolveStats project(const SmokeGrid& g, SmokeSolver solver, int iterations, const Array& u, const Array& v,
                            const Array& w, const Array& u_out, const Array& v_out, const Array& w_out);

    // |div u| (2-norm over the cells, 1/h units) of a face field of grid g.
    double divergence_norm(const SmokeGrid& g, const Array& u, const Array& v, const Array& w);

private:
    struct Work;
    std::shared_ptr<Work> work_;
};

}  // namespace weft::engine
