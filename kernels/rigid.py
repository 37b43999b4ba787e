"""Rigid bodies of the semi-implicit solver: penalty contact between body shapes, the ground and
the static shapes, and Warp's semi-implicit Euler step of a body (integrate_bodies).

A body's pose body_q is the transform of its frame in the world; body_com is its centre of mass in
that frame; body_qd = (w, v) holds the angular velocity w and the velocity v of the centre of
mass, both in world coordinates; a wrench (t, f) is a torque about the centre of mass and a force,
in world coordinates, as in Warp.

Contact points. Each shape of a body stands for itself through points with a radius: a sphere its
centre (radius r), a capsule the two ends of its axis (radius r), a box its eight corners, moved
inwards by rb = 5% of its smallest half extent and given the radius rb (the box collides with
its edges rounded by rb; face down it rests exactly as the sharp box). A point x with radius r is in contact with another shape when the shape's signed distance at x
is below r plus both thicknesses (geometry.py's shape_contact_at), and with the ground when
n.x + d < r. Between two body shapes, `points_into` says which shape's points are tested against
which: a sphere's centre against the other shape (exact for sphere-sphere, sphere-box,
sphere-capsule; between two spheres only the one of lower index, so the contact counts once), box
corners and capsule ends against boxes and capsules (both ways). Edge-edge contact of two boxes and
the crossing middles of two capsules are not found (docs/rigid-bodies.md).

Forces. With gap c (< ka: in contact; ka is the adhesion distance) along the normal n pointing
away from the shape that was hit, and the relative velocity v of the point: fn = ke c +
kd min(v.n, 0) (damping only in contact, c < 0, and only while approaching); friction
min(kf |v_t|, mu |fn|) against the tangential velocity (viscous below the Coulomb limit); force
-n fn - t ft on the body whose point it is, the opposite on the body that was hit, both at x. The
material (ke, kd, kf, ka, mu) of a pair is the mean of the two shapes' (Warp's rule); against the
ground, the mean of the shape's and the ground's.

Determinism. One thread per body sums every contact that acts on it, in a fixed order: first those
of its own points, then those of other bodies' points in its shapes; the force of a pair is
computed by one function with the same arguments in both bodies' threads, so the two are equal and
opposite bit for bit, and no atomics are needed.
"""
import weft as wp
import geometry as geo

BOX_ROUNDING = wp.constant(0.05)  # a box's contact corners are rounded by this fraction of its smallest half extent



@wp.func
def shape_point_count(geo_type: int) -> int:
    if geo_type == geo.GEO_SPHERE:
        return 1
    if geo_type == geo.GEO_CAPSULE:
        return 2
    if geo_type == geo.GEO_BOX:
        return 8
    return 0


