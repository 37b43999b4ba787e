"""Eulerian smoke on a MAC grid (engine/smoke.h): advection, forces and the pressure projection.

Grid layout. nx x ny x nz cells of side h (a 2-D grid has nz = 1). Every field is a flat float
array, x fastest: a field of (sx, sy, sz) samples holds sample (i, j, k) at (k sy + j) sx + i.

    density, pressure    cell centres    (nx, ny, nz)         sample at (i + 1/2, j + 1/2, k + 1/2) h
    u (x velocity)       x faces         (nx + 1, ny, nz)     at (i, j + 1/2, k + 1/2) h
    v (y velocity)       y faces         (nx, ny + 1, nz)     at (i + 1/2, j, k + 1/2) h
    w (z velocity)       z faces         (nx, ny, nz + 1)     at (i + 1/2, j + 1/2, k) h

Positions inside kernels are in cell units ("grid coordinates", g = (x - origin) / h); a field
with offsets (ox, oy, oz) (1/2 where its samples sit at cell middles, 0 on its face axis) has its
sample (i, j, k) at g = (i + ox, j + oy, k + oz). Sampling clamps to the field's samples, which
is a zero normal velocity at the walls (the wall faces hold 0) and a zero normal derivative for
everything else.

A face is open when both cells beside it are in the domain and not solid (`solid`, one int per
cell); the projection sets every closed face to 0 (static walls and obstacles, free slip).

The projection solves L psi = b on the fluid cells, with (L psi)_c = sum over the open faces of c
of (psi_c - psi_nb) and b_c = -(signed sum of c's open face velocities), then u -= psi_R - psi_L on
every open face, so that the discrete divergence vanishes. psi is the pressure times dt / (rho h)
and needs no h or dt. Reductions (dot products) are two-stage and atomic-free: `dot_partial` has
thread t sum the elements t, t + nchunk, ... in float64, `sum_partials` sums those in order, so
results do not depend on the thread count.
"""
import weft as wp


@wp.func
def fluid_cell(solid: wp.array(dtype=int), nx: int, ny: int, nz: int, i: int, j: int, k: int) -> int:
    if i < 0 or j < 0 or k < 0 or i >= nx or j >= ny or k >= nz:
        return 0
    if solid[(k * ny + j) * nx + i] != 0:
        return 0
    return 1


@wp.func
def sample_field(f: wp.array(dtype=float), sx: int, sy: int, sz: int, p: wp.vec3) -> float:
    # trilinear in the field's own index space, clamped to its samples
    x = wp.clamp(p[0], 0.0, float(sx - 1))
    y = wp.clamp(p[1], 0.0, float(sy - 1))
    z = wp.clamp(p[2], 0.0, float(sz - 1))
    i0 = int(wp.floor(x))
    j0 = int(wp.floor(y))
    k0 = int(wp.floor(z))
    i1 = wp.min(i0 + 1, sx - 1)
    j1 = wp.min(j0 + 1, sy - 1)
    k1 = wp.min(k0 + 1, sz - 1)
    tx = x - float(i0)
    ty = y - float(j0)
    tz = z - float(k0)
    c00 = f[(k0 * sy + j0) * sx + i0] * (1.0 - tx) + f[(k0 * sy + j0) * sx + i1] * tx
    c10 = f[(k0 * sy + j1) * sx + i0] * (1.0 - tx) + f[(k0 * sy + j1) * sx + i1] * tx
    c01 = f[(k1 * sy + j0) * sx + i0] * (1.0 - tx) + f[(k1 * sy + j0) * sx + i1] * tx
    c11 = f[(k1 * sy + j1) * sx + i0] * (1.0 - tx) + f[(k1 * sy + j1) * sx + i1] * tx
    c0 = c00 * (1.0 - ty) + c10 * ty
    c1 = c01 * (1.0 - ty) + c11 * ty
    return c0 * (1.0 - tz) + c1 * tz


