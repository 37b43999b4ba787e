"""Reduced coordinates of articulations: forward kinematics (eval_fk: joint_q, joint_qd -> body_q,
body_qd) and inverse kinematics (eval_ik: body_q, body_qd -> joint_q, joint_qd), Warp's
eval_fk / eval_ik.

Joint j links parent body p (or the world) to child body c through a joint frame: X_p = joint_X_p
in the parent's frame, X_c = joint_X_c in the child's. Its coordinates move the child's joint frame
relative to the parent's: X_wc * X_c = X_wp * X_p * X_j(q), with X_j a rotation about the axis by
q (revolute), a translation along it by q (prismatic), the quaternion q (ball), the transform
(position, quaternion) (free), the rotations R(a0, q0) R(a1, q1) (universal) or R(a0, q0) R(a1, q1)
R(a2, q2) (compound), or for D6 the translation sum(q_k l_k) along its linear axes followed by the
rotation of its angular ones (as revolute, universal or compound for 1, 2, 3). Velocities are
expressed in the parent's joint frame: the angular velocity of the child relative to the parent
(axis * qd, qd[0:3], or the sum of each angle's velocity about its current axis: a0, a1 rotated by
q0, a2 rotated by q0 and q1) and the velocity of the child's joint-frame origin relative to the
parent (axis * qd, qd[3:6], or sum(qd_k l_k)). body_qd holds the world angular velocity and the
velocity of the centre of mass, as everywhere in the engine. Axes are slots of joint_axis
(kernels/joints.py); eval_ik inverts the angles with joints.euler_angles.

eval_fk runs one thread per articulation and places its joints in the order they were added
(parents first: finalize checks it); eval_ik runs one thread per joint.
"""
import weft as wp
import joints


@wp.func
def parent_frame(parent: int, X_p: wp.transform, body_q: wp.array(dtype=wp.transform)) -> wp.transform:
    # The parent's joint frame in the world.
    if parent >= 0:
        return body_q[parent] * X_p
    return X_p


@wp.func
def angular_fk(n: int, a: int, q: int, d: int, joint_axis: wp.array(dtype=wp.vec3), joint_q: wp.array(dtype=float),
               joint_qd: wp.array(dtype=float)):
    # The rotation and angular velocity (joint frame) of n = 1, 2 or 3 angular axes in slots a ..,
    # coordinates joint_q[q ..], velocities joint_qd[d ..].
    a0 = joint_axis[a]
    r = wp.quat_from_axis_angle(a0, joint_q[q])
    w = a0 * joint_qd[d]
    if n > 1:
        a1 = joint_axis[a + 1]
        r1 = wp.quat_from_axis_angle(a1, joint_q[q + 1])
        w = w + wp.quat_rotate(r, a1) * joint_qd[d + 1]
        if n > 2:
            a2 = joint_axis[a + 2]
            w = w + wp.quat_rotate(r * r1, a2) * joint_qd[d + 2]
            r1 = r1 * wp.quat_from_axis_angle(a2, joint_q[q + 2])
        r = r * r1
    return r, w


@wp.func
def angular_ik(n: int, a: int, r: wp.quat, w_rel: wp.vec3, joint_axis: wp.array(dtype=wp.vec3)):
    # The inverse of angular_fk for n = 2 or 3 axes: the angles of r (joints.euler_angles) and the
    # velocities whose axes sum to w_rel (for n = 2, w_rel's part about the third axis, which the
    # joint holds, is dropped). Returns (q0, q1, q2), (qd0, qd1, qd2).
    a0 = joint_axis[a]
    a1 = joint_axis[a + 1]
    e = joints.euler_angles(r, a0, a1)
    A = joints.euler_axes(a0, a1, e[0], e[1])
    x0 = wp.vec3(A[0, 0], A[1, 0], A[2, 0])
    x1 = wp.vec3(A[0, 1], A[1, 1], A[2, 1])
    x2 = wp.vec3(A[0, 2], A[1, 2], A[2, 2])
    c12 = wp.cross(x1, x2)
    c20 = wp.cross(x2, x0)
    c01 = wp.cross(x0, x1)
    qd = wp.vec3(wp.dot(w_rel, c12) / wp.dot(x0, c12), wp.dot(w_rel, c20) / wp.dot(x1, c20),
                 wp.dot(w_rel, c01) / wp.dot(x2, c01))
    s = 1.0
    if n > 2:
        s = wp.dot(joint_axis[a + 2], wp.cross(a0, a1))  # a2 = s (a0 x a1), s = +-1
    return wp.vec3(e[0], e[1], s * e[2]), wp.vec3(qd[0], qd[1], s * qd[2])


