"""Symplectic Euler integration of particles: v' = v + (f / m + g) dt, x' = x + v' dt.

integrate_particle is the update of one particle, used by the semi-implicit step (step.py) and,
through integrate_particles, by XPBD's prediction. Out of place, so the adjoint is exact.
"""
import weft as wp

PARTICLE_FLAG_ACTIVE = wp.constant(wp.uint32(1))


@wp.func
def integrate_particle(
    i: int,
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    f: wp.vec3,
    w: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    gravity: wp.vec3,
    dt: float,
    v_max: float,
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
):
    """Writes particle i's new position and velocity under the force f. Inactive particles keep
    their state; gravity acts on particles with mass only (inv_mass > 0), so kinematic particles
    keep their velocity; speeds are capped at v_max."""
    x0 = x[i]
    v0 = v[i]
    if (particle_flags[i] & PARTICLE_FLAG_ACTIVE) == wp.uint32(0):
        x_new[i] = x0
        v_new[i] = v0
    else:
        v1 = v0 + (f * w[i] + gravity * wp.step(-w[i])) * dt
        speed = wp.length(v1)
        if speed > v_max:
            v1 = v1 * (v_max / speed)
        x_new[i] = x0 + v1 * dt
        v_new[i] = v1


@wp.kernel
def integrate_particles(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    f: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    gravity: wp.vec3,
    dt: float,
    v_max: float,
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    integrate_particle(i, x, v, f[i], w, particle_flags, gravity, dt, v_max, x_new, v_new)