@wp.func
def stencil_min(f: wp.array(dtype=float), sx: int, sy: int, sz: int, p: wp.vec3) -> float:
    x = wp.clamp(p[0], 0.0, float(sx - 1))
    y = wp.clamp(p[1], 0.0, float(sy - 1))
    z = wp.clamp(p[2], 0.0, float(sz - 1))
    i0 = int(wp.floor(x))
    j0 = int(wp.floor(y))
    k0 = int(wp.floor(z))
    i1 = wp.min(i0 + 1, sx - 1)
    j1 = wp.min(j0 + 1, sy - 1)
    k1 = wp.min(k0 + 1, sz - 1)
    a = wp.min(wp.min(f[(k0 * sy + j0) * sx + i0], f[(k0 * sy + j0) * sx + i1]), wp.min(f[(k0 * sy + j1) * sx + i0], f[(k0 * sy + j1) * sx + i1]))
    b = wp.min(wp.min(f[(k1 * sy + j0) * sx + i0], f[(k1 * sy + j0) * sx + i1]), wp.min(f[(k1 * sy + j1) * sx + i0], f[(k1 * sy + j1) * sx + i1]))
    return wp.min(a, b)


@wp.func
def stencil_max(f: wp.array(dtype=float), sx: int, sy: int, sz: int, p: wp.vec3) -> float:
    x = wp.clamp(p[0], 0.0, float(sx - 1))
    y = wp.clamp(p[1], 0.0, float(sy - 1))
    z = wp.clamp(p[2], 0.0, float(sz - 1))
    i0 = int(wp.floor(x))
    j0 = int(wp.floor(y))
    k0 = int(wp.floor(z))
    i1 = wp.min(i0 + 1, sx - 1)
    j1 = wp.min(j0 + 1, sy - 1)
    k1 = wp.min(k0 + 1, sz - 1)
    a = wp.max(wp.max(f[(k0 * sy + j0) * sx + i0], f[(k0 * sy + j0) * sx + i1]), wp.max(f[(k0 * sy + j1) * sx + i0], f[(k0 * sy + j1) * sx + i1]))
    b = wp.max(wp.max(f[(k1 * sy + j0) * sx + i0], f[(k1 * sy + j0) * sx + i1]), wp.max(f[(k1 * sy + j1) * sx + i0], f[(k1 * sy + j1) * sx + i1]))
    return wp.max(a, b)


@wp.func
def velocity_at(
    u: wp.array(dtype=float), v: wp.array(dtype=float), w: wp.array(dtype=float), nx: int, ny: int, nz: int, g: wp.vec3
) -> wp.vec3:
    vu = sample_field(u, nx + 1, ny, nz, wp.vec3(g[0], g[1] - 0.5, g[2] - 0.5))
    vv = sample_field(v, nx, ny + 1, nz, wp.vec3(g[0] - 0.5, g[1], g[2] - 0.5))
    vw = sample_field(w, nx, ny, nz + 1, wp.vec3(g[0] - 0.5, g[1] - 0.5, g[2]))
    return wp.vec3(vu, vv, vw)


@wp.func
def backtrace(
    u: wp.array(dtype=float), v: wp.array(dtype=float), w: wp.array(dtype=float), nx: int, ny: int, nz: int, g: wp.vec3, dt_h: float
) -> wp.vec3:
    # second-order Runge-Kutta (midpoint) back along the velocity, in cell units (dt_h = dt / h)
    mid = g - velocity_at(u, v, w, nx, ny, nz, g) * (0.5 * dt_h)
    return g - velocity_at(u, v, w, nx, ny, nz, mid) * dt_h


@wp.kernel
def advect(
    q: wp.array(dtype=float),
    sx: int,
    sy: int,
    sz: int,
    offset: wp.vec3,
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    nx: int,
    ny: int,
    nz: int,
    dt_h: float,
    q_out: wp.array(dtype=float),
):
    # semi-Lagrangian: the value at the point the flow brings here in dt (dt_h < 0: forward in time)
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    g = wp.vec3(float(i), float(j), float(k)) + offset
    src = backtrace(u, v, w, nx, ny, nz, g, dt_h)
    q_out[t] = sample_field(q, sx, sy, sz, src - offset)


