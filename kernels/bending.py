"""Dihedral bending of cloth (Warp's eval_bending, with an atan2 angle).

Edge e = (i, j, k, l): k-l is the shared edge, i and j the opposite vertices of its two
triangles. The force is ke (theta - rest) + kd dtheta/dt times the gradient of the dihedral
angle (Bridson et al. 2003), scaled by the edge length. The angle is atan2(sin, cos) rather than
acos(cos), so its derivative stays finite at flat rest (acos' derivative is infinite at 1).
Edge e writes force_terms[offset + 4 e + 0..3].
"""
import weft as wp


@wp.func
def dihedral_angle(x1: wp.vec3, x2: wp.vec3, x3: wp.vec3, x4: wp.vec3) -> float:
    n1 = wp.cross(x3 - x1, x4 - x1)
    n2 = wp.cross(x4 - x2, x3 - x2)
    e_hat = wp.normalize(x4 - x3)
    return wp.atan2(wp.dot(wp.cross(n2, n1), e_hat), wp.dot(n1, n2))


@wp.func
def dihedral_angle_gradients(x1: wp.vec3, x2: wp.vec3, x3: wp.vec3, x4: wp.vec3, n1: wp.vec3, n2: wp.vec3, n1_length: float,
                             n2_length: float):
    """The gradients of the dihedral angle at x1 .. x4 times the length of the shared edge x3-x4
    (Bridson et al. 2003), and that length; n1, n2 are the two triangles' (unnormalised) normals,
    cross(x3 - x1, x4 - x1) and cross(x4 - x2, x3 - x2), with their lengths (> 0). The bending
    gradient of both solvers (solve_bending_xpbd calls it; eval_bending writes it out, see there)."""
    e_vec = x4 - x3
    e_hat = wp.normalize(e_vec)
    e_length = wp.length(e_vec)
    m1 = n1 / (n1_length * n1_length)
    m2 = n2 / (n2_length * n2_length)
    d1 = m1 * e_length
    d2 = m2 * e_length
    d3 = m1 * wp.dot(x1 - x4, e_hat) + m2 * wp.dot(x2 - x4, e_hat)
    d4 = m1 * wp.dot(x3 - x1, e_hat) + m2 * wp.dot(x3 - x2, e_hat)
    return d1, d2, d3, d4, e_length


@wp.kernel
def eval_bending(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    edge_indices: wp.array2d(dtype=int),
    edge_rest_angle: wp.array(dtype=float),
    edge_bending_properties: wp.array2d(dtype=float),
    offset: int,
    force_terms: wp.array(dtype=wp.vec3),
):
    e = wp.tid()
    i = edge_indices[e, 0]
    j = edge_indices[e, 1]
    k = edge_indices[e, 2]
    l = edge_indices[e, 3]
    ke = edge_bending_properties[e, 0]
    kd = edge_bending_properties[e, 1]
    x1 = x[i]
    x2 = x[j]
    x3 = x[k]
    x4 = x[l]
    n1 = wp.cross(x3 - x1, x4 - x1)
    n2 = wp.cross(x4 - x2, x3 - x2)
    n1_length = wp.length(n1)
    n2_length = wp.length(n2)
    f1 = wp.vec3(0.0)
    f2 = wp.vec3(0.0)
    f3 = wp.vec3(0.0)
    f4 = wp.vec3(0.0)
    if n1_length > 1.0e-6 and n2_length > 1.0e-6:
        angle = dihedral_angle(x1, x2, x3, x4)
        # The body of dihedral_angle_gradients, written out: through the func call the backward
        # of a 128x128 cloth rollout took 7% longer on the H200 (17.5 against 16.3 ms,
        # bench/results/engine-h200-2026-12-03-4.md); solve_bending_xpbd calls the func.
        e_vec = x4 - x3
        e_hat = wp.normalize(e_vec)
        e_length = wp.length(e_vec)
        m1 = n1 / (n1_length * n1_length)
        m2 = n2 / (n2_length * n2_length)
        d1 = m1 * e_length
        d2 = m2 * e_length
        d3 = m1 * wp.dot(x1 - x4, e_hat) + m2 * wp.dot(x2 - x4, e_hat)
        d4 = m1 * wp.dot(x3 - x1, e_hat) + m2 * wp.dot(x3 - x2, e_hat)
        f_elastic = ke * (angle - edge_rest_angle[e])
        f_damp = kd * (wp.dot(d1, v[i]) + wp.dot(d2, v[j]) + wp.dot(d3, v[k]) + wp.dot(d4, v[l]))
        f_total = -e_length * (f_elastic + f_damp)
        f1 = d1 * f_total
        f2 = d2 * f_total
        f3 = d3 * f_total
        f4 = d4 * f_total
    force_terms[offset + e * 4 + 0] = f1
    force_terms[offset + e * 4 + 1] = f2
    force_terms[offset + e * 4 + 2] = f3
    force_terms[offset + e * 4 + 3] = f4
