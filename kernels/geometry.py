"""Signed distances of the static collision shapes, in the shape's own frame, and their gradients.

Shape types: 0 sphere (scale.x = radius), 1 box (scale = half extents), 2 capsule (scale.x =
radius, scale.y = half height, axis along local y), 3 plane (infinite, normal along local +y),
4 cone (scale.x = base radius at y = +half height, scale.y = half height, apex at y = -half
height: Warp's cone), 5 mesh (Warp's GEO_MESH; a grid of signed distances and their gradients
built by finalize, engine/mesh_sdf.h), 6 cylinder (scale.x = radius, scale.y = half height, axis
along local y). Gradients of the analytic shapes are unit outward normals; mesh_sdf returns an
interpolated gradient, which the caller normalises.

Cylinders and cones are solids of revolution about y: their distance is that of the 2D section
(rho, y), rho = the distance from the axis, and the 3D normal is the section's normal turned
about the axis. Both are exact Euclidean distances (Warp's cone_sdf measures the horizontal
distance to the slant instead, which is larger than the true distance off the slant).
"""
import weft as wp

GEO_SPHERE = wp.constant(0)
GEO_BOX = wp.constant(1)
GEO_CAPSULE = wp.constant(2)
GEO_PLANE = wp.constant(3)
GEO_CONE = wp.constant(4)
GEO_MESH = wp.constant(5)
GEO_CYLINDER = wp.constant(6)


@wp.func
def box_sdf(upper: wp.vec3, p: wp.vec3) -> float:
    qx = wp.abs(p[0]) - upper[0]
    qy = wp.abs(p[1]) - upper[1]
    qz = wp.abs(p[2]) - upper[2]
    e = wp.vec3(wp.max(qx, 0.0), wp.max(qy, 0.0), wp.max(qz, 0.0))
    return wp.length(e) + wp.min(wp.max(qx, wp.max(qy, qz)), 0.0)


@wp.func
def box_sdf_grad(upper: wp.vec3, p: wp.vec3) -> wp.vec3:
    qx = wp.abs(p[0]) - upper[0]
    qy = wp.abs(p[1]) - upper[1]
    qz = wp.abs(p[2]) - upper[2]
    if qx > 0.0 or qy > 0.0 or qz > 0.0:
        c = wp.vec3(wp.clamp(p[0], -upper[0], upper[0]), wp.clamp(p[1], -upper[1], upper[1]), wp.clamp(p[2], -upper[2], upper[2]))
        return wp.normalize(p - c)
    if qx > qy and qx > qz:
        return wp.vec3(wp.sign(p[0]), 0.0, 0.0)
    if qy > qz:
        return wp.vec3(0.0, wp.sign(p[1]), 0.0)
    return wp.vec3(0.0, 0.0, wp.sign(p[2]))


@wp.func
def capsule_closest(radius: float, half_height: float, p: wp.vec3) -> wp.vec3:
    return wp.vec3(0.0, wp.clamp(p[1], -half_height, half_height), 0.0)


@wp.func
def radial(p: wp.vec3) -> wp.vec3:
    # The unit direction from the y axis to p (x when p is on the axis).
    d = wp.vec3(p[0], 0.0, p[2])
    l = wp.length(d)
    if l > 0.0:
        return d / l
    return wp.vec3(1.0, 0.0, 0.0)


@wp.func
def cylinder_section(radius: float, half_height: float, rho: float, y: float) -> wp.vec3:
    # The section of a cylinder, the rectangle rho <= radius, |y| <= half_height, at (rho, y):
    # (normal along rho, normal along y, signed distance).
    dx = rho - radius
    dy = wp.abs(y) - half_height
    sy = 1.0
    if y < 0.0:
        sy = -1.0
    if dx > 0.0 and dy > 0.0:
        d = wp.sqrt(dx * dx + dy * dy)
        return wp.vec3(dx / d, sy * dy / d, d)
    if dx > dy:
        return wp.vec3(1.0, 0.0, dx)
    return wp.vec3(0.0, sy, dy)