@wp.kernel
def maccormack_correct(
    q: wp.array(dtype=float),
    q_hat: wp.array(dtype=float),
    q_back: wp.array(dtype=float),
    sx: int,
    sy: int,
    sz: int,
    offset: wp.vec3,
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    nx: int,
    ny: int,
    nz: int,
    dt_h: float,
    q_out: wp.array(dtype=float),
):
    # MacCormack (Selle et al. 2008): q_hat advected forward, q_back = q_hat advected back; the
    # error estimate (q - q_back) / 2 corrects q_hat, and the result is clamped to the values the
    # semi-Lagrangian step interpolated from (no new extrema)
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    g = wp.vec3(float(i), float(j), float(k)) + offset
    src = backtrace(u, v, w, nx, ny, nz, g, dt_h) - offset
    r = q_hat[t] + 0.5 * (q[t] - q_back[t])
    lo = stencil_min(q, sx, sy, sz, src)
    hi = stencil_max(q, sx, sy, sz, src)
    q_out[t] = wp.clamp(r, lo, hi)


@wp.func
def upwind_flux(vel: float, left: float, right: float) -> float:
    if vel > 0.0:
        return vel * left
    return vel * right


@wp.kernel
def advect_conservative(
    d: wp.array(dtype=float),
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    dt_h: float,
    d_out: wp.array(dtype=float),
):
    # finite-volume upwind transport: every face's flux leaves one cell and enters the other, and
    # closed faces carry none, so the sum of the density is kept (up to rounding)
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        d_out[c] = d[c]
        return
    dc = d[c]
    net = float(0.0)
    if fluid_cell(solid, nx, ny, nz, i + 1, j, k) == 1:
        net = net + upwind_flux(u[(k * ny + j) * (nx + 1) + i + 1], dc, d[c + 1])
    if fluid_cell(solid, nx, ny, nz, i - 1, j, k) == 1:
        net = net - upwind_flux(u[(k * ny + j) * (nx + 1) + i], d[c - 1], dc)
    if fluid_cell(solid, nx, ny, nz, i, j + 1, k) == 1:
        net = net + upwind_flux(v[(k * (ny + 1) + j + 1) * nx + i], dc, d[c + nx])
    if fluid_cell(solid, nx, ny, nz, i, j - 1, k) == 1:
        net = net - upwind_flux(v[(k * (ny + 1) + j) * nx + i], d[c - nx], dc)
    if fluid_cell(solid, nx, ny, nz, i, j, k + 1) == 1:
        net = net + upwind_flux(w[((k + 1) * ny + j) * nx + i], dc, d[c + nx * ny])
    if fluid_cell(solid, nx, ny, nz, i, j, k - 1) == 1:
        net = net - upwind_flux(w[(k * ny + j) * nx + i], d[c - nx * ny], dc)
    d_out[c] = dc - dt_h * net


@wp.func
def in_region(sources: wp.array(dtype=float), s: int, p: wp.vec3) -> int:
    # sources / obstacles: 12 floats each: shape (0 sphere, 1 box), centre, size (radius or half
    # extents), velocity, rate, has_velocity
    b = s * 12
    d = p - wp.vec3(sources[b + 1], sources[b + 2], sources[b + 3])
    if sources[b] < 0.5:
        if wp.length(d) <= sources[b + 4]:
            return 1
        return 0
    if wp.abs(d[0]) <= sources[b + 4] and wp.abs(d[1]) <= sources[b + 5] and wp.abs(d[2]) <= sources[b + 6]:
        return 1
    return 0


