"""MLS-MPM (Hu et al. 2018) on a dense grid, with APIC transfers and quadratic B-spline weights.

One step is three launches (engine/mpm.cpp):

  p2g          per particle: F <- (I + dt C) F, the material's plasticity (sand, snow, fluid),
               its Kirchhoff stress tau, then scatter of mass and momentum
               m_i += w m_p,  (mv)_i += w (m_p v_p + (m_p C_p - dt V_p 4/dx^2 tau_p) (x_i - x_p))
               into the 27 nodes of the particle's 3x3x3 stencil (atomic adds)
  grid_update  per node: v_i = (mv)_i / m_i + dt g, then the colliders (static shapes and the
               ground plane: a node inside one loses the velocity part into it and its tangential
               part is slowed by Coulomb friction), then the walls of the domain box (the floor,
               the -y wall, may have a boundary kind of its own)
  g2p          per particle: v_p = sum w v_i, C_p = 4/dx^2 sum w v_i (x_i - x_p)^T, x_p += dt v_p

Grid: (nx+1) (ny+1) (nz+1) nodes, node (i, j, k) at lo + (i, j, k) dx, flat index (i (ny+1) + j) (nz+1) + k.
A particle's stencil starts at base = floor((x - lo)/dx - 0.5), clamped so that it stays inside.

Materials (mpm_material, per particle) and their parameters (mpm_params rows):
  0 fixed corotated   mu, lambda                 tau = 2 mu (F - R) F^T + lambda J (J - 1) I
  1 neo-Hookean       mu, lambda                 tau = mu (F F^T - I) + lambda log(J) I
  2 fluid             -, K (bulk modulus)        tau = K J (J - 1) I, F reset to J^(1/3) I
  3 sand              mu, lambda, alpha          Drucker-Prager return map in Hencky strain (Klar et al. 2016),
                                                 tau = U (2 mu eps + lambda tr(eps) I) U^T, eps = log(Sigma)
  4 snow              mu, lambda, theta_c, theta_s, xi
                                                 singular values clamped to [1 - theta_c, 1 + theta_s],
                                                 Jp *= J_trial / J_clamped, mu, lambda scaled by
                                                 exp(xi (1 - Jp)) (Stomakhin et al. 2013), fixed corotated
R is the rotation of the polar decomposition F = R S (Newton's iteration R <- (R + R^-T)/2). Sand
and snow need singular values: the eigenvectors V of F^T F by cyclic Jacobi rotations, Sigma from
its eigenvalues, U = F V Sigma^-1.
"""
import weft as wp
import geometry as geo

MPM_FIXED_COROTATED = wp.constant(0)
MPM_NEO_HOOKEAN = wp.constant(1)
MPM_FLUID = wp.constant(2)
MPM_SAND = wp.constant(3)
MPM_SNOW = wp.constant(4)

BOUNDARY_NONE = wp.constant(0)
BOUNDARY_STICKY = wp.constant(1)
BOUNDARY_SLIP = wp.constant(2)
BOUNDARY_SEPARATE = wp.constant(3)


@wp.func
def polar_rotation(F: wp.mat33):
    # Newton's iteration for the orthogonal factor: quadratic convergence for any nonsingular F
    R = F
    for it in range(8):
        R = (R + wp.transpose(wp.inverse(R))) * 0.5
    return R


@wp.func
def jacobi_rotate(A: wp.mat33, V: wp.mat33, p: int, q: int):
    # one Jacobi rotation zeroing A[p, q] of the symmetric A; V accumulates the rotations
    apq = A[p, q]
    A2 = A
    V2 = V
    if wp.abs(apq) > 1.0e-12 * (wp.abs(A[p, p]) + wp.abs(A[q, q])) + 1.0e-30:
        theta = (A[q, q] - A[p, p]) / (2.0 * apq)
        sgn = 1.0
        if theta < 0.0:
            sgn = -1.0
        t = sgn / (wp.abs(theta) + wp.sqrt(theta * theta + 1.0))
        c = 1.0 / wp.sqrt(t * t + 1.0)
        s = t * c
        G = wp.identity(n=3, dtype=float)
        G[p, p] = c
        G[q, q] = c
        G[p, q] = s
        G[q, p] = -s
        A2 = wp.transpose(G) * A * G
        V2 = V * G
    return A2, V2


