"""What the XPBD integrator's rigid-body passes share (xpbd_joints.py, xpbd_contacts.py,
xpbd_restitution.py; the method is described in xpbd_joints.py's docstring): world inverse inertia,
generalised inverse masses, a body's frame and mass at a pose, a point against the ground or
against a shape (shape_contact_points, for the contact and restitution passes), the
broad phase within the contact margin, and the two small kernels of every step: the prediction's
wrenches (eval_body_actions) and the application of a pass's summed impulses (apply_body_deltas).
Each pass is a file (a module group) of its own so that a model compiles only the passes it runs."""
import weft as wp
import geometry as geo
import joints as jn
import rigid_common as rc


@wp.func
def world_inv_inertia(X: wp.transform, I_inv: wp.mat33) -> wp.mat33:
    R = wp.quat_to_matrix(wp.transform_get_rotation(X))
    return R * I_inv * wp.transpose(R)


@wp.func
def linear_weight(inv_m: float, Iw: wp.mat33, r: wp.vec3, n: wp.vec3) -> float:
    rn = wp.cross(r, n)
    return inv_m + wp.dot(rn, Iw * rn)


@wp.func
def body_frame(ob: int, body_q: wp.array(dtype=wp.transform)) -> wp.transform:
    X = wp.transform_identity()
    if ob >= 0:
        X = body_q[ob]
    return X


@wp.func
def body_mass_at(ob: int, X: wp.transform, body_com: wp.array(dtype=wp.vec3), body_inv_mass: wp.array(dtype=float),
                 body_inv_inertia: wp.array(dtype=wp.mat33)):
    # A body's centre of mass (world), inverse mass and world inverse inertia at pose X; zeros for
    # the world (-1).
    com = wp.vec3(0.0)
    inv_m = float(0.0)
    Iw = wp.mat33(0.0)
    if ob >= 0:
        com = wp.transform_point(X, body_com[ob])
        inv_m = body_inv_mass[ob]
        Iw = world_inv_inertia(X, body_inv_inertia[ob])
    return com, inv_m, Iw


@wp.func
def ground_point(pl: wp.vec4, sa: int, ba: int, body_q0: wp.array(dtype=wp.transform), body_q: wp.array(dtype=wp.transform),
                 shape_transform: wp.array(dtype=wp.transform), shape_geo_thickness: wp.array(dtype=float),
                 ground_plane: wp.vec4):
    # A point against the ground: (gap now, gap at the start, its surface point now, the ground's
    # point under its start, the normal).
    n = wp.vec3(ground_plane[0], ground_plane[1], ground_plane[2])
    r = pl[3] + shape_geo_thickness[sa]
    pv = wp.vec3(pl[0], pl[1], pl[2])
    x0 = wp.transform_point(body_q0[ba] * shape_transform[sa], pv)
    x = wp.transform_point(body_q[ba] * shape_transform[sa], pv)
    c0 = wp.dot(n, x0) + ground_plane[3] - r
    p_a = x - n * r
    p_h = x0 - n * (c0 + r)
    return wp.dot(n, p_a - p_h), c0, p_a, p_h, n