@wp.kernel
def apply_density_sources(
    d: wp.array(dtype=float),
    nx: int,
    ny: int,
    origin: wp.vec3,
    h: float,
    sources: wp.array(dtype=float),
    nsource: int,
    dt: float,
    d_out: wp.array(dtype=float),
):
    # inflow: every source adds `rate` (density per second) to the cells whose centre it holds
    t = wp.tid()
    i = t % nx
    j = (t // nx) % ny
    k = t // (nx * ny)
    p = origin + wp.vec3(float(i) + 0.5, float(j) + 0.5, float(k) + 0.5) * h
    val = d[t]
    for s in range(nsource):
        if in_region(sources, s, p) == 1:
            val = val + sources[s * 12 + 10] * dt
    d_out[t] = val


@wp.kernel
def apply_velocity_sources(
    q: wp.array(dtype=float),
    sx: int,
    sy: int,
    offset: wp.vec3,
    axis: int,
    origin: wp.vec3,
    h: float,
    sources: wp.array(dtype=float),
    nsource: int,
    q_out: wp.array(dtype=float),
):
    # inflow: a source with a velocity sets the faces whose middle it holds to that velocity
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    p = origin + (wp.vec3(float(i), float(j), float(k)) + offset) * h
    val = q[t]
    for s in range(nsource):
        if sources[s * 12 + 11] > 0.5:
            if in_region(sources, s, p) == 1:
                val = sources[s * 12 + 7 + axis]
    q_out[t] = val


@wp.func
def center_velocity(
    u: wp.array(dtype=float), v: wp.array(dtype=float), w: wp.array(dtype=float), nx: int, ny: int, nz: int, i: int, j: int, k: int
) -> wp.vec3:
    a = wp.clamp(i, 0, nx - 1)
    b = wp.clamp(j, 0, ny - 1)
    c = wp.clamp(k, 0, nz - 1)
    vu = 0.5 * (u[(c * ny + b) * (nx + 1) + a] + u[(c * ny + b) * (nx + 1) + a + 1])
    vv = 0.5 * (v[(c * (ny + 1) + b) * nx + a] + v[(c * (ny + 1) + b + 1) * nx + a])
    vw = 0.5 * (w[(c * ny + b) * nx + a] + w[((c + 1) * ny + b) * nx + a])
    return wp.vec3(vu, vv, vw)


@wp.kernel
def vorticity(
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    nx: int,
    ny: int,
    nz: int,
    h: float,
    omega: wp.array(dtype=wp.vec3),
):
    # curl of the cell-centred velocity by central differences (one-sided at the walls; zero
    # along an axis of one cell)
    i, j, k = wp.tid()
    ip = wp.min(i + 1, nx - 1)
    im = wp.max(i - 1, 0)
    jp = wp.min(j + 1, ny - 1)
    jm = wp.max(j - 1, 0)
    kp = wp.min(k + 1, nz - 1)
    km = wp.max(k - 1, 0)
    dx = wp.vec3()
    dy = wp.vec3()
    dz = wp.vec3()
    if ip > im:
        dx = (center_velocity(u, v, w, nx, ny, nz, ip, j, k) - center_velocity(u, v, w, nx, ny, nz, im, j, k)) / (float(ip - im) * h)
    if jp > jm:
        dy = (center_velocity(u, v, w, nx, ny, nz, i, jp, k) - center_velocity(u, v, w, nx, ny, nz, i, jm, k)) / (float(jp - jm) * h)
    if kp > km:
        dz = (center_velocity(u, v, w, nx, ny, nz, i, j, kp) - center_velocity(u, v, w, nx, ny, nz, i, j, km)) / (float(kp - km) * h)
    omega[(k * ny + j) * nx + i] = wp.vec3(dy[2] - dz[1], dz[0] - dx[2], dx[1] - dy[0])


@wp.kernel
def confinement_force(
    omega: wp.array(dtype=wp.vec3),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    h: float,
    epsilon: float,
    force: wp.array(dtype=wp.vec3),
):
    # vorticity confinement (Fedkiw et al. 2001): f = epsilon h (N x omega), N = grad|omega| / |grad|omega||
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        force[c] = wp.vec3()
        return
    ip = wp.min(i + 1, nx - 1)
    im = wp.max(i - 1, 0)
    jp = wp.min(j + 1, ny - 1)
    jm = wp.max(j - 1, 0)
    kp = wp.min(k + 1, nz - 1)
    km = wp.max(k - 1, 0)
    gx = float(0.0)
    gy = float(0.0)
    gz = float(0.0)
    if ip > im:
        gx = (wp.length(omega[(k * ny + j) * nx + ip]) - wp.length(omega[(k * ny + j) * nx + im])) / (float(ip - im) * h)
    if jp > jm:
        gy = (wp.length(omega[(k * ny + jp) * nx + i]) - wp.length(omega[(k * ny + jm) * nx + i])) / (float(jp - jm) * h)
    if kp > km:
        gz = (wp.length(omega[(kp * ny + j) * nx + i]) - wp.length(omega[(km * ny + j) * nx + i])) / (float(kp - km) * h)
    grad = wp.vec3(gx, gy, gz)
    n = grad / (wp.length(grad) + 1.0e-10)
    force[c] = wp.cross(n, omega[c]) * (epsilon * h)


@wp.kernel
def add_forces(
    q: wp.array(dtype=float),
    sx: int,
    sy: int,
    axis: int,
    density: wp.array(dtype=float),
    confinement: wp.array(dtype=wp.vec3),
    nx: int,
    ny: int,
    nz: int,
    buoyancy: wp.vec3,
    dt: float,
    q_out: wp.array(dtype=float),
):
    # buoyancy (buoyancy * density, along the vector given) and the confinement force, each
    # averaged from the two cells beside the face (the one cell inside at a wall)
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    i0 = i
    j0 = j
    k0 = k
    if axis == 0:
        i0 = i - 1
    if axis == 1:
        j0 = j - 1
    if axis == 2:
        k0 = k - 1
    a = wp.clamp(i0, 0, nx - 1)
    b = wp.clamp(j0, 0, ny - 1)
    c = wp.clamp(k0, 0, nz - 1)
    a1 = wp.clamp(i, 0, nx - 1)
    b1 = wp.clamp(j, 0, ny - 1)
    c1 = wp.clamp(k, 0, nz - 1)
    c_lo = (c * ny + b) * nx + a
    c_hi = (c1 * ny + b1) * nx + a1
    d = 0.5 * (density[c_lo] + density[c_hi])
    f = 0.5 * (confinement[c_lo] + confinement[c_hi])
    q_out[t] = q[t] + (buoyancy[axis] * d + f[axis]) * dt


@wp.kernel
def diffuse(
    q: wp.array(dtype=float),
    sx: int,
    sy: int,
    sz: int,
    alpha: float,
    q_out: wp.array(dtype=float),
):
    # explicit viscosity: q + alpha * (sum of the 6 neighbours - 6 q), alpha = nu dt / h^2; neighbours
    # past the field's edge are the sample itself (zero normal derivative; the wall faces of the
    # normal component hold 0)
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    c = q[t]
    s = q[(k * sy + j) * sx + wp.min(i + 1, sx - 1)] + q[(k * sy + j) * sx + wp.max(i - 1, 0)]
    s = s + q[(k * sy + wp.min(j + 1, sy - 1)) * sx + i] + q[(k * sy + wp.max(j - 1, 0)) * sx + i]
    s = s + q[(wp.min(k + 1, sz - 1) * sy + j) * sx + i] + q[(wp.max(k - 1, 0) * sy + j) * sx + i]
    q_out[t] = c + alpha * (s - 6.0 * c)


@wp.kernel
def divergence_rhs(
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    b: wp.array(dtype=float),
):
    # b = -(signed sum of the open face velocities) of each fluid cell; 0 in solid cells
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        b[c] = 0.0
        return
    s = float(0.0)
    if fluid_cell(solid, nx, ny, nz, i + 1, j, k) == 1:
        s = s + u[(k * ny + j) * (nx + 1) + i + 1]
    if fluid_cell(solid, nx, ny, nz, i - 1, j, k) == 1:
        s = s - u[(k * ny + j) * (nx + 1) + i]
    if fluid_cell(solid, nx, ny, nz, i, j + 1, k) == 1:
        s = s + v[(k * (ny + 1) + j + 1) * nx + i]
    if fluid_cell(solid, nx, ny, nz, i, j - 1, k) == 1:
        s = s - v[(k * (ny + 1) + j) * nx + i]
    if fluid_cell(solid, nx, ny, nz, i, j, k + 1) == 1:
        s = s + w[((k + 1) * ny + j) * nx + i]
    if fluid_cell(solid, nx, ny, nz, i, j, k - 1) == 1:
        s = s - w[(k * ny + j) * nx + i]
    b[c] = -s


@wp.func
def neighbour_sum(
    x: wp.array(dtype=float), solid: wp.array(dtype=int), nx: int, ny: int, nz: int, i: int, j: int, k: int
) -> wp.vec2:
    # (sum of x over the fluid neighbours, their number)
    c = (k * ny + j) * nx + i
    s = float(0.0)
    n = float(0.0)
    if fluid_cell(solid, nx, ny, nz, i + 1, j, k) == 1:
        s = s + x[c + 1]
        n = n + 1.0
    if fluid_cell(solid, nx, ny, nz, i - 1, j, k) == 1:
        s = s + x[c - 1]
        n = n + 1.0
    if fluid_cell(solid, nx, ny, nz, i, j + 1, k) == 1:
        s = s + x[c + nx]
        n = n + 1.0
    if fluid_cell(solid, nx, ny, nz, i, j - 1, k) == 1:
        s = s + x[c - nx]
        n = n + 1.0
    if fluid_cell(solid, nx, ny, nz, i, j, k + 1) == 1:
        s = s + x[c + nx * ny]
        n = n + 1.0
    if fluid_cell(solid, nx, ny, nz, i, j, k - 1) == 1:
        s = s + x[c - nx * ny]
        n = n + 1.0
    return wp.vec2(s, n)


@wp.kernel
def jacobi(
    x: wp.array(dtype=float),
    b: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    omega: float,
    x_out: wp.array(dtype=float),
):
    # weighted Jacobi sweep of L x = b: x + omega ((b + sum x_nb) / n - x)
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        x_out[c] = 0.0
        return
    sn = neighbour_sum(x, solid, nx, ny, nz, i, j, k)
    if sn[1] == 0.0:
        x_out[c] = 0.0
        return
    x_out[c] = x[c] + omega * ((b[c] + sn[0]) / sn[1] - x[c])


@wp.kernel
def gauss_seidel(
    x: wp.array(dtype=float),
    b: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    color: int,
):
    # one colour of a red-black Gauss-Seidel sweep, in place: cells of one colour only read the other's
    i, j, k = wp.tid()
    if (i + j + k) % 2 != color:
        return
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        x[c] = 0.0
        return
    sn = neighbour_sum(x, solid, nx, ny, nz, i, j, k)
    if sn[1] == 0.0:
        x[c] = 0.0
        return
    x[c] = (b[c] + sn[0]) / sn[1]


@wp.kernel
def residual(
    x: wp.array(dtype=float),
    b: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    r: wp.array(dtype=float),
):
    # r = b - L x
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        r[c] = 0.0
        return
    sn = neighbour_sum(x, solid, nx, ny, nz, i, j, k)
    r[c] = b[c] - (sn[1] * x[c] - sn[0])


@wp.kernel
def laplacian(
    x: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    y: wp.array(dtype=float),
):
    # y = L x
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        y[c] = 0.0
        return
    sn = neighbour_sum(x, solid, nx, ny, nz, i, j, k)
    y[c] = sn[1] * x[c] - sn[0]


@wp.kernel
def restrict_sum(
    r: wp.array(dtype=float),
    nx: int,
    ny: int,
    nz: int,
    csolid: wp.array(dtype=int),
    cnx: int,
    cny: int,
    cnz: int,
    scale: float,
    b: wp.array(dtype=float),
):
    # coarse right-hand side: scale * the sum of the (up to 2 x 2 x 2) fine children
    i, j, k = wp.tid()
    c = (k * cny + j) * cnx + i
    if csolid[c] != 0:
        b[c] = 0.0
        return
    s = float(0.0)
    for dk in range(2):
        for dj in range(2):
            for di in range(2):
                fi = 2 * i + di
                fj = 2 * j + dj
                fk = 2 * k + dk
                if fi < nx and fj < ny and fk < nz:
                    s = s + r[(fk * ny + fj) * nx + fi]
    b[c] = s * scale


@wp.kernel
def prolong_add(
    x: wp.array(dtype=float),
    xc: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    cnx: int,
    cny: int,
    x_out: wp.array(dtype=float),
):
    # x + the coarse correction of the cell's parent (piecewise constant)
    i, j, k = wp.tid()
    c = (k * ny + j) * nx + i
    if solid[c] != 0:
        x_out[c] = 0.0
        return
    x_out[c] = x[c] + xc[((k // 2) * cny + j // 2) * cnx + i // 2]


@wp.kernel
def subtract_gradient(
    q: wp.array(dtype=float),
    sx: int,
    sy: int,
    axis: int,
    psi: wp.array(dtype=float),
    solid: wp.array(dtype=int),
    nx: int,
    ny: int,
    nz: int,
    q_out: wp.array(dtype=float),
):
    # open faces: q - (psi_hi - psi_lo); closed faces (walls, obstacles): 0
    t = wp.tid()
    i = t % sx
    j = (t // sx) % sy
    k = t // (sx * sy)
    i0 = i
    j0 = j
    k0 = k
    if axis == 0:
        i0 = i - 1
    if axis == 1:
        j0 = j - 1
    if axis == 2:
        k0 = k - 1
    if fluid_cell(solid, nx, ny, nz, i0, j0, k0) == 0 or fluid_cell(solid, nx, ny, nz, i, j, k) == 0:
        q_out[t] = 0.0
        return
    q_out[t] = q[t] - (psi[(k * ny + j) * nx + i] - psi[(k0 * ny + j0) * nx + i0])


@wp.kernel
def dot_partial(a: wp.array(dtype=float), b: wp.array(dtype=float), n: int, nchunk: int, partial: wp.array(dtype=wp.float64)):
    t = wp.tid()
    s = wp.float64(0.0)
    for e in range(t, n, nchunk):
        s = s + wp.float64(a[e]) * wp.float64(b[e])
    partial[t] = s


@wp.kernel
def sum_partials(partial: wp.array(dtype=wp.float64), nchunk: int, out: wp.array(dtype=wp.float64), slot: int):
    s = wp.float64(0.0)
    for t in range(nchunk):
        s = s + partial[t]
    out[slot] = s


@wp.kernel
def remove_mean(x: wp.array(dtype=float), solid: wp.array(dtype=int), sums: wp.array(dtype=wp.float64), slot: int, count: float):
    # x -= mean of x over the fluid cells (sums[slot] = that sum); the projection's solution is
    # defined up to a constant per connected fluid region, and this keeps CG in the range of L
    t = wp.tid()
    if solid[t] != 0:
        return
    x[t] = x[t] - float(sums[slot] / wp.float64(count))


@wp.kernel
def cg_update(
    x: wp.array(dtype=float),
    r: wp.array(dtype=float),
    p: wp.array(dtype=float),
    ap: wp.array(dtype=float),
    sums: wp.array(dtype=wp.float64),
    rz_slot: int,
    pap_slot: int,
):
    # x += alpha p, r -= alpha A p with alpha = (r . z) / (p . A p), both read on the device
    t = wp.tid()
    alpha = float(sums[rz_slot] / sums[pap_slot])
    x[t] = x[t] + alpha * p[t]
    r[t] = r[t] - alpha * ap[t]


@wp.kernel
def cg_direction(p: wp.array(dtype=float), z: wp.array(dtype=float), sums: wp.array(dtype=wp.float64), rz_new: int, rz_old: int):
    # p = z + beta p with beta = rz_new / rz_old
    t = wp.tid()
    beta = float(sums[rz_new] / sums[rz_old])
    p[t] = z[t] + beta * p[t]


@wp.kernel
def advect_particles(
    x: wp.array(dtype=wp.vec3),
    u: wp.array(dtype=float),
    v: wp.array(dtype=float),
    w: wp.array(dtype=float),
    nx: int,
    ny: int,
    nz: int,
    origin: wp.vec3,
    h: float,
    dt: float,
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
):
    # massless tracers: midpoint rule in the grid's velocity (clamped to the grid's samples outside it)
    t = wp.tid()
    p = x[t]
    g = (p - origin) / h
    v0 = velocity_at(u, v, w, nx, ny, nz, g)
    v1 = velocity_at(u, v, w, nx, ny, nz, g + v0 * (0.5 * dt / h))
    x_new[t] = p + v1 * dt
    v_new[t] = v1