@wp.func
def svd_from_jacobi(F: wp.mat33):
    # F = U diag(sigma) V^T from the eigen decomposition of F^T F (5 cyclic Jacobi sweeps)
    A = wp.transpose(F) * F
    V = wp.identity(n=3, dtype=float)
    for sweep in range(5):
        A, V = jacobi_rotate(A, V, 0, 1)
        A, V = jacobi_rotate(A, V, 0, 2)
        A, V = jacobi_rotate(A, V, 1, 2)
    s0 = wp.sqrt(wp.max(A[0, 0], 1.0e-12))
    s1 = wp.sqrt(wp.max(A[1, 1], 1.0e-12))
    s2 = wp.sqrt(wp.max(A[2, 2], 1.0e-12))
    sigma = wp.vec3(s0, s1, s2)
    U = F * V * wp.diag(wp.vec3(1.0 / s0, 1.0 / s1, 1.0 / s2))
    return U, sigma, V


@wp.func
def sand_return_map(sigma: wp.vec3, mu: float, la: float, alpha: float):
    # Klar et al. 2016, section 7.3: project the Hencky strain onto the Drucker-Prager cone
    eps = wp.vec3(wp.log(sigma[0]), wp.log(sigma[1]), wp.log(sigma[2]))
    tr = eps[0] + eps[1] + eps[2]
    eps_hat = eps - wp.vec3(tr / 3.0)
    eps_hat_norm = wp.length(eps_hat)
    out = eps
    if tr >= 0.0:
        # case II: expansion, the tip of the cone: stress free
        out = wp.vec3(0.0)
    else:
        delta_gamma = eps_hat_norm + (3.0 * la + 2.0 * mu) / (2.0 * mu) * tr * alpha
        if delta_gamma > 0.0:
            # case III: project onto the cone's surface
            out = eps - eps_hat * (delta_gamma / eps_hat_norm)
    return out


@wp.func
def fixed_corotated_tau(F: wp.mat33, R: wp.mat33, mu: float, la: float):
    J = wp.determinant(F)
    return (F - R) * wp.transpose(F) * (2.0 * mu) + wp.identity(n=3, dtype=float) * (la * J * (J - 1.0))


@wp.func
def stencil_weights(fx: wp.vec3):
    # rows: quadratic B-spline weights of the stencil's nodes 0, 1, 2 along x, y, z
    w0 = wp.vec3(1.5) - fx
    w1 = fx - wp.vec3(1.0)
    w2 = fx - wp.vec3(0.5)
    return wp.matrix_from_rows(
        wp.cw_mul(w0, w0) * 0.5,
        wp.vec3(0.75) - wp.cw_mul(w1, w1),
        wp.cw_mul(w2, w2) * 0.5,
    )


@wp.func
def stencil_base(x: wp.vec3, lo: wp.vec3, inv_dx: float, nx: int, ny: int, nz: int):
    g = (x - lo) * inv_dx
    bx = wp.clamp(int(wp.floor(g[0] - 0.5)), 0, nx - 2)
    by = wp.clamp(int(wp.floor(g[1] - 0.5)), 0, ny - 2)
    bz = wp.clamp(int(wp.floor(g[2] - 0.5)), 0, nz - 2)
    return bx, by, bz


