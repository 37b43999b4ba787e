"""Damped springs (Warp's eval_springs): f = (ke (l - rest) + kd dl/dt) along the spring.

Each particle sums the forces of its own springs (add_springs, called by step.py), so a spring
is evaluated once per end and needs neither force slots nor atomics.
"""
import weft as wp


@wp.func
def spring_force_on(xi: wp.vec3, vi: wp.vec3, xj: wp.vec3, vj: wp.vec3, rest: float, ke: float, kd: float):
    """The force of a damped spring on its end at xi, the other end at xj. The two ends' forces
    are exact negatives of each other (negating d, dir and the relative velocity is exact)."""
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
def add_springs(
    f: wp.vec3,
    i: int,
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    spring_start: wp.array(dtype=int),
    spring_list: wp.array(dtype=int),
    spring_other: wp.array(dtype=int),
    width: int,
    ell_list: wp.array(dtype=int),
    ell_other: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
) -> wp.vec3:
    """f plus the forces of particle i's springs, in spring order. Every spring is evaluated once
    per end (no force slots, no atomics). With width > 0 the lists are read column by column (ELL:
    entry k of particle i at k * n + i, -1 after its last), so the threads of a warp read
    consecutive words instead of words 12 apart (most of the L1 traffic of a 512² cloth substep
    on the H200); otherwise from the CSR lists (spring_start, spring_list, spring_other)."""
    xi = x[i]
    vi = v[i]
    total = f
    if width > 0:
        n = x.shape[0]
        for k in range(width):
            s = ell_list[k * n + i]
            if s >= 0:
                j = ell_other[k * n + i]
                total = total + spring_force_on(xi, vi, x[j], v[j], spring_rest_length[s], spring_stiffness[s], spring_damping[s])
    else:
        for k in range(spring_start[i], spring_start[i + 1]):
            j = spring_other[k]
            s = spring_list[k]
            total = total + spring_force_on(xi, vi, x[j], v[j], spring_rest_length[s], spring_stiffness[s], spring_damping[s])
    return total
