// engine/stability.h: whether an explicit step size is past its stability limit, by the rule
// docs/scene-format.md gives for explicit contact, applied to every explicit penalty force:
//
//   sqrt(ke / m) dt < 2     (the oscillator's frequency times the step)
//   kd dt / m       < 2     (damping)
//   kf dt / m       < 2     (viscous friction below the Coulomb limit)
//
// for the ground and shape contact (soft_contact_ke/kd/kf, and for shapes with a material of their
// own, such as shapes on bodies, its mean with the shape's), particle-particle contact
// (particle_ke/kd/kf) and every spring (its ke and kd), with m the lightest dynamic particle the
// force acts on. Past the limit the step amplifies errors every step, so the rollout and its
// gradient grow without bound: a gradient check reports it as the cause rather than a number.
// Only integrators with IntegratorCaps_Explicit are subject to it (XPBD projects constraints).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

struct StabilityViolation {
    std::string force;            // "spring 3 (particles 2, 3)", "ground and shape contact"
    std::string term;             // "sqrt(ke/m) dt", "kd dt/m", "kf dt/m"
    double value = 0.0;           // the term's value, >= limit
    std::string detail;           // "ke 5e+06 N/m, m 0.1 kg, dt 0.00052 s"
    std::string message() const;  // "spring 3 (particles 2, 3): sqrt(ke/m) dt = 3.6 >= 2 (ke ..., m ..., dt ...)"
};

inline constexpr double kExplicitLimit = 2.0;

// The rule's term for one coefficient acting on mass m (kg) at step dt (s): sqrt(k/m) dt for a
// stiffness, c dt/m for a damping or friction coefficient. The one formula the gradient check
// (below, on a Model) and the scene loader's warnings (engine/scene.h, on a scene's keys) use.
inline double explicit_term(bool stiffness, double coefficient, double m, double dt) {
    return stiffness ? std::sqrt(coefficient / m) * dt : coefficient * dt / m;
}

// The finite elements (triangle membranes, kernels/triangles.py; tetrahedra, kernels/tetrahedra.py)
// couple many particles, so their rule is the system's own: the highest eigenvalue of M^-1 K (for
// the stiffness: sqrt of it, the highest frequency, times dt) and of M^-1 C (the damping: times
// dt), with K and C the elements' forces linearised at rest and M the moving particles' masses,
// against the same limit of 2. At rest the membrane and neo-Hookean forces are
//   K_e = a (G G^T) (x) I3 + b g g^T,     C_e = k_damp A0 (G G^T (x) I3 + g g^T)
// with G = [-1 -1 (-1); I] Dm the shape-function gradients, g the gradient of the area ratio (the
// volume ratio J), A0 the rest area (the rest volume V0) and, for a triangle, a = k_mu A0,
// b = k_lambda A0; for a tetrahedron a = 0.75 k_mu V0, b = (k_lambda + 0.125 k_mu) V0 (the stable
// neo-Hookean P's derivative at F = I). The geometric term (the rest pre-stress times the area's
// Hessian) is left out: on a 4x4 cloth the eigenvalue changes by < 0.1%. The eigenvalue is bounded
// first, cheaply, by the element sums max_v sum_{e at v} lambda_max(K_e) / m_e (exact for a spring
// chain; 1.7-4x high on 4x4 cloth grids, 1.3-2x in the step); where that bound reaches the limit
// it is computed by power iteration (capped at about 3e8 multiply-adds: past about 100,000
// elements it stops after 40-50 steps and can come out a few percent low).
struct ElementRates {
    double omega2 = 0.0;   // 1/s^2: highest eigenvalue of M^-1 K
    double damping = 0.0;  // 1/s: highest eigenvalue of M^-1 C
    int elements = 0;      // elements that had a moving particle
};
// `nodes` 3 (triangles: poses 4 floats per element, row-major Dm; materials k_mu, k_lambda, k_damp
// first of `material_stride`) or 4 (tetrahedra: poses 9 floats); elements [begin, end) of the
// arrays; q: particle positions (3 floats each), mass: kg per particle (0 = fixed). `screen`:
// the omega2 and damping values (1/s^2, 1/s) below which the cheap bound is returned as it is.
ElementRates element_rates(int nodes, const std::vector<int32_t>& indices, const std::vector<float>& poses,
                           const std::vector<float>& materials, int material_stride, size_t begin, size_t end,
                           const std::vector<float>& q, const std::vector<float>& mass, double screen_omega2,
                           double screen_damping);

// Every force whose term reaches kExplicitLimit at step `dt` (seconds); worst spring only, once
// per term; the triangles and the tetrahedra as a whole (element_rates). Empty when the step is
// within the limit.
std::vector<StabilityViolation> explicit_stability_violations(const Model& model, float dt);

}  // namespace weft::engine