@wp.func
def cone_section(radius: float, half_height: float, rho: float, y: float) -> wp.vec3:
    # The section of a cone, the triangle with apex (0, -h), base rim (r, h) and base centre
    # (0, h), at (rho >= 0, y): (normal along rho, normal along y, signed distance). The nearest
    # point lies on the base (y = h, rho in [0, r]) or on the slant from the apex to the rim.
    h = half_height
    r = radius
    # base
    cb = wp.clamp(rho, 0.0, r)
    bx = rho - cb
    by = y - h
    db = wp.sqrt(bx * bx + by * by)
    # slant: a(t) = (0, -h) + t (r, 2h), t in [0, 1]
    ex = r
    ey = 2.0 * h
    t = wp.clamp((rho * ex + (y + h) * ey) / (ex * ex + ey * ey), 0.0, 1.0)
    sx = rho - t * ex
    sy = y + h - t * ey
    ds = wp.sqrt(sx * sx + sy * sy)
    ln = wp.sqrt(ex * ex + ey * ey)
    inside = y <= h and rho * ey <= r * (y + h)
    if inside:
        # inside a convex section the nearest boundary point is on a face: its outward normal
        if h - y < (r * (y + h) - rho * ey) / ln:
            return wp.vec3(0.0, 1.0, -(h - y))
        return wp.vec3(ey / ln, -ex / ln, -(r * (y + h) - rho * ey) / ln)
    if db < ds:
        if db > 0.0:
            return wp.vec3(bx / db, by / db, db)
        return wp.vec3(0.0, 1.0, 0.0)
    if ds > 0.0:
        return wp.vec3(sx / ds, sy / ds, ds)
    return wp.vec3(ey / ln, -ex / ln, 0.0)


@wp.func
def shape_sdf(geo_type: int, scale: wp.vec3, p: wp.vec3) -> float:
    if geo_type == GEO_SPHERE:
        return wp.length(p) - scale[0]
    if geo_type == GEO_BOX:
        return box_sdf(scale, p)
    if geo_type == GEO_CAPSULE:
        return wp.length(p - capsule_closest(scale[0], scale[1], p)) - scale[0]
    if geo_type == GEO_CYLINDER:
        return cylinder_section(scale[0], scale[1], wp.length(wp.vec3(p[0], 0.0, p[2])), p[1])[2]
    if geo_type == GEO_CONE:
        return cone_section(scale[0], scale[1], wp.length(wp.vec3(p[0], 0.0, p[2])), p[1])[2]
    return p[1]


@wp.func
def shape_sdf_grad(geo_type: int, scale: wp.vec3, p: wp.vec3) -> wp.vec3:
    if geo_type == GEO_SPHERE:
        return wp.normalize(p)
    if geo_type == GEO_BOX:
        return box_sdf_grad(scale, p)
    if geo_type == GEO_CAPSULE:
        return wp.normalize(p - capsule_closest(scale[0], scale[1], p))
    if geo_type == GEO_CYLINDER or geo_type == GEO_CONE:
        rho = wp.length(wp.vec3(p[0], 0.0, p[2]))
        c = wp.vec3(0.0)
        if geo_type == GEO_CYLINDER:
            c = cylinder_section(scale[0], scale[1], rho, p[1])
        else:
            c = cone_section(scale[0], scale[1], rho, p[1])
        return radial(p) * c[0] + wp.vec3(0.0, c[1], 0.0)
    return wp.vec3(0.0, 1.0, 0.0)


@wp.func
def sdf_node(sdf: wp.array(dtype=wp.vec4), start: int, nx: int, ny: int, i: int, j: int, k: int) -> wp.vec4:
    return sdf[start + (k * ny + j) * nx + i]


@wp.func
def sdf_grid_sample(sdf: wp.array(dtype=wp.vec4), start: int, nx: int, ny: int, nz: int, origin: wp.vec3, cell: float,
                    p: wp.vec3) -> wp.vec4:
    # Trilinear interpolation at p (inside the grid's box) of the nodes' (gradient, distance). Both
    # are continuous in p; the cell index is piecewise constant, so the derivative with respect to
    # p flows through the fractions tx, ty, tz only.
    u = (p - origin) / cell
    i = wp.clamp(int(wp.floor(u[0])), 0, nx - 2)
    j = wp.clamp(int(wp.floor(u[1])), 0, ny - 2)
    k = wp.clamp(int(wp.floor(u[2])), 0, nz - 2)
    tx = u[0] - float(i)
    ty = u[1] - float(j)
    tz = u[2] - float(k)
    # along x, then y, then z
    c00 = wp.lerp(sdf_node(sdf, start, nx, ny, i, j, k), sdf_node(sdf, start, nx, ny, i + 1, j, k), tx)
    c10 = wp.lerp(sdf_node(sdf, start, nx, ny, i, j + 1, k), sdf_node(sdf, start, nx, ny, i + 1, j + 1, k), tx)
    c01 = wp.lerp(sdf_node(sdf, start, nx, ny, i, j, k + 1), sdf_node(sdf, start, nx, ny, i + 1, j, k + 1), tx)
    c11 = wp.lerp(sdf_node(sdf, start, nx, ny, i, j + 1, k + 1), sdf_node(sdf, start, nx, ny, i + 1, j + 1, k + 1), tx)
    return wp.lerp(wp.lerp(c00, c10, ty), wp.lerp(c01, c11, ty), tz)


