"""XPBD (extended position-based dynamics, Macklin et al. 2016) constraint projections.

One iteration of XPBDIntegrator: every constraint kernel projects from the same positions
(Jacobi) and writes each particle's correction to its own slot of `deltas` (the slot layout of
particles.py: slot i for the particle's contacts, then springs, triangles, edges, tets);
`apply_deltas` averages a particle's element slots (Jacobi averaging) in a fixed order, adds its
contact slot, and writes new positions and velocities to other arrays, so each iteration is out
of place and differentiable.

Constraints: distance (springs; compliance 1/ke, damping kd as XPBD's gamma), triangle membranes
(deviatoric and area, like the tetrahedra), dihedral bending
(edges), tetrahedra (a deviatoric sqrt(tr F^T F) - sqrt(3) with compliance 1/(mu V), then the
volume det F - 1 with 1/(lambda V), after Macklin & Mueller 2021; both vanish at rest, so the
rest shape is the equilibrium although multipliers are not carried between iterations), and
contacts with the ground, static shapes and other particles, with position-level Coulomb friction.
"""
import weft as wp
import geometry as geo
import hash_grid as grid
import worlds
import bending

PARTICLE_FLAG_ACTIVE = wp.constant(wp.uint32(1))


@wp.kernel
def solve_springs_xpbd(
    x: wp.array(dtype=wp.vec3),
    x_orig: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    spring_indices: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
    dt: float,
    offset: int,
    deltas: wp.array(dtype=wp.vec3),
):
    s = wp.tid()
    i = spring_indices[s * 2 + 0]
    j = spring_indices[s * 2 + 1]
    wi = w[i]
    wj = w[j]
    xij = x[i] - x[j]
    l = wp.length(xij)
    di = wp.vec3(0.0)
    dj = wp.vec3(0.0)
    ke = spring_stiffness[s]
    if l > 0.0 and wi + wj > 0.0 and ke > 0.0:
        n = xij / l
        c = l - spring_rest_length[s]
        alpha = 1.0 / (ke * dt * dt)
        gamma = spring_damping[s] / (ke * dt)
        dcdx = wp.dot(n, (x[i] - x_orig[i]) - (x[j] - x_orig[j]))
        dlambda = -(c + gamma * dcdx) / ((1.0 + gamma) * (wi + wj) + alpha)
        di = n * (dlambda * wi)
        dj = n * (-dlambda * wj)
    deltas[offset + s * 2 + 0] = di
    deltas[offset + s * 2 + 1] = dj


@wp.kernel
def solve_bending_xpbd(
    x: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    edge_indices: wp.array2d(dtype=int),
    edge_rest_angle: wp.array(dtype=float),
    edge_bending_properties: wp.array2d(dtype=float),
    dt: float,
    offset: int,
    deltas: wp.array(dtype=wp.vec3),
):
    e = wp.tid()
    i = edge_indices[e, 0]
    j = edge_indices[e, 1]
    k = edge_indices[e, 2]
    l = edge_indices[e, 3]
    ke = edge_bending_properties[e, 0]
    x1 = x[i]
    x2 = x[j]
    x3 = x[k]
    x4 = x[l]
    n1 = wp.cross(x3 - x1, x4 - x1)
    n2 = wp.cross(x4 - x2, x3 - x2)
    n1_length = wp.length(n1)
    n2_length = wp.length(n2)
    d1 = wp.vec3(0.0)
    d2 = wp.vec3(0.0)
    d3 = wp.vec3(0.0)
    d4 = wp.vec3(0.0)
    if n1_length > 1.0e-6 and n2_length > 1.0e-6 and ke > 0.0:
        g1, g2, g3, g4, e_length = bending.dihedral_angle_gradients(x1, x2, x3, x4, n1, n2, n1_length, n2_length)
        c = bending.dihedral_angle(x1, x2, x3, x4) - edge_rest_angle[e]
        wsum = w[i] * wp.dot(g1, g1) + w[j] * wp.dot(g2, g2) + w[k] * wp.dot(g3, g3) + w[l] * wp.dot(g4, g4)
        alpha = 1.0 / (ke * dt * dt)
        if wsum > 0.0:
            dlambda = -c / (wsum + alpha)
            d1 = g1 * (dlambda * w[i])
            d2 = g2 * (dlambda * w[j])
            d3 = g3 * (dlambda * w[k])
            d4 = g4 * (dlambda * w[l])
    deltas[offset + e * 4 + 0] = d1
    deltas[offset + e * 4 + 1] = d2
    deltas[offset + e * 4 + 2] = d3
    deltas[offset + e * 4 + 3] = d4


