"""Joints of the semi-implicit solver in maximal coordinates (Warp's eval_body_joints): the wrench
that pulls a joint's child frame onto its parent's frame, leaving free what the joint's axes free,
plus each free coordinate's drive and limit forces.

Frames. Joint j's parent frame is X_wp = body_q[parent] * joint_X_p[j] (the world's joint_X_p for
parent -1), its child frame X_wc = body_q[child] * joint_X_c[j]. Its errors: x_err = x_c - x_p and
v_err, w_err (the child's joint-frame origin's velocity and angular velocity minus the parent's),
and the relative rotation r_err = q_p^-1 q_c, in the parent's joint frame.

Axes. Joint j's axes are slots joint_axis_start[j] .. of the per-axis arrays (axis, drive mode,
act, gains, limits), joint_axis_dim[j] = (linear, angular) of them, linear first; the builder
makes the axes of each kind orthonormal (engine/joint_builder.cpp).

  prismatic   q = x_err . a (a in the world); the rest of x_err and all of r_err held by springs
  revolute    q = r_err's twist about a; the swing a_p x a_c held
  universal   angles (q0, q1, q2) of r_err = R(a0, q0) R(a1, q1) R(c, q2), c = a0 x a1 (euler_angles);
              q0, q1 free, q2 held by the attachment spring (Warp's kernel applies 0 there)
  compound    the same decomposition about (a0, a1, a2), a2 = +-c; all three free
  d6          each linear axis as a prismatic one, the rest of x_err held; then no angular axis:
              r_err held (as fixed), one: as revolute, two: as universal, three: as compound
  ball        x_err held; fixed: x_err and r_err held; free: nothing

The torque of a decomposed angle k acts about its current axis (a0; a1 turned by q0 about a0; a2
turned by q0 and q1) and its velocity is w_err along that axis, as in Warp's kernel. Warp's kernel
decomposes about the frame's x, y, z whatever the axes; here the decomposition is about the
joint's own axes, as Warp's eval_fk / eval_ik place them, so the two agree for x, y, z axes.

A drive and limits per free coordinate (joint_dof_force, Warp's eval_joint_force). Both bodies'
threads call joint_wrench with the same arguments, so the two wrenches are equal and opposite
bit for bit and no atomics are needed (kernels/rigid.py).
"""
import weft as wp

JOINT_PRISMATIC = wp.constant(0)
JOINT_REVOLUTE = wp.constant(1)
JOINT_BALL = wp.constant(2)
JOINT_FIXED = wp.constant(3)
JOINT_FREE = wp.constant(4)
JOINT_COMPOUND = wp.constant(5)
JOINT_UNIVERSAL = wp.constant(6)
JOINT_DISTANCE = wp.constant(7)  # XPBD only (xpbd_joints.py); free in the articulation kernels, as Warp's
JOINT_D6 = wp.constant(8)
JOINT_MODE_FORCE = wp.constant(0)
JOINT_MODE_TARGET_POSITION = wp.constant(1)
JOINT_MODE_TARGET_VELOCITY = wp.constant(2)
ANGULAR_DAMPING_SCALE = wp.constant(0.01)  # Warp's scale of the attachment's angular damping


@wp.func
def rotation_vector(r: wp.quat) -> wp.vec3:
    # The rotation r as axis * angle (angle in [0, pi]); 2 (x, y, z) near the identity, where the
    # two agree to second order and the derivative stays finite.
    x = wp.vec3(r[0], r[1], r[2])
    w = r[3]
    if w < 0.0:
        x = -x
        w = -w
    s = wp.length(x)
    if s < 1.0e-6:
        return x * 2.0
    return x * (2.0 * wp.atan2(s, w) / s)


@wp.func
def joint_twist(r: wp.quat, axis: wp.vec3) -> float:
    # The angle in (-pi, pi] of the rotation r's twist about the unit axis (its swing-twist split).
    w = r[3]
    along = wp.dot(axis, wp.vec3(r[0], r[1], r[2]))
    if w < 0.0:
        w = -w
        along = -along
    return 2.0 * wp.atan2(along, w)


