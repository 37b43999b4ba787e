"""Triangle FEM membranes for cloth (Warp's eval_triangles, with its lift and drag).

Per triangle: a deviatoric term k_mu |F|^2 and an area term k_lambda (A / A0 - alpha)^2 with
alpha = 1 + k_mu / k_lambda, so the rest shape is force free; damping k_damp on dF/dt and on the
area rate. F = [x1 - x0, x2 - x0] Dm, with Dm = tri_poses (the inverse of the rest shape in the
triangle's own 2-D frame). Stiffnesses are scaled by the rest area. tri_materials rows are
(k_mu, k_lambda, k_damp, drag, lift). Drag and lift are Warp's aerodynamic terms of the mean
vertex velocity vm (still air): drag vm k_drag A |n.vm| and lift n k_lift A (pi/2 - acos(n.vm/|vm|)) |vm|^2,
A the current area, both subtracted from each of the three vertices' forces.
Triangle t writes its vertices' forces to force_terms[offset + 3 t + 0..2].
"""
import weft as wp


@wp.kernel
def eval_triangles(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    tri_indices: wp.array2d(dtype=int),
    tri_poses: wp.array(dtype=wp.mat22),
    tri_activations: wp.array(dtype=float),
    tri_materials: wp.array2d(dtype=float),
    offset: int,
    force_terms: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    i = tri_indices[t, 0]
    j = tri_indices[t, 1]
    k = tri_indices[t, 2]
    k_mu = tri_materials[t, 0]
    k_lambda = tri_materials[t, 1]
    k_damp = tri_materials[t, 2]
    x0 = x[i]
    v0 = v[i]
    x10 = x[j] - x0
    x20 = x[k] - x0
    v10 = v[j] - v0
    v20 = v[k] - v0
    Dm = tri_poses[t]
    inv_rest_area = wp.determinant(Dm) * 2.0
    rest_area = 1.0 / inv_rest_area
    alpha = 1.0 + k_mu / k_lambda
    k_mu = k_mu * rest_area
    k_lambda = k_lambda * rest_area
    k_damp = k_damp * rest_area
    # F = Ds Dm and its rate, as two columns
    F1 = x10 * Dm[0, 0] + x20 * Dm[1, 0]
    F2 = x10 * Dm[0, 1] + x20 * Dm[1, 1]
    dFdt1 = v10 * Dm[0, 0] + v20 * Dm[1, 0]
    dFdt2 = v10 * Dm[0, 1] + v20 * Dm[1, 1]
    P1 = F1 * k_mu + dFdt1 * k_damp
    P2 = F2 * k_mu + dFdt2 * k_damp
    # H = P Dm^T: the deviatoric forces on vertices 1 and 2
    f1 = P1 * Dm[0, 0] + P2 * Dm[0, 1]
    f2 = P1 * Dm[1, 0] + P2 * Dm[1, 1]
    # area preservation
    n = wp.cross(x10, x20)
    area = wp.length(n) * 0.5
    c = area * inv_rest_area - alpha + tri_activations[t]
    n = wp.normalize(n)
    dcdq = wp.cross(x20, n) * inv_rest_area * 0.5
    dcdr = wp.cross(n, x10) * inv_rest_area * 0.5
    f_area = k_lambda * c
    dcdt = wp.dot(dcdq, v[j]) + wp.dot(dcdr, v[k]) - wp.dot(dcdq + dcdr, v0)
    f_damp = k_damp * dcdt
    f1 = f1 + dcdq * (f_area + f_damp)
    f2 = f2 + dcdr * (f_area + f_damp)
    f0 = f1 + f2
    k_drag = tri_materials[t, 3]
    k_lift = tri_materials[t, 4]
    if k_drag != 0.0 or k_lift != 0.0:
        vmid = (v0 + v[j] + v[k]) * 0.3333
        vdir = wp.normalize(vmid)
        f_aero = vmid * (k_drag * area * wp.abs(wp.dot(n, vmid)))
        f_aero = f_aero + n * (k_lift * area * (wp.half_pi - wp.acos(wp.dot(n, vdir)))) * wp.dot(vmid, vmid)
        f0 = f0 - f_aero
        f1 = f1 + f_aero
        f2 = f2 + f_aero
    force_terms[offset + t * 3 + 0] = f0
    force_terms[offset + t * 3 + 1] = -f1
    force_terms[offset + t * 3 + 2] = -f2