@wp.kernel
def solve_triangles_xpbd(
    x: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    tri_indices: wp.array2d(dtype=int),
    tri_poses: wp.array(dtype=wp.mat22),
    tri_materials: wp.array2d(dtype=float),
    dt: float,
    offset: int,
    deltas: wp.array(dtype=wp.vec3),
):
    # The membrane analogue of the tetrahedra below: a deviatoric sqrt(|F1|^2 + |F2|^2) - sqrt(2)
    # (compliance 1 / (k_mu A)), then the area ratio A / A0 - 1 (compliance 1 / (k_lambda A)).
    t = wp.tid()
    i = tri_indices[t, 0]
    j = tri_indices[t, 1]
    k = tri_indices[t, 2]
    k_mu = tri_materials[t, 0]
    k_lambda = tri_materials[t, 1]
    w0 = w[i]
    w1 = w[j]
    w2 = w[k]
    x0 = x[i]
    x1 = x[j]
    x2 = x[k]
    Dm = tri_poses[t]
    inv_rest_area = wp.determinant(Dm) * 2.0
    rest_area = 1.0 / inv_rest_area
    F1 = (x1 - x0) * Dm[0, 0] + (x2 - x0) * Dm[1, 0]
    F2 = (x1 - x0) * Dm[0, 1] + (x2 - x0) * Dm[1, 1]
    cd = wp.sqrt(wp.dot(F1, F1) + wp.dot(F2, F2))
    d1 = wp.vec3(0.0)
    d2 = wp.vec3(0.0)
    d0 = wp.vec3(0.0)
    if cd > 0.0 and k_mu > 0.0:
        g1 = (F1 * Dm[0, 0] + F2 * Dm[0, 1]) / cd
        g2 = (F1 * Dm[1, 0] + F2 * Dm[1, 1]) / cd
        g0 = -(g1 + g2)
        wsum = w0 * wp.dot(g0, g0) + w1 * wp.dot(g1, g1) + w2 * wp.dot(g2, g2)
        if wsum > 0.0:
            dl = -(cd - wp.sqrt(2.0)) / (wsum + 1.0 / (k_mu * rest_area * dt * dt))
            d0 = g0 * (dl * w0)
            d1 = g1 * (dl * w1)
            d2 = g2 * (dl * w2)
    y0 = x0 + d0
    y1 = x1 + d1
    y2 = x2 + d2
    n = wp.cross(y1 - y0, y2 - y0)
    area = wp.length(n) * 0.5
    h0 = wp.vec3(0.0)
    h1 = wp.vec3(0.0)
    h2 = wp.vec3(0.0)
    if area > 0.0 and k_lambda > 0.0:
        nh = wp.normalize(n)
        a1 = wp.cross(y2 - y0, nh) * (inv_rest_area * 0.5)
        a2 = wp.cross(nh, y1 - y0) * (inv_rest_area * 0.5)
        a0 = -(a1 + a2)
        wsum = w0 * wp.dot(a0, a0) + w1 * wp.dot(a1, a1) + w2 * wp.dot(a2, a2)
        if wsum > 0.0:
            dl = -(area * inv_rest_area - 1.0) / (wsum + 1.0 / (k_lambda * rest_area * dt * dt))
            h0 = a0 * (dl * w0)
            h1 = a1 * (dl * w1)
            h2 = a2 * (dl * w2)
    deltas[offset + t * 3 + 0] = d0 + h0
    deltas[offset + t * 3 + 1] = d1 + h1
    deltas[offset + t * 3 + 2] = d2 + h2


@wp.func
def tet_dlambda(G: wp.mat33, c: float, w0: float, w1: float, w2: float, w3: float, alpha: float) -> float:
    # G = dC/dF Dm^T: its columns are the gradients of C at vertices 1..3; vertex 0's is minus their sum
    g1 = wp.vec3(G[0, 0], G[1, 0], G[2, 0])
    g2 = wp.vec3(G[0, 1], G[1, 1], G[2, 1])
    g3 = wp.vec3(G[0, 2], G[1, 2], G[2, 2])
    g0 = -(g1 + g2 + g3)
    wsum = w0 * wp.dot(g0, g0) + w1 * wp.dot(g1, g1) + w2 * wp.dot(g2, g2) + w3 * wp.dot(g3, g3)
    dlambda = 0.0
    if wsum > 0.0:
        dlambda = -c / (wsum + alpha)
    return dlambda


