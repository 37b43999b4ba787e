"""Tetrahedral neo-Hookean FEM for soft bodies (Warp's eval_tetrahedra).

The stable neo-Hookean energy of Smith et al. 2018: deviatoric k_mu/2 (Ic - 3) - k_mu/2 log(Ic + 1)
and hydrostatic k_lambda/2 (J - alpha)^2 with alpha = 1 + 3 k_mu / (4 k_lambda), so the rest
shape is force free; Rayleigh damping k_damp on dF/dt and dJ/dt. F = [x1-x0, x2-x0, x3-x0] Dm,
Dm = tet_poses (inverse rest shape); stiffnesses scale with the rest volume. tet_materials rows
are (k_mu, k_lambda, k_damp). Tet t writes force_terms[offset + 4 t + 0..3].
"""
import weft as wp


@wp.kernel
def eval_tetrahedra(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    tet_indices: wp.array2d(dtype=int),
    tet_poses: wp.array(dtype=wp.mat33),
    tet_activations: wp.array(dtype=float),
    tet_materials: wp.array2d(dtype=float),
    offset: int,
    force_terms: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    i = tet_indices[t, 0]
    j = tet_indices[t, 1]
    k = tet_indices[t, 2]
    l = tet_indices[t, 3]
    k_mu = tet_materials[t, 0]
    k_lambda = tet_materials[t, 1]
    k_damp = tet_materials[t, 2]
    x0 = x[i]
    v0 = v[i]
    x10 = x[j] - x0
    x20 = x[k] - x0
    x30 = x[l] - x0
    v1 = v[j]
    v2 = v[k]
    v3 = v[l]
    Ds = wp.matrix_from_cols(x10, x20, x30)
    Dm = tet_poses[t]
    inv_rest_volume = wp.determinant(Dm) * 6.0
    rest_volume = 1.0 / inv_rest_volume
    alpha = 1.0 + k_mu / k_lambda - k_mu / (4.0 * k_lambda)
    k_mu = k_mu * rest_volume
    k_lambda = k_lambda * rest_volume
    k_damp = k_damp * rest_volume
    F = Ds * Dm
    dFdt = wp.matrix_from_cols(v1 - v0, v2 - v0, v3 - v0) * Dm
    Ic = wp.trace(wp.transpose(F) * F)
    # deviatoric part and damping: H = P Dm^T, columns are the forces on vertices 1..3
    P = F * (k_mu * (1.0 - 1.0 / (Ic + 1.0))) + dFdt * k_damp
    H = P * wp.transpose(Dm)
    f1 = wp.vec3(H[0, 0], H[1, 0], H[2, 0])
    f2 = wp.vec3(H[0, 1], H[1, 1], H[2, 1])
    f3 = wp.vec3(H[0, 2], H[1, 2], H[2, 2])
    # hydrostatic part
    J = wp.determinant(F)
    s = inv_rest_volume / 6.0
    dJdx1 = wp.cross(x20, x30) * s
    dJdx2 = wp.cross(x30, x10) * s
    dJdx3 = wp.cross(x10, x20) * s
    f_volume = (J - alpha + tet_activations[t]) * k_lambda
    f_damp = (wp.dot(dJdx1, v1 - v0) + wp.dot(dJdx2, v2 - v0) + wp.dot(dJdx3, v3 - v0)) * k_damp
    f_total = f_volume + f_damp
    f1 = f1 + dJdx1 * f_total
    f2 = f2 + dJdx2 * f_total
    f3 = f3 + dJdx3 * f_total
    force_terms[offset + t * 4 + 0] = f1 + f2 + f3
    force_terms[offset + t * 4 + 1] = -f1
    force_terms[offset + t * 4 + 2] = -f2
    force_terms[offset + t * 4 + 3] = -f3