@wp.func
def euler_angles(r: wp.quat, a0: wp.vec3, a1: wp.vec3) -> wp.vec3:
    # The angles (q0, q1, q2) with r = R(a0, q0) R(a1, q1) R(c, q2), c = a0 x a1, for orthonormal
    # a0, a1: in the basis B = (a0, a1, c), M = B^T R B = Rx(q0) Ry(q1) Rz(q2), whose entries give
    # M02 = sin q1, M12 = -sin q0 cos q1, M22 = cos q0 cos q1, M01 = -cos q1 sin q2,
    # M00 = cos q1 cos q2. q1 is in [-pi/2, pi/2]; at +-pi/2 (gimbal lock) q0 and q2 are not unique.
    B = wp.matrix_from_cols(a0, a1, wp.cross(a0, a1))
    M = wp.transpose(B) * wp.quat_to_matrix(r) * B
    q0 = wp.atan2(-M[1, 2], M[2, 2])
    q1 = wp.atan2(M[0, 2], wp.sqrt(M[0, 0] * M[0, 0] + M[0, 1] * M[0, 1]))
    q2 = wp.atan2(-M[0, 1], M[0, 0])
    return wp.vec3(q0, q1, q2)


@wp.func
def euler_axes(a0: wp.vec3, a1: wp.vec3, q0: float, q1: float) -> wp.mat33:
    # The current axes of the angles of euler_angles, as columns (in the joint frame): a0, a1
    # rotated by q0 about a0, c = a0 x a1 rotated by q0 and q1.
    r0 = wp.quat_from_axis_angle(a0, q0)
    return wp.matrix_from_cols(a0, wp.quat_rotate(r0, a1),
                               wp.quat_rotate(r0 * wp.quat_from_axis_angle(a1, q1), wp.cross(a0, a1)))


@wp.func
def joint_dof_force(q: float, qd: float, act: float, mode: int, target_ke: float, target_kd: float, lower: float,
                    upper: float, limit_ke: float, limit_kd: float) -> float:
    # Warp's eval_joint_force: the drive (a force act, or a spring to the target position act, or
    # a damper to the target velocity act) plus the limit spring and damper past a limit.
    target_f = 0.0
    if mode == JOINT_MODE_FORCE:
        target_f = act
    elif mode == JOINT_MODE_TARGET_POSITION:
        target_f = target_ke * (act - q) - target_kd * qd
    elif mode == JOINT_MODE_TARGET_VELOCITY:
        target_f = target_ke * (act - qd)
    limit_f = 0.0
    if q < lower:
        limit_f = limit_ke * (lower - q) - limit_kd * qd
        if mode == JOINT_MODE_TARGET_VELOCITY:
            target_f = 0.0
    elif q > upper:
        limit_f = limit_ke * (upper - q) - limit_kd * qd
        if mode == JOINT_MODE_TARGET_VELOCITY:
            target_f = 0.0
    return limit_f + target_f


@wp.func
def axis_force(a: int, q: float, qd: float, joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float),
               joint_target_ke: wp.array(dtype=float), joint_target_kd: wp.array(dtype=float),
               joint_limit_lower: wp.array(dtype=float), joint_limit_upper: wp.array(dtype=float),
               joint_limit_ke: wp.array(dtype=float), joint_limit_kd: wp.array(dtype=float)) -> float:
    # joint_dof_force with axis slot a's drive and limits.
    return joint_dof_force(q, qd, joint_act[a], joint_mode[a], joint_target_ke[a], joint_target_kd[a], joint_limit_lower[a],
                           joint_limit_upper[a], joint_limit_ke[a], joint_limit_kd[a])


@wp.func
def held_rotation_torque(q_p: wp.quat, r_err: wp.quat, w_err: wp.vec3, attach_ke: float, attach_kd: float) -> wp.vec3:
    # The attachment's torque holding the whole relative rotation (fixed, prismatic, D6 without
    # angular axes).
    return wp.quat_rotate(q_p, rotation_vector(r_err)) * attach_ke + w_err * (attach_kd * ANGULAR_DAMPING_SCALE)


@wp.func
def euler_torque(n: int, a: int, q_p: wp.quat, r_err: wp.quat, w_err: wp.vec3, joint_axis: wp.array(dtype=wp.vec3),
                 joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                 joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                 joint_limit_upper: wp.array(dtype=float), joint_limit_ke: wp.array(dtype=float),
                 joint_limit_kd: wp.array(dtype=float), attach_ke: float, attach_kd: float) -> wp.vec3:
    # The torque of n = 2 (universal) or 3 (compound) angular axes in slots a, a + 1 (, a + 2):
    # each angle's drive and limits about its current axis; for n = 2 the attachment spring holds
    # the third angle. A third axis a2 = s c (s = +-1) has the angle s q2.
    a0 = joint_axis[a]
    a1 = joint_axis[a + 1]
    e = euler_angles(r_err, a0, a1)
    A = euler_axes(a0, a1, e[0], e[1])
    w0 = wp.quat_rotate(q_p, wp.vec3(A[0, 0], A[1, 0], A[2, 0]))
    w1 = wp.quat_rotate(q_p, wp.vec3(A[0, 1], A[1, 1], A[2, 1]))
    w2 = wp.quat_rotate(q_p, wp.vec3(A[0, 2], A[1, 2], A[2, 2]))
    t = w0 * -axis_force(a, e[0], wp.dot(w0, w_err), joint_mode, joint_act, joint_target_ke, joint_target_kd,
                         joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd)
    t = t - w1 * axis_force(a + 1, e[1], wp.dot(w1, w_err), joint_mode, joint_act, joint_target_ke, joint_target_kd,
                            joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd)
    if n == 3:
        s = wp.dot(joint_axis[a + 2], wp.cross(a0, a1))
        t = t - w2 * (s * axis_force(a + 2, s * e[2], s * wp.dot(w2, w_err), joint_mode, joint_act, joint_target_ke,
                                     joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd))
    else:
        # held as the fixed joint holds the whole rotation: +ke err on the parent, -ke err on the child
        t = t + w2 * (e[2] * attach_ke + wp.dot(w2, w_err) * (attach_kd * ANGULAR_DAMPING_SCALE))
    return t