@wp.func
def shape_contact_points(
    pl: wp.vec4,
    sa: int,
    ba: int,
    sb: int,
    bh: int,
    body_q0: wp.array(dtype=wp.transform),
    body_q: wp.array(dtype=wp.transform),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    margin: float,
):
    # Point pl (shape frame, radius w) of shape sa on body ba against shape sb (on body bh, or
    # static for -1), as xpbd_joints.py's docstring describes: the contact is found at the step's
    # start and its hit point and normal carried with the hit body to its current pose. Returns
    # (near, n, p_a, p_h, Xh): near 1 when the start's distance is within the margin, the carried
    # normal, the point's surface point now, the carried hit point, and the hit body's frame now
    # (p_a = p_h = the point's start and n = 0 when not near).
    pv = wp.vec3(pl[0], pl[1], pl[2])
    x0 = wp.transform_point(body_q0[ba] * shape_transform[sa], pv)
    r = pl[3] + shape_geo_thickness[sa]
    Xh0 = body_frame(bh, body_q0)
    n0, c0 = geo.shape_contact_at(Xh0 * shape_transform[sb], sb, x0, r, margin, shape_geo_type, shape_geo_scale,
                                  shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
    near = 0
    n = wp.vec3(0.0)
    p_a = x0
    p_h = x0
    Xh = Xh0
    if c0 < margin:
        near = 1
        lh = wp.transform_point(wp.transform_inverse(Xh0), x0 - n0 * (c0 + r))
        ln = wp.transform_vector(wp.transform_inverse(Xh0), n0)
        Xh = body_frame(bh, body_q)
        n = wp.transform_vector(Xh, ln)
        p_h = wp.transform_point(Xh, lh)
        p_a = wp.transform_point(body_q[ba] * shape_transform[sa], pv) - n * r
    return near, n, p_a, p_h, Xh


@wp.func
def may_touch_within(Xa: wp.transform, sa: int, Xb: wp.transform, sb: int, shape_bound: wp.array(dtype=float),
                     margin: float) -> bool:
    # The broad phase: false only where the bounding spheres are more than margin apart (no
    # contact point of one can then be within margin of the other).
    ra = shape_bound[sa]
    rb = shape_bound[sb]
    if ra < 0.0 or rb < 0.0:
        return True
    return wp.length(wp.transform_get_translation(Xa) - wp.transform_get_translation(Xb)) <= ra + rb + margin


@wp.func
def two_way(type_a: int, type_b: int, a: int, b: int) -> float:
    # The share of a contact between two body shapes: 1/2 where each shape's points are tested
    # against the other (box on box: one touch is found from both sides), 1 where only one side's are.
    share = 1.0
    if rc.points_into(type_a, type_b, a, b) and rc.points_into(type_b, type_a, b, a):
        share = 0.5
    return share


@wp.kernel
def eval_body_actions(
    body_q: wp.array(dtype=wp.transform),
    external_f: wp.array(dtype=wp.spatial_vector),
    has_external_f: int,
    body_joint_start: wp.array(dtype=int),
    body_joint_list: wp.array(dtype=int),
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_X_p: wp.array(dtype=wp.transform),
    joint_axis_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_axis: wp.array(dtype=wp.vec3),
    joint_mode: wp.array(dtype=int),
    joint_act: wp.array(dtype=float),
    body_f: wp.array(dtype=wp.spatial_vector),
):
    # The wrench of the prediction on body b: the control's external wrench and the force-mode
    # joint axes' actions (Warp's apply_joint_actions): a linear axis a force act a_p through both
    # centres of mass, an angular axis a torque act a_p; the child gets +, the parent -, with a_p
    # the axis in the parent's joint frame.
    b = wp.tid()
    t = wp.vec3(0.0)
    f = wp.vec3(0.0)
    if has_external_f != 0:
        e = external_f[b]
        t = wp.spatial_top(e)
        f = wp.spatial_bottom(e)
    for k in range(body_joint_start[b], body_joint_start[b + 1]):
        j = body_joint_list[k]
        X_wp = joint_X_p[j]
        if joint_parent[j] >= 0:
            X_wp = body_q[joint_parent[j]] * X_wp
        q_p = wp.transform_get_rotation(X_wp)
        s = 1.0
        if joint_parent[j] == b:
            s = -1.0
        a = joint_axis_start[j]
        nl = joint_axis_dim[j, 0]
        n_axes = nl + joint_axis_dim[j, 1]
        if joint_type[j] == jn.JOINT_DISTANCE:
            n_axes = 0  # its slot holds the distance limits, not a direction to push along
        for i in range(n_axes):
            if joint_mode[a + i] == jn.JOINT_MODE_FORCE:
                act = wp.quat_rotate(q_p, joint_axis[a + i]) * (joint_act[a + i] * s)
                if i < nl:
                    f = f + act
                else:
                    t = t + act
    body_f[b] = wp.spatial_vector(t[0], t[1], t[2], f[0], f[1], f[2])


@wp.kernel
def apply_body_deltas(
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    deltas: wp.array(dtype=wp.spatial_vector),
    contact_count: wp.array(dtype=float),
    weighted: int,
    dt: float,
    body_q_new: wp.array(dtype=wp.transform),
    body_qd_new: wp.array(dtype=wp.spatial_vector),
):
    # Moves body b by its summed impulses (divided by its contact count where `weighted`): the
    # centre of mass by P / m, the orientation by the rotation vector I_w^-1 L; the velocities
    # change by the displacement over dt.
    b = wp.tid()
    X = body_q[b]
    qd = body_qd[b]
    e = deltas[b]
    scale = 1.0
    if weighted != 0:
        scale = 1.0 / wp.max(contact_count[b], 1.0)
    dx = wp.spatial_bottom(e) * (body_inv_mass[b] * scale)
    dth = world_inv_inertia(X, body_inv_inertia[b]) * (wp.spatial_top(e) * scale)
    q0 = wp.transform_get_rotation(X)
    q1 = wp.normalize(q0 + wp.quat(dth[0], dth[1], dth[2], 0.0) * q0 * 0.5)
    com = body_com[b]
    x1 = wp.transform_get_translation(X) + wp.quat_rotate(q0, com) + dx
    body_q_new[b] = wp.transform(x1 - wp.quat_rotate(q1, com), q1)
    w1 = wp.spatial_top(qd) + dth / dt
    v1 = wp.spatial_bottom(qd) + dx / dt
    body_qd_new[b] = wp.spatial_vector(w1[0], w1[1], w1[2], v1[0], v1[1], v1[2])
