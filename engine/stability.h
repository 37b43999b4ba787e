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

// Every force whose term reaches kExplicitLimit at step `dt` (seconds); worst spring only, once
// per term. Empty when the step is within the limit.
std::vector<StabilityViolation> explicit_stability_violations(const Model& model, float dt);

}  // namespace weft::engine