@wp.kernel
def eval_articulation_fk(
    articulation_start: wp.array(dtype=int),
    articulation_mask: wp.array(dtype=int),
    has_mask: int,
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_X_p: wp.array(dtype=wp.transform),
    joint_X_c: wp.array(dtype=wp.transform),
    joint_axis_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_axis: wp.array(dtype=wp.vec3),
    body_com: wp.array(dtype=wp.vec3),
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
):
    a = wp.tid()
    if has_mask != 0:
        if articulation_mask[a] == 0:
            return
    for j in range(articulation_start[a], articulation_start[a + 1]):
        parent = joint_parent[j]
        child = joint_child[j]
        jt = joint_type[j]
        X_wp = parent_frame(parent, joint_X_p[j], body_q)
        w_p = wp.vec3(0.0)
        v_p = wp.vec3(0.0)  # the parent's velocity at its centre of mass
        com_p = wp.vec3(0.0)
        if parent >= 0:
            qd_p = body_qd[parent]
            w_p = wp.spatial_top(qd_p)
            v_p = wp.spatial_bottom(qd_p)
            com_p = wp.transform_point(body_q[parent], body_com[parent])
        qs = joint_q_start[j]
        ds = joint_qd_start[j]
        ax = joint_axis_start[j]
        axis = joint_axis[ax]
        X_j = wp.transform(wp.vec3(0.0), wp.quat(0.0, 0.0, 0.0, 1.0))
        w_j = wp.vec3(0.0)
        v_j = wp.vec3(0.0)
        if jt == joints.JOINT_REVOLUTE:
            X_j = wp.transform(wp.vec3(0.0), wp.quat_from_axis_angle(axis, joint_q[qs]))
            w_j = axis * joint_qd[ds]
        elif jt == joints.JOINT_PRISMATIC:
            X_j = wp.transform(axis * joint_q[qs], wp.quat(0.0, 0.0, 0.0, 1.0))
            v_j = axis * joint_qd[ds]
        elif jt == joints.JOINT_BALL:
            r = wp.normalize(wp.quat(joint_q[qs], joint_q[qs + 1], joint_q[qs + 2], joint_q[qs + 3]))
            X_j = wp.transform(wp.vec3(0.0), r)
            w_j = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2])
        elif jt == joints.JOINT_FREE or jt == joints.JOINT_DISTANCE:
            r = wp.normalize(wp.quat(joint_q[qs + 3], joint_q[qs + 4], joint_q[qs + 5], joint_q[qs + 6]))
            X_j = wp.transform(wp.vec3(joint_q[qs], joint_q[qs + 1], joint_q[qs + 2]), r)
            w_j = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2])
            v_j = wp.vec3(joint_qd[ds + 3], joint_qd[ds + 4], joint_qd[ds + 5])
        elif jt == joints.JOINT_UNIVERSAL or jt == joints.JOINT_COMPOUND:
            n = 2
            if jt == joints.JOINT_COMPOUND:
                n = 3
            r, w_j = angular_fk(n, ax, qs, ds, joint_axis, joint_q, joint_qd)
            X_j = wp.transform(wp.vec3(0.0), r)
        elif jt == joints.JOINT_D6:
            nl = joint_axis_dim[j, 0]
            na = joint_axis_dim[j, 1]
            p = wp.vec3(0.0)
            for k in range(nl):
                p = p + joint_axis[ax + k] * joint_q[qs + k]
                v_j = v_j + joint_axis[ax + k] * joint_qd[ds + k]
            r = wp.quat(0.0, 0.0, 0.0, 1.0)
            if na > 0:
                r, w_j = angular_fk(na, ax + nl, qs + nl, ds + nl, joint_axis, joint_q, joint_qd)
            X_j = wp.transform(p, r)
        X_wj = X_wp * X_j
        X_wc = X_wj * wp.transform_inverse(joint_X_c[j])
        body_q[child] = X_wc
        R = wp.transform_get_rotation(X_wp)
        w_jw = wp.quat_rotate(R, w_j)
        v_jw = wp.quat_rotate(R, v_j)
        x_j = wp.transform_get_translation(X_wj)
        com_c = wp.transform_point(X_wc, body_com[child])
        w_c = w_p + w_jw
        v_c = v_p + wp.cross(w_p, com_c - com_p) + v_jw + wp.cross(w_jw, com_c - x_j)
        body_qd[child] = wp.spatial_vector(w_c[0], w_c[1], w_c[2], v_c[0], v_c[1], v_c[2])