@wp.kernel
def solve_tetrahedra_xpbd(
    x: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    tet_indices: wp.array2d(dtype=int),
    tet_poses: wp.array(dtype=wp.mat33),
    tet_materials: wp.array2d(dtype=float),
    dt: float,
    offset: int,
    deltas: wp.array(dtype=wp.vec3),
):
    t = wp.tid()
    i = tet_indices[t, 0]
    j = tet_indices[t, 1]
    k = tet_indices[t, 2]
    l = tet_indices[t, 3]
    k_mu = tet_materials[t, 0]
    k_lambda = tet_materials[t, 1]
    w0 = w[i]
    w1 = w[j]
    w2 = w[k]
    w3 = w[l]
    x0 = x[i]
    x1 = x[j]
    x2 = x[k]
    x3 = x[l]
    Dm = tet_poses[t]
    rest_volume = 1.0 / (wp.determinant(Dm) * 6.0)
    # deviatoric: C = sqrt(tr(F^T F)) - sqrt(3), dC/dF = F / sqrt(tr(F^T F))
    F = wp.matrix_from_cols(x1 - x0, x2 - x0, x3 - x0) * Dm
    cd = wp.sqrt(wp.trace(wp.transpose(F) * F))
    G = wp.mat33()
    dl = 0.0
    if cd > 0.0:
        G = (F * (1.0 / cd)) * wp.transpose(Dm)
        dl = tet_dlambda(G, cd - wp.sqrt(3.0), w0, w1, w2, w3, 1.0 / (k_mu * rest_volume * dt * dt))
    d1 = wp.vec3(G[0, 0], G[1, 0], G[2, 0]) * (dl * w1)
    d2 = wp.vec3(G[0, 1], G[1, 1], G[2, 1]) * (dl * w2)
    d3 = wp.vec3(G[0, 2], G[1, 2], G[2, 2]) * (dl * w3)
    d0 = -(wp.vec3(G[0, 0], G[1, 0], G[2, 0]) + wp.vec3(G[0, 1], G[1, 1], G[2, 1]) + wp.vec3(G[0, 2], G[1, 2], G[2, 2])) * (dl * w0)
    y0 = x0 + d0
    y1 = x1 + d1
    y2 = x2 + d2
    y3 = x3 + d3
    # volume: C = det F - 1, dC/dF = cofactor(F), from the corrected positions
    Fh = wp.matrix_from_cols(y1 - y0, y2 - y0, y3 - y0) * Dm
    f1 = wp.vec3(Fh[0, 0], Fh[1, 0], Fh[2, 0])
    f2 = wp.vec3(Fh[0, 1], Fh[1, 1], Fh[2, 1])
    f3 = wp.vec3(Fh[0, 2], Fh[1, 2], Fh[2, 2])
    H = wp.matrix_from_cols(wp.cross(f2, f3), wp.cross(f3, f1), wp.cross(f1, f2)) * wp.transpose(Dm)
    ch = wp.determinant(Fh) - 1.0
    dh = tet_dlambda(H, ch, w0, w1, w2, w3, 1.0 / (k_lambda * rest_volume * dt * dt))
    h1 = wp.vec3(H[0, 0], H[1, 0], H[2, 0])
    h2 = wp.vec3(H[0, 1], H[1, 1], H[2, 1])
    h3 = wp.vec3(H[0, 2], H[1, 2], H[2, 2])
    deltas[offset + t * 4 + 0] = d0 - (h1 + h2 + h3) * (dh * w0)
    deltas[offset + t * 4 + 1] = d1 + h1 * (dh * w1)
    deltas[offset + t * 4 + 2] = d2 + h2 * (dh * w2)
    deltas[offset + t * 4 + 3] = d3 + h3 * (dh * w3)


