"""Reduced coordinates of articulations: forward kinematics (eval_fk: joint_q, joint_qd -> body_q,
body_qd) and inverse kinematics (eval_ik: body_q, body_qd -> joint_q, joint_qd), Warp's
eval_fk / eval_ik.

Joint j links parent body p (or the world) to child body c through a joint frame: X_p = joint_X_p
in the parent's frame, X_c = joint_X_c in the child's. Its coordinates move the child's joint frame
relative to the parent's: X_wc * X_c = X_wp * X_p * X_j(q), with X_j a rotation about the axis by
q (revolute), a translation along it by q (prismatic), the quaternion q (ball), or the transform
(position, quaternion) (free). Velocities are expressed in the parent's joint frame: the angular
velocity of the child relative to the parent (axis * qd, qd, or qd[0:3]) and the velocity of the
child's joint-frame origin relative to the parent (axis * qd, or qd[3:6]). body_qd holds the world
angular velocity and the velocity of the centre of mass, as everywhere in the engine.

eval_fk runs one thread per articulation and places its joints in the order they were added
(parents first: finalize checks it); eval_ik runs one thread per joint.
"""
import weft as wp
import rigid


@wp.func
def parent_frame(parent: int, X_p: wp.transform, body_q: wp.array(dtype=wp.transform)) -> wp.transform:
    # The parent's joint frame in the world.
    if parent >= 0:
        return body_q[parent] * X_p
    return X_p


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
        axis = joint_axis[j]
        X_j = wp.transform(wp.vec3(0.0), wp.quat(0.0, 0.0, 0.0, 1.0))
        w_j = wp.vec3(0.0)
        v_j = wp.vec3(0.0)
        if jt == rigid.JOINT_REVOLUTE:
            X_j = wp.transform(wp.vec3(0.0), wp.quat_from_axis_angle(axis, joint_q[qs]))
            w_j = axis * joint_qd[ds]
        elif jt == rigid.JOINT_PRISMATIC:
            X_j = wp.transform(axis * joint_q[qs], wp.quat(0.0, 0.0, 0.0, 1.0))
            v_j = axis * joint_qd[ds]
        elif jt == rigid.JOINT_BALL:
            r = wp.normalize(wp.quat(joint_q[qs], joint_q[qs + 1], joint_q[qs + 2], joint_q[qs + 3]))
            X_j = wp.transform(wp.vec3(0.0), r)
            w_j = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2])
        elif jt == rigid.JOINT_FREE:
            r = wp.normalize(wp.quat(joint_q[qs + 3], joint_q[qs + 4], joint_q[qs + 5], joint_q[qs + 6]))
            X_j = wp.transform(wp.vec3(joint_q[qs], joint_q[qs + 1], joint_q[qs + 2]), r)
            w_j = wp.vec3(joint_qd[ds], joint_qd[ds + 1], joint_qd[ds + 2])
            v_j = wp.vec3(joint_qd[ds + 3], joint_qd[ds + 4], joint_qd[ds + 5])
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
    axis = joint_axis[j]
    if jt == rigid.JOINT_REVOLUTE:
        joint_q[qs] = rigid.joint_twist(r, axis)
        joint_qd[ds] = wp.dot(w_rel, axis)
    elif jt == rigid.JOINT_PRISMATIC:
        joint_q[qs] = wp.dot(p, axis)
        joint_qd[ds] = wp.dot(v_rel, axis)
    elif jt == rigid.JOINT_BALL:
        for k in range(4):
            joint_q[qs + k] = r[k]
        for k in range(3):
            joint_qd[ds + k] = w_rel[k]
    elif jt == rigid.JOINT_FREE:
        for k in range(3):
            joint_q[qs + k] = p[k]
            joint_qd[ds + k] = w_rel[k]
            joint_qd[ds + 3 + k] = v_rel[k]
        for k in range(4):
            joint_q[qs + 3 + k] = r[k]
