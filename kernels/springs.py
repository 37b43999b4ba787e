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