@wp.func
def friction_delta(dx: wp.vec3, n: wp.vec3, penetration: float, mu: float) -> wp.vec3:
    # position-level Coulomb friction: cancel the tangential displacement of this step, at most mu * penetration
    dt_vec = dx - n * wp.dot(n, dx)
    lt = wp.length(dt_vec)
    out = wp.vec3(0.0)
    if lt > 0.0:
        out = -dt_vec * (wp.min(mu * penetration, lt) / lt)
    return out


@wp.kernel
def solve_particle_contacts_xpbd(
    x: wp.array(dtype=wp.vec3),
    x_orig: wp.array(dtype=wp.vec3),
    w: wp.array(dtype=float),
    particle_radius: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    ground: int,
    ground_plane: wp.vec4,
    soft_mu: float,
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_count: int,
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    particle_world: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    particle_grid: int,
    inv_cell_size: float,
    nbucket: int,
    capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_particles: wp.array(dtype=int),
    particle_mu: float,
    deltas: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    d = wp.vec3(0.0)
    wi = w[i]
    if (particle_flags[i] & PARTICLE_FLAG_ACTIVE) != wp.uint32(0) and wi > 0.0:
        xi = x[i]
        dxi = xi - x_orig[i]
        ri = particle_radius[i]
        if ground != 0:
            n, c = geo.ground_contact(ground_plane, xi, ri)
            if c < 0.0:
                d = d - n * c + friction_delta(dxi, n, -c, soft_mu)
        # The static shapes of the particle's world and the shared ones (worlds.py).
        pw = particle_world[i]
        for k in range(worlds.candidate_count(pw, shape_count, world_shape_start, num_worlds)):
            s = worlds.candidate(k, pw, world_shape_start, world_shape_list, num_worlds)
            n, c = geo.shape_contact(s, xi, ri, shape_body, shape_transform, shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                     shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
            if c < 0.0:
                d = d - n * c + friction_delta(dxi, n, -c, soft_mu)
        if particle_grid != 0:
            # Neighbours of the particle's own world only (hash_grid.py).
            ci = grid.grid_cell(xi, inv_cell_size)
            for dz in range(-1, 2):
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        cc = wp.vec3i(ci[0] + dx, ci[1] + dy, ci[2] + dz)
                        b = grid.grid_bucket(cc, pw, nbucket)
                        nb = wp.min(bucket_count[b], capacity)
                        for s in range(nb):
                            j = bucket_particles[b * capacity + s]
                            xj = x[j]
                            if grid.grid_cell_neighbor(i, j, xj, cc, inv_cell_size, pw, particle_world[j]) and (particle_flags[j] & PARTICLE_FLAG_ACTIVE) != wp.uint32(0):
                                dv = xi - xj
                                dist = wp.length(dv)
                                err = dist - ri - particle_radius[j]
                                if err < 0.0 and dist > 0.0:
                                    n = dv / dist
                                    share = wi / (wi + w[j])
                                    rel = dxi - (xj - x_orig[j])
                                    d = d + (-n * err + friction_delta(rel, n, -err, particle_mu)) * share
    deltas[i] = d


@wp.kernel
def apply_deltas(
    x_orig: wp.array(dtype=wp.vec3),
    x_pred: wp.array(dtype=wp.vec3),
    v_pred: wp.array(dtype=wp.vec3),
    particle_flags: wp.array(dtype=wp.uint32),
    deltas: wp.array(dtype=wp.vec3),
    term_start: wp.array(dtype=int),
    term_index: wp.array(dtype=int),
    relaxation: float,
    contact_relaxation: float,
    dt: float,
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    if (particle_flags[i] & PARTICLE_FLAG_ACTIVE) == wp.uint32(0):
        x_new[i] = x_pred[i]
        v_new[i] = v_pred[i]
        return
    # Jacobi averaging (Macklin et al. 2014): element corrections are divided by how many
    # elements share the particle, so that stiff constraints summed at a vertex do not overshoot;
    # the contact correction (slot i) is applied whole, scaled by contact_relaxation.
    d = wp.vec3(0.0)
    start = term_start[i]
    end = term_start[i + 1]
    for k in range(start, end):
        d = d + deltas[term_index[k]]
    count = wp.max(end - start, 1)
    xn = x_pred[i] + deltas[i] * contact_relaxation + d * (relaxation / float(count))
    x_new[i] = xn
    v_new[i] = (xn - x_orig[i]) / dt