@wp.func
def shape_point(geo_type: int, scale: wp.vec3, k: int) -> wp.vec4:
    # Contact point k of a shape in the shape's frame (x, y, z) and its radius (w).
    if geo_type == geo.GEO_SPHERE:
        return wp.vec4(0.0, 0.0, 0.0, scale[0])
    if geo_type == geo.GEO_CAPSULE:
        s = 1.0
        if k == 1:
            s = -1.0
        return wp.vec4(0.0, s * scale[1], 0.0, scale[0])
    # A box's corners, each moved inwards by r along every axis and given the radius r: the box
    # collides as a box whose edges are rounded by r. Unrounded corners of two equal boxes
    # stacked face to face lie on each other's edges, where the inside normal points sideways and
    # the depth is 0, so the boxes would sink through each other.
    r = BOX_ROUNDING * wp.min(scale[0], wp.min(scale[1], scale[2]))
    sx = 1.0
    sy = 1.0
    sz = 1.0
    if k % 2 == 1:
        sx = -1.0
    if (k // 2) % 2 == 1:
        sy = -1.0
    if k >= 4:
        sz = -1.0
    return wp.vec4(sx * (scale[0] - r), sy * (scale[1] - r), sz * (scale[2] - r), r)


@wp.func
def points_into(type_a: int, type_b: int, a: int, b: int) -> bool:
    # Whether the contact points of body shape a (of type type_a) are tested against shape b of
    # another body. (Against static shapes, of any type, they always are.)
    if type_b != geo.GEO_SPHERE and type_b != geo.GEO_BOX and type_b != geo.GEO_CAPSULE:
        return False
    if type_a == geo.GEO_SPHERE:
        return type_b != geo.GEO_SPHERE or a < b
    return type_b != geo.GEO_SPHERE


@wp.func
def rigid_contact_force(n: wp.vec3, v: wp.vec3, c: float, ke: float, kd: float, kf: float, ka: float, mu: float) -> wp.vec3:
    # The force on the point's body (see the module's docstring); zero unless c < ka.
    f = wp.vec3(0.0)
    if c < ka:
        vn = wp.dot(n, v)
        fn = c * ke
        if c < 0.0:
            fn = fn + wp.min(vn, 0.0) * kd
            vt = v - n * vn
            vs = wp.length(vt)
            ft_max = mu * wp.abs(fn)
            ft = vt * kf
            if vs * kf > ft_max:
                ft = vt * (ft_max / vs)
            f = -n * fn - ft
        else:
            f = -n * fn
    return f


@wp.func
def point_velocity(qd: wp.spatial_vector, com: wp.vec3, x: wp.vec3) -> wp.vec3:
    return wp.spatial_bottom(qd) + wp.cross(wp.spatial_top(qd), x - com)


@wp.func
def pair_force(
    x: wp.vec3,
    r: float,
    qd_point: wp.spatial_vector,
    com_point: wp.vec3,
    sa: int,
    sb: int,
    Xb: wp.transform,
    qd_hit: wp.spatial_vector,
    com_hit: wp.vec3,
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
):
    # The force on the body of point x (radius r, of shape sa; its body moves with qd_point about
    # com_point) from shape sb placed at Xb (world; its body moves with qd_hit about com_hit, zero
    # for a static shape), and where it acts: on the point's sphere, x - r n, where both bodies'
    # velocities are taken. Both bodies' threads call this with the same arguments, so the pair's
    # forces are equal and opposite bit for bit.
    ka = 0.5 * (shape_materials[sa, 3] + shape_materials[sb, 3])
    n, c = geo.shape_contact_at(Xb, sb, x, r, ka, shape_geo_type, shape_geo_scale, shape_geo_thickness, shape_sdf_values,
                                shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
    f = wp.vec3(0.0)
    xc = x
    if c < ka:
        xc = x - n * r
        ke = 0.5 * (shape_materials[sa, 0] + shape_materials[sb, 0])
        kd = 0.5 * (shape_materials[sa, 1] + shape_materials[sb, 1])
        kf = 0.5 * (shape_materials[sa, 2] + shape_materials[sb, 2])
        mu = 0.5 * (shape_materials[sa, 4] + shape_materials[sb, 4])
        v = point_velocity(qd_point, com_point, xc) - point_velocity(qd_hit, com_hit, xc)
        f = rigid_contact_force(n, v, c, ke, kd, kf, ka, mu)
    return f, xc


@wp.kernel
def eval_body_forces(
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_shape_start: wp.array(dtype=int),
    body_shape_list: wp.array(dtype=int),
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_count: int,
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    ground: int,
    ground_plane: wp.vec4,
    ground_ke: float,
    ground_kd: float,
    ground_kf: float,
    ground_mu: float,
    external_f: wp.array(dtype=wp.spatial_vector),
    has_external_f: int,
    body_f: wp.array(dtype=wp.spatial_vector),
):
    b = wp.tid()
    Xb = body_q[b]
    qd = body_qd[b]
    com = wp.transform_point(Xb, body_com[b])
    still = wp.spatial_vector()
    f = wp.vec3(0.0)
    t = wp.vec3(0.0)
    if has_external_f != 0:
        e = external_f[b]
        t = t + wp.spatial_top(e)
        f = f + wp.spatial_bottom(e)
    # The points of this body's shapes: against the ground, the static shapes and other bodies.
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        sa = body_shape_list[si]
        ta = shape_geo_type[sa]
        Xa = Xb * shape_transform[sa]
        for k in range(shape_point_count(ta)):
            pl = shape_point(ta, shape_geo_scale[sa], k)
            x = wp.transform_point(Xa, wp.vec3(pl[0], pl[1], pl[2]))
            r = pl[3] + shape_geo_thickness[sa]
            if ground != 0:
                n, c = geo.ground_contact(ground_plane, x, r)
                if c < 0.5 * shape_materials[sa, 3]:
                    xc = x - n * r
                    fc = rigid_contact_force(n, point_velocity(qd, com, xc), c, 0.5 * (shape_materials[sa, 0] + ground_ke),
                                             0.5 * (shape_materials[sa, 1] + ground_kd),
                                             0.5 * (shape_materials[sa, 2] + ground_kf), 0.5 * shape_materials[sa, 3],
                                             0.5 * (shape_materials[sa, 4] + ground_mu))
                    f = f + fc
                    t = t + wp.cross(xc - com, fc)
            for sb in range(shape_count):
                ob = shape_body[sb]
                if ob != b and (ob < 0 or points_into(ta, shape_geo_type[sb], sa, sb)):
                    Xh = shape_transform[sb]
                    qh = still
                    ch = wp.vec3(0.0)
                    if ob >= 0:
                        Xo = body_q[ob]
                        Xh = Xo * shape_transform[sb]
                        qh = body_qd[ob]
                        ch = wp.transform_point(Xo, body_com[ob])
                    fc, xc = pair_force(x, r, qd, com, sa, sb, Xh, qh, ch, shape_geo_type, shape_geo_scale,
                                        shape_geo_thickness, shape_materials, shape_sdf_values, shape_sdf_dims,
                                        shape_sdf_origin, shape_sdf_cell)
                    f = f + fc
                    t = t + wp.cross(xc - com, fc)
    # The reactions: other bodies' points in this body's shapes.
    for sp in range(shape_count):
        ob = shape_body[sp]
        if ob >= 0 and ob != b:
            tp = shape_geo_type[sp]
            Xo = body_q[ob]
            qo = body_qd[ob]
            com_o = wp.transform_point(Xo, body_com[ob])
            Xp = Xo * shape_transform[sp]
            for k in range(shape_point_count(tp)):
                pl = shape_point(tp, shape_geo_scale[sp], k)
                x = wp.transform_point(Xp, wp.vec3(pl[0], pl[1], pl[2]))
                r = pl[3] + shape_geo_thickness[sp]
                for si in range(body_shape_start[b], body_shape_start[b + 1]):
                    sh = body_shape_list[si]
                    if points_into(tp, shape_geo_type[sh], sp, sh):
                        fc, xc = pair_force(x, r, qo, com_o, sp, sh, Xb * shape_transform[sh], qd, com, shape_geo_type,
                                            shape_geo_scale, shape_geo_thickness, shape_materials, shape_sdf_values,
                                            shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
                        f = f - fc
                        t = t - wp.cross(xc - com, fc)
    body_f[b] = wp.spatial_vector(t[0], t[1], t[2], f[0], f[1], f[2])


@wp.kernel
def integrate_bodies(
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_f: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inertia: wp.array(dtype=wp.mat33),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    gravity: wp.vec3,
    angular_damping: float,
    dt: float,
    body_q_new: wp.array(dtype=wp.transform),
    body_qd_new: wp.array(dtype=wp.spatial_vector),
):
    # Warp's integrate_rigid_body: v' = v + (f / m + g) dt, the centre of mass moves by v' dt; the
    # angular velocity is advanced in the body frame with the gyroscopic torque -w x (I w) taken
    # explicitly, the orientation by q' = normalize(q + 0.5 dt (w', 0) q), then w' is damped by
    # (1 - angular_damping dt). A body of zero mass keeps its velocities (kinematic).
    b = wp.tid()
    q = body_q[b]
    qd = body_qd[b]
    wr = body_f[b]
    p = wp.transform_get_translation(q)
    rot = wp.transform_get_rotation(q)
    w0 = wp.spatial_top(qd)
    v0 = wp.spatial_bottom(qd)
    inv_mass = body_inv_mass[b]
    com = body_com[b]
    x_com = p + wp.quat_rotate(rot, com)
    g = wp.vec3(0.0)
    if inv_mass > 0.0:
        g = gravity
    v1 = v0 + (wp.spatial_bottom(wr) * inv_mass + g) * dt
    x1 = x_com + v1 * dt
    wb = wp.quat_rotate_inv(rot, w0)
    tb = wp.quat_rotate_inv(rot, wp.spatial_top(wr)) - wp.cross(wb, body_inertia[b] * wb)
    w1 = wp.quat_rotate(rot, wb + body_inv_inertia[b] * tb * dt)
    r1 = wp.normalize(rot + wp.quat(w1[0], w1[1], w1[2], 0.0) * rot * (0.5 * dt))
    w1 = w1 * (1.0 - angular_damping * dt)
    body_q_new[b] = wp.transform(x1 - wp.quat_rotate(r1, com), r1)
    body_qd_new[b] = wp.spatial_vector(w1[0], w1[1], w1[2], v1[0], v1[1], v1[2])
