"""Damped springs (Warp's eval_springs): f = (ke (l - rest) + kd dl/dt) along the spring.

Spring s writes the force on its first particle to force_terms[offset + 2 s] and the force on
its second to force_terms[offset + 2 s + 1] (see particles.py for why there are no atomics).
"""
import weft as wp


@wp.kernel
def eval_springs(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    spring_indices: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
    offset: int,
    force_terms: wp.array(dtype=wp.vec3),
):
    s = wp.tid()
    i = spring_indices[s * 2 + 0]
    j = spring_indices[s * 2 + 1]
    xij = x[i] - x[j]
    vij = v[i] - v[j]
    l = wp.length(xij)
    fs = wp.vec3(0.0)
    if l > 0.0:
        dir = xij / l
        c = l - spring_rest_length[s]
        dcdt = wp.dot(dir, vij)
        fs = dir * (spring_stiffness[s] * c + spring_damping[s] * dcdt)
    force_terms[offset + s * 2 + 0] = -fs
    force_terms[offset + s * 2 + 1] = fs


@wp.kernel
def accumulate_forces_with_springs(
    force_terms: wp.array(dtype=wp.vec3),
    term_start: wp.array(dtype=int),
    term_index: wp.array(dtype=int),
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    spring_start: wp.array(dtype=int),
    spring_list: wp.array(dtype=int),
    spring_other: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
    particle_f: wp.array(dtype=wp.vec3),
):
    """particles.py's accumulate_forces with the springs summed in place of their force slots.

    Particle i computes the force of each of its springs itself (every spring is evaluated once
    per end), so eval_springs' slot writes and their gather are not needed: at 512² cloth that
    traffic was most of a substep's time. The force on i is exactly what eval_springs writes for
    that end (the sign flips cancel exactly), and the springs come first in the particle's slot
    list, so the sum is bit-identical to eval_springs + accumulate_forces.
    """
    i = wp.tid()
    xi = x[i]
    vi = v[i]
    f = force_terms[i]
    s0 = spring_start[i]
    s1 = spring_start[i + 1]
    for k in range(s0, s1):
        j = spring_other[k]
        d = xi - x[j]
        l = wp.length(d)
        if l > 0.0:
            s = spring_list[k]
            dir = d / l
            c = l - spring_rest_length[s]
            dcdt = wp.dot(dir, vi - v[j])
            f = f - dir * (spring_stiffness[s] * c + spring_damping[s] * dcdt)
    for k in range(term_start[i] + (s1 - s0), term_start[i + 1]):
        f = f + force_terms[term_index[k]]
    particle_f[i] = f