@wp.kernel
def p2g(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    C: wp.array(dtype=wp.mat33),
    F: wp.array(dtype=wp.mat33),
    Jp: wp.array(dtype=float),
    external_f: wp.array(dtype=wp.vec3),
    particle_mass: wp.array(dtype=float),
    mpm_volume: wp.array(dtype=float),
    mpm_material: wp.array(dtype=int),
    mpm_params: wp.array2d(dtype=float),
    lo: wp.vec3,
    dx: float,
    nx: int,
    ny: int,
    nz: int,
    dt: float,
    F_new: wp.array(dtype=wp.mat33),
    Jp_new: wp.array(dtype=float),
    grid_mv: wp.array(dtype=wp.vec3),
    grid_m: wp.array(dtype=float),
):
    p = wp.tid()
    I = wp.identity(n=3, dtype=float)
    inv_dx = 1.0 / dx
    xp = x[p]
    Cp = C[p]
    Fp = (I + Cp * dt) * F[p]
    jp = Jp[p]
    mat = mpm_material[p]
    mu = mpm_params[p, 0]
    la = mpm_params[p, 1]
    tau = wp.mat33()
    if mat == MPM_FIXED_COROTATED:
        tau = fixed_corotated_tau(Fp, polar_rotation(Fp), mu, la)
    elif mat == MPM_NEO_HOOKEAN:
        J = wp.determinant(Fp)
        tau = (Fp * wp.transpose(Fp) - I) * mu + I * (la * wp.log(J))
    elif mat == MPM_FLUID:
        J = wp.determinant(Fp)
        tau = I * (la * J * (J - 1.0))
        Fp = I * wp.pow(J, 1.0 / 3.0)
    elif mat == MPM_SAND:
        U, sig, V = svd_from_jacobi(Fp)
        eps = sand_return_map(sig, mu, la, mpm_params[p, 2])
        J_trial = sig[0] * sig[1] * sig[2]
        sig_e = wp.vec3(wp.exp(eps[0]), wp.exp(eps[1]), wp.exp(eps[2]))
        jp = jp * J_trial / (sig_e[0] * sig_e[1] * sig_e[2])
        Fp = U * wp.diag(sig_e) * wp.transpose(V)
        tr = eps[0] + eps[1] + eps[2]
        tau = U * wp.diag(eps * (2.0 * mu) + wp.vec3(la * tr)) * wp.transpose(U)
    elif mat == MPM_SNOW:
        U, sig, V = svd_from_jacobi(Fp)
        theta_c = mpm_params[p, 2]
        theta_s = mpm_params[p, 3]
        xi = mpm_params[p, 4]
        sig_c = wp.vec3(
            wp.clamp(sig[0], 1.0 - theta_c, 1.0 + theta_s),
            wp.clamp(sig[1], 1.0 - theta_c, 1.0 + theta_s),
            wp.clamp(sig[2], 1.0 - theta_c, 1.0 + theta_s),
        )
        jp = jp * (sig[0] * sig[1] * sig[2]) / (sig_c[0] * sig_c[1] * sig_c[2])
        Fp = U * wp.diag(sig_c) * wp.transpose(V)
        h = wp.exp(xi * (1.0 - jp))
        tau = fixed_corotated_tau(Fp, U * wp.transpose(V), mu * h, la * h)
    F_new[p] = Fp
    Jp_new[p] = jp

    mp = particle_mass[p]
    affine = Cp * mp - tau * (dt * mpm_volume[p] * 4.0 * inv_dx * inv_dx)
    mvp = v[p] * mp + external_f[p] * dt
    bx, by, bz = stencil_base(xp, lo, inv_dx, nx, ny, nz)
    fx = (xp - lo) * inv_dx - wp.vec3(float(bx), float(by), float(bz))
    W = stencil_weights(fx)
    for a in range(3):
        for b in range(3):
            for c in range(3):
                dpos = (wp.vec3(float(a), float(b), float(c)) - fx) * dx
                weight = W[a, 0] * W[b, 1] * W[c, 2]
                node = ((bx + a) * (ny + 1) + by + b) * (nz + 1) + bz + c
                wp.atomic_add(grid_mv, node, (mvp + affine * dpos) * weight)
                wp.atomic_add(grid_m, node, mp * weight)