@wp.kernel
def eval_articulation_ik(
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_X_p: wp.array(dtype=wp.transform),
    joint_X_c: wp.array(dtype=wp.transform),
    joint_axis_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_axis: wp.array(dtype=wp.vec3),
    body_com: wp.array(dtype=wp.vec3),
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
):
    j = wp.tid()
    parent = joint_parent[j]
    child = joint_child[j]
    jt = joint_type[j]
    X_wp = parent_frame(parent, joint_X_p[j], body_q)
    X_wc = body_q[child] * joint_X_c[j]
    x_p = wp.transform_get_translation(X_wp)
    x_c = wp.transform_get_translation(X_wc)
    R = wp.transform_get_rotation(X_wp)
    r = wp.quat_inverse(R) * wp.transform_get_rotation(X_wc)
    w_p = wp.vec3(0.0)
    v_p = wp.vec3(0.0)  # the parent's velocity at x_c
    if parent >= 0:
        qd_p = body_qd[parent]
        w_p = wp.spatial_top(qd_p)
        v_p = wp.spatial_bottom(qd_p) + wp.cross(w_p, x_c - wp.transform_point(body_q[parent], body_com[parent]))
    qd_c = body_qd[child]
    w_c = wp.spatial_top(qd_c)
    v_c = wp.spatial_bottom(qd_c) + wp.cross(w_c, x_c - wp.transform_point(body_q[child], body_com[child]))
    w_rel = wp.quat_rotate_inv(R, w_c - w_p)
    v_rel = wp.quat_rotate_inv(R, v_c - v_p)
    p = wp.quat_rotate_inv(R, x_c - x_p)
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    ax = joint_axis_start[j]
    axis = joint_axis[ax]
    if jt == joints.JOINT_REVOLUTE:
        joint_q[qs] = joints.joint_twist(r, axis)
        joint_qd[ds] = wp.dot(w_rel, axis)
    elif jt == joints.JOINT_PRISMATIC:
        joint_q[qs] = wp.dot(p, axis)
        joint_qd[ds] = wp.dot(v_rel, axis)
    elif jt == joints.JOINT_BALL:
        for k in range(4):
            joint_q[qs + k] = r[k]
        for k in range(3):
            joint_qd[ds + k] = w_rel[k]
    elif jt == joints.JOINT_FREE or jt == joints.JOINT_DISTANCE:
        for k in range(3):
            joint_q[qs + k] = p[k]
            joint_qd[ds + k] = w_rel[k]
            joint_qd[ds + 3 + k] = v_rel[k]
        for k in range(4):
            joint_q[qs + 3 + k] = r[k]
    elif jt == joints.JOINT_UNIVERSAL or jt == joints.JOINT_COMPOUND:
        n = 2
        if jt == joints.JOINT_COMPOUND:
            n = 3
        qa, qda = angular_ik(n, ax, r, w_rel, joint_axis)
        for k in range(n):
            joint_q[qs + k] = qa[k]
            joint_qd[ds + k] = qda[k]
    elif jt == joints.JOINT_D6:
        nl = joint_axis_dim[j, 0]
        na = joint_axis_dim[j, 1]
        for k in range(nl):
            joint_q[qs + k] = wp.dot(p, joint_axis[ax + k])
            joint_qd[ds + k] = wp.dot(v_rel, joint_axis[ax + k])
        if na == 1:
            joint_q[qs + nl] = joints.joint_twist(r, joint_axis[ax + nl])
            joint_qd[ds + nl] = wp.dot(w_rel, joint_axis[ax + nl])
        elif na > 1:
            qa, qda = angular_ik(na, ax + nl, r, w_rel, joint_axis)
            for k in range(na):
                joint_q[qs + nl + k] = qa[k]
                joint_qd[ds + nl + k] = qda[k]