@wp.func
def mesh_sdf(
    s: int,
    p: wp.vec3,
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
) -> wp.vec4:
    # Signed distance of mesh shape s at p (shape frame) and the direction of its gradient:
    # (gradient, distance); the gradient is not unit length. Beyond the grid, the value at the
    # nearest point of the grid's box plus the distance to it, with the direction away from the
    # box: a bound that stays finite and exceeds the margin, so nothing out there is in contact.
    nx = shape_sdf_dims[s, 1]
    ny = shape_sdf_dims[s, 2]
    nz = shape_sdf_dims[s, 3]
    lo = shape_sdf_origin[s]
    cell = shape_sdf_cell[s]
    hi = lo + wp.vec3(float(nx - 1), float(ny - 1), float(nz - 1)) * cell
    q = wp.vec3(wp.clamp(p[0], lo[0], hi[0]), wp.clamp(p[1], lo[1], hi[1]), wp.clamp(p[2], lo[2], hi[2]))
    r = sdf_grid_sample(shape_sdf_values, shape_sdf_dims[s, 0], nx, ny, nz, lo, cell, q)
    away = p - q
    gap = wp.length(away)
    if gap > 0.0:
        n = away / gap
        return wp.vec4(n[0], n[1], n[2], r[3] + gap)
    return r


@wp.func
def shape_contact_at(
    X: wp.transform,
    s: int,
    x: wp.vec3,
    radius: float,
    margin: float,
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
):
    """A sphere (x, radius, world frame) against shape s placed at X (world): the world contact
    normal and the gap c = distance - radius - thickness (c < 0: in contact). The normal is
    computed only where c < margin (zero otherwise). Static shapes are placed at their
    shape_transform, shapes on bodies at body_q * shape_transform (rigid.py)."""
    p = wp.transform_point(wp.transform_inverse(X), x)
    n = wp.vec3(0.0)
    c = float(0.0)
    if shape_geo_type[s] == GEO_MESH:
        r = mesh_sdf(s, p, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
        c = r[3] - radius - shape_geo_thickness[s]
        if c < margin:
            n = wp.transform_vector(X, wp.normalize(wp.vec3(r[0], r[1], r[2])))
    else:
        c = shape_sdf(shape_geo_type[s], shape_geo_scale[s], p) - radius - shape_geo_thickness[s]
        if c < margin:
            n = wp.transform_vector(X, shape_sdf_grad(shape_geo_type[s], shape_geo_scale[s], p))
    return n, c


@wp.func
def shape_contact(
    s: int,
    x: wp.vec3,
    radius: float,
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
):
    """A sphere (x, radius, world frame) against static shape s (shape_contact_at at its
    shape_transform): the static-shape test of both particle solvers (contact.py, xpbd.py). For a
    shape on a rigid body (shape_body[s] >= 0) the gap is 1 and the normal 0: the semi-implicit
    solver tests those with soft_contact.py's particle_body_contact; XPBD refuses particles with
    shapes on bodies."""
    n = wp.vec3(0.0)
    c = float(1.0)
    if shape_body[s] < 0:
        n, c = shape_contact_at(shape_transform[s], s, x, radius, 0.0, shape_geo_type, shape_geo_scale,
                                shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
    return n, c


@wp.func
def ground_contact(ground_plane: wp.vec4, x: wp.vec3, radius: float):
    """A sphere (x, radius) against the ground plane (n, d), n.x + d = 0: the normal n and the
    gap c = n.x + d - radius (c < 0: in contact)."""
    n = wp.vec3(ground_plane[0], ground_plane[1], ground_plane[2])
    return n, wp.dot(n, x) + ground_plane[3] - radius
