"""Particle integration and force assembly for the semi-implicit Euler solver.

Forces are assembled without float atomics, so results do not depend on the number of CPU
threads: every force kernel (springs.py, triangles.py, ...) writes each of its contributions to
its own slot of `force_terms`, and `accumulate_forces` sums, for each particle, slot i (the
particle's own terms: contact, drag, external) plus the slots listed for it in the model's
particle -> slot table (CSR: `term_start`, `term_index`), in a fixed order. Every kernel here
reads its inputs and writes other arrays (out of place), so the adjoint is exact.
"""
import weft as wp

PARTICLE_FLAG_ACTIVE = wp.constant(wp.uint32(1))


@wp.kernel
def accumulate_forces(
    force_terms: wp.array(dtype=wp.vec3),
    term_start: wp.array(dtype=int),
    term_index: wp.array(dtype=int),
    particle_f: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    f = force_terms[i]
    for k in range(term_start[i], term_start[i + 1]):
        f = f + force_terms[term_index[k]]
    particle_f[i] = f


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
    x0 = x[i]
    v0 = v[i]
    if (particle_flags[i] & PARTICLE_FLAG_ACTIVE) == wp.uint32(0):
        x_new[i] = x0
        v_new[i] = v0
        return
    inv_mass = w[i]
    # gravity acts on particles with mass only (inv_mass > 0); kinematic particles keep their velocity
    v1 = v0 + (f[i] * inv_mass + gravity * wp.step(-inv_mass)) * dt
    # The speed clamp scales by the largest component first: |v|^2 of a finite velocity past
    # ~1.8e19 m/s overflows float32 to inf, and v * (v_max / inf) would silently stop the particle.
    # A non-finite velocity stays non-finite (inf / inf = nan), so that the run reports it.
    speed = wp.length(v1)
    if speed > v_max:
        big = wp.max(wp.max(wp.abs(v1[0]), wp.abs(v1[1])), wp.abs(v1[2]))
        u = v1 / big
        v1 = u * (v_max / wp.length(u))
    x_new[i] = x0 + v1 * dt
    v_new[i] = v1
