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


@wp.func
def spring_force_on(xi: wp.vec3, vi: wp.vec3, xj: wp.vec3, vj: wp.vec3, rest: float, ke: float, kd: float):
    """The force of a damped spring on its end at xi, the other end at xj: exactly what
    eval_springs writes for that end (negating xij, dir and vij is exact)."""
    d = xi - xj
    l = wp.length(d)
    f = wp.vec3(0.0)
    if l > 0.0:
        dir = d / l
        c = l - rest
        dcdt = wp.dot(dir, vi - vj)
        f = -dir * (ke * c + kd * dcdt)
    return f


@wp.func
def add_slots(f: wp.vec3, force_terms: wp.array(dtype=wp.vec3), term_index: wp.array(dtype=int), first: int, last: int):
    """f plus the force slots term_index[first .. last - 1], in that order: a particle's slots
    after its springs (triangles, bending, tetrahedra)."""
    total = f
    for k in range(first, last):
        total = total + force_terms[term_index[k]]
    return total


@wp.kernel
def accumulate_forces_with_springs(
    force_terms: wp.array(dtype=wp.vec3),
    term_start: wp.array(dtype=int),
    term_index: wp.array(dtype=int),
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    spring_start: wp.array(dtype=int),
    column_major: int,
    spring_list: wp.array(dtype=int),
    spring_other: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
    particle_f: wp.array(dtype=wp.vec3),
):
    """particles.py's accumulate_forces with the springs summed in place of their force slots.

    Particle i computes the force of each of its springs itself (every spring is evaluated once
    per end), so eval_springs' slot writes and their gather are not needed. The springs come
    first in the particle's slot list and spring_force_on is exact, so the sum is bit-identical
    to eval_springs + accumulate_forces.

    Particle i has spring_start[i + 1] - spring_start[i] springs. Entry k of its lists
    (spring_list: the spring, spring_other: its other end) is at spring_start[i] + k in CSR lists
    (column_major 0), or at k * n + i in lists stored column by column (column_major 1, the
    model's ELL lists): there a warp's threads read consecutive words instead of words 12 apart,
    which on the H200 was most of the L1 traffic of a 512² cloth substep. Same springs in the same
    order either way, so the same bits.
    """
    i = wp.tid()
    n = x.shape[0]
    xi = x[i]
    vi = v[i]
    f = force_terms[i]
    nsprings = spring_start[i + 1] - spring_start[i]
    base = spring_start[i]
    stride = int(1)
    if column_major != 0:
        base = i
        stride = n
    # Each iteration reads the next entry's spring and other end ahead of its own gathers, so those
    # (x[j], v[j] and the spring's parameters) issue without waiting for the list read: on the
    # H200 the loop waits on gathers, not on bandwidth (bench/results/engine-h200-2026-12-03-2.md).
    s_next = int(-1)
    j_next = int(-1)
    if nsprings > 0:
        s_next = spring_list[base]
        j_next = spring_other[base]
    for k in range(nsprings):
        s = s_next
        j = j_next
        if k + 1 < nsprings:
            s_next = spring_list[base + (k + 1) * stride]
            j_next = spring_other[base + (k + 1) * stride]
        f = f + spring_force_on(xi, vi, x[j], v[j], spring_rest_length[s], spring_stiffness[s], spring_damping[s])
    particle_f[i] = add_slots(f, force_terms, term_index, term_start[i] + nsprings, term_start[i + 1])