@wp.func
def hinge_torque(a: int, q_p: wp.quat, q_c: wp.quat, r_err: wp.quat, w_err: wp.vec3, joint_axis: wp.array(dtype=wp.vec3),
                 joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                 joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                 joint_limit_upper: wp.array(dtype=float), joint_limit_ke: wp.array(dtype=float),
                 joint_limit_kd: wp.array(dtype=float), attach_ke: float, attach_kd: float) -> wp.vec3:
    # One angular axis (revolute, D6 with one): the twist's drive and limits about the parent's
    # axis, the swing a_p x a_c and the off-axis angular velocity held.
    axis = joint_axis[a]
    axis_p = wp.quat_rotate(q_p, axis)
    axis_c = wp.quat_rotate(q_c, axis)
    q = joint_twist(r_err, axis)
    qd = wp.dot(w_err, axis_p)
    t = axis_p * -axis_force(a, q, qd, joint_mode, joint_act, joint_target_ke, joint_target_kd, joint_limit_lower,
                             joint_limit_upper, joint_limit_ke, joint_limit_kd)
    return t + wp.cross(axis_p, axis_c) * attach_ke + (w_err - axis_p * qd) * (attach_kd * ANGULAR_DAMPING_SCALE)


@wp.func
def slide_force(a: int, q_p: wp.quat, x_err: wp.vec3, v_err: wp.vec3, joint_axis: wp.array(dtype=wp.vec3),
                joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                joint_limit_upper: wp.array(dtype=float), joint_limit_ke: wp.array(dtype=float),
                joint_limit_kd: wp.array(dtype=float)):
    # One linear axis: its drive and limit force, its world axis, coordinate and velocity.
    axis_p = wp.quat_rotate(q_p, joint_axis[a])
    q = wp.dot(x_err, axis_p)
    qd = wp.dot(v_err, axis_p)
    f = axis_p * -axis_force(a, q, qd, joint_mode, joint_act, joint_target_ke, joint_target_kd, joint_limit_lower,
                             joint_limit_upper, joint_limit_ke, joint_limit_kd)
    return f, axis_p, q, qd


@wp.func
def joint_frames(j: int, body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                 body_com: wp.array(dtype=wp.vec3), joint_parent: wp.array(dtype=int), joint_child: wp.array(dtype=int),
                 joint_X_p: wp.array(dtype=wp.transform), joint_X_c: wp.array(dtype=wp.transform)):
    # Joint j's parent and child frames in the world (X_wp, X_wc), its two bodies' centres of mass
    # (com_p: x_p for the world as parent), and the velocities of the two frames' origins and the
    # bodies' angular velocities (v_p, w_p, v_c, w_c; zero for the world).
    parent = joint_parent[j]
    child = joint_child[j]
    X_wp = joint_X_p[j]
    com_p = wp.transform_get_translation(X_wp)
    w_p = wp.vec3(0.0)
    v_p = wp.vec3(0.0)
    if parent >= 0:
        Xb = body_q[parent]
        X_wp = Xb * X_wp
        com_p = wp.transform_point(Xb, body_com[parent])
        qd_p = body_qd[parent]
        w_p = wp.spatial_top(qd_p)
        v_p = wp.spatial_bottom(qd_p) + wp.cross(w_p, wp.transform_get_translation(X_wp) - com_p)
    Xc = body_q[child]
    X_wc = Xc * joint_X_c[j]
    com_c = wp.transform_point(Xc, body_com[child])
    qd_c = body_qd[child]
    w_c = wp.spatial_top(qd_c)
    v_c = wp.spatial_bottom(qd_c) + wp.cross(w_c, wp.transform_get_translation(X_wc) - com_c)
    return X_wp, X_wc, com_p, com_c, v_p, w_p, v_c, w_c