@wp.func
def collide_node(v: wp.vec3, n: wp.vec3, mu: float) -> wp.vec3:
    """A grid node inside a collider whose outward normal is n: a velocity moving out is kept;
    one moving in loses its normal part vn, and its tangential part is slowed by mu |vn| (Coulomb
    friction), to rest when that is all of it (the MLS-MPM "separate" boundary with friction)."""
    vn = wp.dot(v, n)
    out = v
    if vn < 0.0:
        vt = v - n * vn
        t = wp.length(vt)
        if t <= -mu * vn:
            out = wp.vec3()
        else:
            out = vt * (1.0 + mu * vn / t)
    return out


@wp.kernel
def grid_update(
    grid_mv: wp.array(dtype=wp.vec3),
    grid_m: wp.array(dtype=float),
    gravity: wp.vec3,
    dt: float,
    lo: wp.vec3,
    dx: float,
    nx: int,
    ny: int,
    nz: int,
    boundary: int,
    floor_boundary: int,
    boundary_cells: int,
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
    shape_materials: wp.array2d(dtype=float),
    ground: int,
    ground_plane: wp.vec4,
    ground_mu: float,
    grid_v: wp.array(dtype=wp.vec3),
):
    n = wp.tid()
    k = n % (nz + 1)
    j = (n // (nz + 1)) % (ny + 1)
    i = n // ((nz + 1) * (ny + 1))
    m = grid_m[n]
    vi = wp.vec3()
    if m > 0.0:
        vi = grid_mv[n] / m + gravity * dt
        # Colliders, in index order then the ground: static shapes (their thickness added to the
        # surface, as for particles) with their own friction coefficient, the ground with ground_mu.
        xn = lo + wp.vec3(float(i), float(j), float(k)) * dx
        for s in range(shape_count):
            if shape_body[s] < 0:
                cn, c = geo.shape_contact_at(shape_transform[s], s, xn, 0.0, 0.0, shape_geo_type, shape_geo_scale,
                                             shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                             shape_sdf_cell)
                if c < 0.0:
                    vi = collide_node(vi, cn, shape_materials[s, 4])
        if ground != 0:
            gn, gc = geo.ground_contact(ground_plane, xn, 0.0)
            if gc < 0.0:
                vi = collide_node(vi, gn, ground_mu)
        nodes = wp.vec3i(i, j, k)
        last = wp.vec3i(nx, ny, nz)
        for d in range(3):
            low = nodes[d] < boundary_cells
            high = nodes[d] > last[d] - boundary_cells
            kind = boundary
            if d == 1 and low:
                kind = floor_boundary  # the bottom wall (-y) may differ
            if (low or high) and kind != BOUNDARY_NONE:
                if kind == BOUNDARY_STICKY:
                    vi = wp.vec3()
                elif kind == BOUNDARY_SLIP:
                    vi[d] = 0.0
                elif (low and vi[d] < 0.0) or (high and vi[d] > 0.0):
                    vi[d] = 0.0
    grid_v[n] = vi


@wp.kernel
def g2p(
    x: wp.array(dtype=wp.vec3),
    grid_v: wp.array(dtype=wp.vec3),
    lo: wp.vec3,
    dx: float,
    nx: int,
    ny: int,
    nz: int,
    dt: float,
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
    C_new: wp.array(dtype=wp.mat33),
):
    p = wp.tid()
    inv_dx = 1.0 / dx
    xp = x[p]
    bx, by, bz = stencil_base(xp, lo, inv_dx, nx, ny, nz)
    fx = (xp - lo) * inv_dx - wp.vec3(float(bx), float(by), float(bz))
    W = stencil_weights(fx)
    vp = wp.vec3()
    Cp = wp.mat33()
    for a in range(3):
        for b in range(3):
            for c in range(3):
                dpos = (wp.vec3(float(a), float(b), float(c)) - fx) * dx
                weight = W[a, 0] * W[b, 1] * W[c, 2]
                node = ((bx + a) * (ny + 1) + by + b) * (nz + 1) + bz + c
                gv = grid_v[node]
                vp = vp + gv * weight
                Cp = Cp + wp.outer(gv, dpos) * (4.0 * inv_dx * inv_dx * weight)
    x_new[p] = xp + vp * dt
    v_new[p] = vp
    C_new[p] = Cp