@wp.func
def joint_wrench(
    j: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_X_p: wp.array(dtype=wp.transform),
    joint_X_c: wp.array(dtype=wp.transform),
    joint_axis_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_axis: wp.array(dtype=wp.vec3),
    joint_mode: wp.array(dtype=int),
    joint_act: wp.array(dtype=float),
    joint_target_ke: wp.array(dtype=float),
    joint_target_kd: wp.array(dtype=float),
    joint_limit_lower: wp.array(dtype=float),
    joint_limit_upper: wp.array(dtype=float),
    joint_limit_ke: wp.array(dtype=float),
    joint_limit_kd: wp.array(dtype=float),
    attach_ke: float,
    attach_kd: float,
):
    # Warp's eval_body_joints for one joint: the force f and torque t that pull the parent's joint
    # frame towards the child's, and the two frames' origins in the world. The parent gets (f at
    # x_p, t), the child (-f at x_c, -t).
    jt = joint_type[j]
    a = joint_axis_start[j]
    X_wp, X_wc, com_p, com_c, v_p, w_p, v_c, w_c = joint_frames(j, body_q, body_qd, body_com, joint_parent, joint_child,
                                                                 joint_X_p, joint_X_c)
    x_p = wp.transform_get_translation(X_wp)
    x_c = wp.transform_get_translation(X_wc)
    q_p = wp.transform_get_rotation(X_wp)
    q_c = wp.transform_get_rotation(X_wc)
    r_err = wp.quat_inverse(q_p) * q_c
    x_err = x_c - x_p
    v_err = v_c - v_p
    w_err = w_c - w_p
    f = wp.vec3(0.0)
    t = wp.vec3(0.0)
    if jt == JOINT_FIXED:
        f = x_err * attach_ke + v_err * attach_kd
        t = held_rotation_torque(q_p, r_err, w_err, attach_ke, attach_kd)
    elif jt == JOINT_PRISMATIC:
        fa, axis_p, q, qd = slide_force(a, q_p, x_err, v_err, joint_axis, joint_mode, joint_act, joint_target_ke,
                                        joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd)
        f = fa + (x_err - axis_p * q) * attach_ke + (v_err - axis_p * qd) * attach_kd
        t = held_rotation_torque(q_p, r_err, w_err, attach_ke, attach_kd)
    elif jt == JOINT_REVOLUTE:
        f = x_err * attach_ke + v_err * attach_kd
        t = hinge_torque(a, q_p, q_c, r_err, w_err, joint_axis, joint_mode, joint_act, joint_target_ke, joint_target_kd,
                         joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd, attach_ke, attach_kd)
    elif jt == JOINT_BALL:
        f = x_err * attach_ke + v_err * attach_kd
    elif jt == JOINT_UNIVERSAL or jt == JOINT_COMPOUND:
        n = 2
        if jt == JOINT_COMPOUND:
            n = 3
        f = x_err * attach_ke + v_err * attach_kd
        t = euler_torque(n, a, q_p, r_err, w_err, joint_axis, joint_mode, joint_act, joint_target_ke, joint_target_kd,
                         joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd, attach_ke, attach_kd)
    elif jt == JOINT_D6:
        nl = joint_axis_dim[j, 0]
        na = joint_axis_dim[j, 1]
        x_free = wp.vec3(0.0)  # the parts of x_err and v_err along the linear axes
        v_free = wp.vec3(0.0)
        for k in range(nl):
            fk, axk, qk, qdk = slide_force(a + k, q_p, x_err, v_err, joint_axis, joint_mode, joint_act, joint_target_ke,
                                           joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke,
                                           joint_limit_kd)
            f = f + fk
            x_free = x_free + axk * qk
            v_free = v_free + axk * qdk
        f = f + (x_err - x_free) * attach_ke + (v_err - v_free) * attach_kd
        if na == 0:
            t = held_rotation_torque(q_p, r_err, w_err, attach_ke, attach_kd)
        elif na == 1:
            t = hinge_torque(a + nl, q_p, q_c, r_err, w_err, joint_axis, joint_mode, joint_act, joint_target_ke,
                             joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd,
                             attach_ke, attach_kd)
        else:
            t = euler_torque(na, a + nl, q_p, r_err, w_err, joint_axis, joint_mode, joint_act, joint_target_ke,
                             joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd,
                             attach_ke, attach_kd)
    return f, t, x_p, x_c
