"""Featherstone's reduced-coordinate dynamics of articulations (engine/featherstone.h): the joint
accelerations qdd = M(q)^-1 (tau - C(q, qd)) of each articulation, by the recursive Newton-Euler
algorithm (the bias C) and the composite-rigid-body algorithm (the mass matrix M), solved by a
dense Cholesky factorisation; then semi-implicit Euler or RK4 on (joint_q, joint_qd).

Spatial algebra. Every spatial quantity of an articulation is in world axes about one point o, the
origin of the articulation's first child body at the evaluation (any point fixed for one
evaluation would do; a nearby one keeps float32 precise far from the world's origin). A motion
(w, v) is an angular velocity w and the velocity v of the body point at o; a force (n, f) is a
torque n about o and a force f. In these coordinates a velocity propagates by addition,
V_child = V_parent + S qd, and a composite inertia is a sum, with no frame changes. A rigid
body's inertia about o is held as (m, h = m c, Ib = I_c + m (|c|^2 1 - c c^T)) for its centre of
mass c (relative to o) and its world inertia I_c about c: I (w, v) = (Ib w + h x v, m v - h x w).

Joint motion (the columns S of joint j, one per dof, qd in kernels/articulation.py's convention).
R is the rotation of the parent's joint frame, x the child's joint-frame origin (relative to o):
  revolute       (R a, x x R a)                  prismatic   (0, R a)
  ball           (R e_k, x x R e_k), k = 0 .. 2  free        the ball's three, then (0, R e_k)
  universal, compound, D6: linear axes (0, R l_k), then angular axes (a'_k, x x a'_k) with
  a'_k = R r_<k a_k, r_<k the rotation of the angles before k (as articulation.angular_fk).
The velocity product c_J = d/dt(S) qd - V_parent x (S qd) is what the columns change in the
parent's frame: angular axes turned by the angles before them (alpha = sum_k (w_<k x a'_k) qd_k)
and the joint origin moved by the linear axes (v_lin): c_J = (alpha, v_lin x w_J + x x alpha),
w_J the joint's relative angular velocity. Then a_child = a_parent + c_J + V_parent x (S qd) +
S qdd, and the root's a_parent = (0, -g) puts gravity on every body (Featherstone's trick).

Kernels, one thread per articulation (parents come before their children: finalize checks it),
each scratch element written once per launch, so that the backward pass (docs/autodiff.md)
differentiates them exactly:
  eval_featherstone_bias   S, V, a (qdd = 0) and each body's force I a + V x* I V - f_ext
  eval_featherstone_tau    subtree sums of forces and inertias (children first), tau = Q - S^T F
  eval_featherstone_mass   M[r, c] = S_r . (I_sub S_c) for the deeper joint's subtree, + armature
  eval_featherstone_solve  Cholesky M = L L^T, then qdd = L^-T L^-1 tau
and, one thread per joint, the integrators' updates of joint_q and joint_qd.
Q is a dof's drive and limits (joints.axis_force: the same force law as the semi-implicit
solver's joints); ball and free joints have none. f_ext is the contact and external wrench of
rigid.eval_body_forces without the joints' penalty wrenches.
"""
import weft as wp
import joints


@wp.func
def sv(w: wp.vec3, v: wp.vec3) -> wp.spatial_vector:
    return wp.spatial_vector(w[0], w[1], w[2], v[0], v[1], v[2])


@wp.func
def unit(k: int) -> wp.vec3:
    if k == 0:
        return wp.vec3(1.0, 0.0, 0.0)
    if k == 1:
        return wp.vec3(0.0, 1.0, 0.0)
    return wp.vec3(0.0, 0.0, 1.0)


@wp.func
def rotation_column(a: wp.vec3, x: wp.vec3) -> wp.spatial_vector:
    # A rotation about the unit axis a through the point x.
    return sv(a, wp.cross(x, a))


@wp.func
def inertia_times(m: float, h: wp.vec3, Ib: wp.mat33, v: wp.spatial_vector) -> wp.spatial_vector:
    w = wp.spatial_top(v)
    u = wp.spatial_bottom(v)
    return sv(Ib * w + wp.cross(h, u), u * m - wp.cross(h, w))


@wp.func
def is_ancestor(ja: int, jb: int, joint_parent: wp.array(dtype=int), body_parent_joint: wp.array(dtype=int)) -> int:
    # 1 when joint ja is jb or on the path from jb to the articulation's root.
    j = jb
    found = 0
    while j >= 0 and found == 0:
        if j == ja:
            found = 1
        else:
            p = joint_parent[j]
            if p >= 0:
                j = body_parent_joint[p]
            else:
                j = -1
    return found


@wp.func
def dof_counts(jt: int, j: int, joint_axis_dim: wp.array2d(dtype=int)):
    # (linear, angular) dofs of joint j.
    nl = 0
    na = 0
    if jt == joints.JOINT_PRISMATIC:
        nl = 1
    elif jt == joints.JOINT_REVOLUTE:
        na = 1
    elif jt == joints.JOINT_UNIVERSAL:
        na = 2
    elif jt == joints.JOINT_COMPOUND:
        na = 3
    elif jt == joints.JOINT_D6:
        nl = joint_axis_dim[j, 0]
        na = joint_axis_dim[j, 1]
    return nl, na


@wp.kernel
def eval_featherstone_bias(
    articulation_start: wp.array(dtype=int),
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
    body_q: wp.array(dtype=wp.transform),
    body_com: wp.array(dtype=wp.vec3),
    body_mass: wp.array(dtype=float),
    body_inertia: wp.array(dtype=wp.mat33),
    body_wrench: wp.array(dtype=wp.spatial_vector),
    gravity: wp.vec3,
    joint_S: wp.array(dtype=wp.spatial_vector),
    body_v: wp.array(dtype=wp.spatial_vector),
    body_a: wp.array(dtype=wp.spatial_vector),
    body_fb: wp.array(dtype=wp.spatial_vector),
    body_h: wp.array(dtype=wp.vec3),
    body_Ib: wp.array(dtype=wp.mat33),
):
    a = wp.tid()
    start = articulation_start[a]
    end = articulation_start[a + 1]
    if end <= start:
        return
    o = wp.transform_get_translation(body_q[joint_child[start]])
    for j in range(start, end):
        parent = joint_parent[j]
        child = joint_child[j]
        jt = joint_type[j]
        X_wp = joint_X_p[j]
        v_p = wp.spatial_vector()
        a_p = sv(wp.vec3(0.0), -gravity)
        if parent >= 0:
            X_wp = body_q[parent] * joint_X_p[j]
            v_p = body_v[parent]
            a_p = body_a[parent]
        R = wp.transform_get_rotation(X_wp)
        x = wp.transform_get_translation(body_q[child] * joint_X_c[j]) - o
        qs = joint_q_start[j]
        ds = joint_qd_start[j]
        ax = joint_axis_start[j]
        vJ = wp.spatial_vector()
        v_lin = wp.vec3(0.0)
        alpha = wp.vec3(0.0)
        if jt == joints.JOINT_BALL or jt == joints.JOINT_FREE:
            for k in range(3):
                s = rotation_column(wp.quat_rotate(R, unit(k)), x)
                joint_S[ds + k] = s
                vJ = vJ + s * joint_qd[ds + k]
            if jt == joints.JOINT_FREE:
                for k in range(3):
                    l = wp.quat_rotate(R, unit(k))
                    joint_S[ds + 3 + k] = sv(wp.vec3(0.0), l)
                    v_lin = v_lin + l * joint_qd[ds + 3 + k]
                vJ = vJ + sv(wp.vec3(0.0), v_lin)
        elif jt != joints.JOINT_FIXED:
            nl, na = dof_counts(jt, j, joint_axis_dim)
            for k in range(nl):
                l = wp.quat_rotate(R, joint_axis[ax + k])
                joint_S[ds + k] = sv(wp.vec3(0.0), l)
                v_lin = v_lin + l * joint_qd[ds + k]
            vJ = sv(wp.vec3(0.0), v_lin)
            r = wp.quat(0.0, 0.0, 0.0, 1.0)
            w_acc = wp.vec3(0.0)
            for k in range(na):
                axis = joint_axis[ax + nl + k]
                a_k = wp.quat_rotate(R, wp.quat_rotate(r, axis))
                s = rotation_column(a_k, x)
                joint_S[ds + nl + k] = s
                qd_k = joint_qd[ds + nl + k]
                alpha = alpha + wp.cross(w_acc, a_k) * qd_k
                w_acc = w_acc + a_k * qd_k
                vJ = vJ + s * qd_k
                r = r * wp.quat_from_axis_angle(axis, joint_q[qs + nl + k])
        w_J = wp.spatial_top(vJ)
        c_J = sv(alpha, wp.cross(v_lin, w_J) + wp.cross(x, alpha))
        v = v_p + vJ
        acc = a_p + c_J + wp.spatial_cross(v_p, vJ)
        body_v[child] = v
        body_a[child] = acc
        X_c = body_q[child]
        c = wp.transform_point(X_c, body_com[child]) - o
        m = body_mass[child]
        Rm = wp.quat_to_matrix(wp.transform_get_rotation(X_c))
        Ib = Rm * body_inertia[child] * wp.transpose(Rm) + (wp.identity(n=3, dtype=float) * wp.dot(c, c) - wp.outer(c, c)) * m
        h = c * m
        body_h[child] = h
        body_Ib[child] = Ib
        wr = body_wrench[child]
        f_ext = wp.spatial_bottom(wr)
        body_fb[child] = (inertia_times(m, h, Ib, acc) + wp.spatial_cross_dual(v, inertia_times(m, h, Ib, v)) -
                          sv(wp.spatial_top(wr) + wp.cross(c, f_ext), f_ext))


@wp.kernel
def eval_featherstone_tau(
    articulation_start: wp.array(dtype=int),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    joint_type: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_axis_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_mode: wp.array(dtype=int),
    joint_act: wp.array(dtype=float),
    joint_target_ke: wp.array(dtype=float),
    joint_target_kd: wp.array(dtype=float),
    joint_limit_lower: wp.array(dtype=float),
    joint_limit_upper: wp.array(dtype=float),
    joint_limit_ke: wp.array(dtype=float),
    joint_limit_kd: wp.array(dtype=float),
    body_mass: wp.array(dtype=float),
    joint_S: wp.array(dtype=wp.spatial_vector),
    body_fb: wp.array(dtype=wp.spatial_vector),
    body_h: wp.array(dtype=wp.vec3),
    body_Ib: wp.array(dtype=wp.mat33),
    sub_f: wp.array(dtype=wp.spatial_vector),
    sub_m: wp.array(dtype=float),
    sub_h: wp.array(dtype=wp.vec3),
    sub_Ib: wp.array(dtype=wp.mat33),
    joint_tau: wp.array(dtype=float),
):
    a = wp.tid()
    start = articulation_start[a]
    end = articulation_start[a + 1]
    for jj in range(end - start):
        j = end - 1 - jj
        child = joint_child[j]
        F = body_fb[child]
        m = body_mass[child]
        h = body_h[child]
        Ib = body_Ib[child]
        for k in range(j + 1, end):
            if joint_parent[k] == child:
                c = joint_child[k]
                F = F + sub_f[c]
                m = m + sub_m[c]
                h = h + sub_h[c]
                Ib = Ib + sub_Ib[c]
        sub_f[child] = F
        sub_m[child] = m
        sub_h[child] = h
        sub_Ib[child] = Ib
        jt = joint_type[j]
        ds = joint_qd_start[j]
        qs = joint_q_start[j]
        ax = joint_axis_start[j]
        has_axes = 1
        if jt == joints.JOINT_BALL or jt == joints.JOINT_FREE or jt == joints.JOINT_FIXED:
            has_axes = 0
        for k in range(joint_qd_start[j + 1] - ds):
            Q = 0.0
            if has_axes != 0:
                Q = joints.axis_force(ax + k, joint_q[qs + k], joint_qd[ds + k], joint_mode, joint_act, joint_target_ke,
                                      joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke, joint_limit_kd)
            joint_tau[ds + k] = Q - wp.spatial_dot(joint_S[ds + k], F)


@wp.kernel
def eval_featherstone_mass(
    articulation_start: wp.array(dtype=int),
    articulation_mass_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    dof_joint: wp.array(dtype=int),
    body_parent_joint: wp.array(dtype=int),
    joint_armature: wp.array(dtype=float),
    joint_S: wp.array(dtype=wp.spatial_vector),
    sub_m: wp.array(dtype=float),
    sub_h: wp.array(dtype=wp.vec3),
    sub_Ib: wp.array(dtype=wp.mat33),
    mass_matrix: wp.array(dtype=float),
):
    a = wp.tid()
    d0 = joint_qd_start[articulation_start[a]]
    n = joint_qd_start[articulation_start[a + 1]] - d0
    m0 = articulation_mass_start[a]
    for r in range(n):
        jr = dof_joint[d0 + r]
        for c in range(n):
            jc = dof_joint[d0 + c]
            value = 0.0
            if is_ancestor(jr, jc, joint_parent, body_parent_joint) != 0:
                b = joint_child[jc]
                value = wp.spatial_dot(joint_S[d0 + r], inertia_times(sub_m[b], sub_h[b], sub_Ib[b], joint_S[d0 + c]))
            elif is_ancestor(jc, jr, joint_parent, body_parent_joint) != 0:
                b = joint_child[jr]
                value = wp.spatial_dot(joint_S[d0 + c], inertia_times(sub_m[b], sub_h[b], sub_Ib[b], joint_S[d0 + r]))
            if r == c:
                value = value + joint_armature[d0 + r]
            mass_matrix[m0 + r * n + c] = value


@wp.kernel
def eval_featherstone_solve(
    articulation_start: wp.array(dtype=int),
    articulation_mass_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    mass_matrix: wp.array(dtype=float),
    joint_tau: wp.array(dtype=float),
    cholesky: wp.array(dtype=float),
    forward: wp.array(dtype=float),
    joint_qdd: wp.array(dtype=float),
):
    # M = L L^T (L's entries on and below the diagonal, each written once), L y = tau, L^T qdd = y.
    a = wp.tid()
    d0 = joint_qd_start[articulation_start[a]]
    n = joint_qd_start[articulation_start[a + 1]] - d0
    m0 = articulation_mass_start[a]
    for i in range(n):
        for j in range(i + 1):
            s = mass_matrix[m0 + i * n + j]
            for k in range(j):
                s = s - cholesky[m0 + i * n + k] * cholesky[m0 + j * n + k]
            if i == j:
                cholesky[m0 + i * n + i] = wp.sqrt(wp.max(s, 1.0e-12))
            else:
                cholesky[m0 + i * n + j] = s / cholesky[m0 + j * n + j]
    for i in range(n):
        s = joint_tau[d0 + i]
        for k in range(i):
            s = s - cholesky[m0 + i * n + k] * forward[d0 + k]
        forward[d0 + i] = s / cholesky[m0 + i * n + i]
    for ii in range(n):
        i = n - 1 - ii
        s = forward[d0 + i]
        for k in range(i + 1, n):
            s = s - cholesky[m0 + k * n + i] * joint_qdd[d0 + k]
        joint_qdd[d0 + i] = s / cholesky[m0 + i * n + i]


@wp.func
def quat_step(r: wp.quat, w: wp.vec3, h: float) -> wp.quat:
    # r turned by the angular velocity w (in the frame r is relative to) for time h: exp(h w / 2) r.
    angle = wp.length(w) * h
    if angle > 1.0e-9:
        return wp.normalize(wp.quat_from_axis_angle(wp.normalize(w), angle) * r)
    return wp.normalize(r + wp.quat(w[0], w[1], w[2], 0.0) * r * (0.5 * h))


@wp.func
def advance(jt: int, qs: int, ds: int, nq: int, q0: wp.array(dtype=float), rate: wp.array(dtype=float), h: float,
            q_out: wp.array(dtype=float)):
    # q_out = q0 moved along the velocities rate[ds ..] for time h: a quaternion by quat_step,
    # every other coordinate by q + h qd.
    if jt == joints.JOINT_BALL:
        r = wp.quat(q0[qs], q0[qs + 1], q0[qs + 2], q0[qs + 3])
        r = quat_step(r, wp.vec3(rate[ds], rate[ds + 1], rate[ds + 2]), h)
        for k in range(4):
            q_out[qs + k] = r[k]
    elif jt == joints.JOINT_FREE:
        r = wp.quat(q0[qs + 3], q0[qs + 4], q0[qs + 5], q0[qs + 6])
        r = quat_step(r, wp.vec3(rate[ds], rate[ds + 1], rate[ds + 2]), h)
        for k in range(3):
            q_out[qs + k] = q0[qs + k] + rate[ds + 3 + k] * h
        for k in range(4):
            q_out[qs + 3 + k] = r[k]
    else:
        for k in range(nq):
            q_out[qs + k] = q0[qs + k] + rate[ds + k] * h


@wp.func
def angular_dof(jt: int, j: int, k: int, joint_axis_dim: wp.array2d(dtype=int)) -> int:
    # 1 when dof k of joint j is a rotation (angular_damping damps those).
    if jt == joints.JOINT_BALL or jt == joints.JOINT_REVOLUTE or jt == joints.JOINT_UNIVERSAL or jt == joints.JOINT_COMPOUND:
        return 1
    if jt == joints.JOINT_FREE:
        if k < 3:
            return 1
        return 0
    if jt == joints.JOINT_D6:
        if k >= joint_axis_dim[j, 0]:
            return 1
    return 0


@wp.kernel
def integrate_featherstone_euler(
    joint_type: wp.array(dtype=int),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    joint_qdd: wp.array(dtype=float),
    dt: float,
    angular_damping: float,
    joint_qd_new: wp.array(dtype=float),
    joint_q_new: wp.array(dtype=float),
):
    # Semi-implicit Euler: qd' = (qd + dt qdd) (1 - angular_damping dt for rotations), q' = q moved by qd' for dt.
    j = wp.tid()
    jt = joint_type[j]
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    nd = joint_qd_start[j + 1] - ds
    for k in range(nd):
        damp = 1.0
        if angular_dof(jt, j, k, joint_axis_dim) != 0:
            damp = 1.0 - angular_damping * dt
        joint_qd_new[ds + k] = (joint_qd[ds + k] + joint_qdd[ds + k] * dt) * damp
    advance(jt, qs, ds, joint_q_start[j + 1] - qs, joint_q, joint_qd_new, dt, joint_q_new)


@wp.kernel
def integrate_featherstone_stage(
    joint_type: wp.array(dtype=int),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    stage_qd: wp.array(dtype=float),
    stage_qdd: wp.array(dtype=float),
    h: float,
    joint_q_new: wp.array(dtype=float),
    joint_qd_new: wp.array(dtype=float),
):
    # An RK4 stage's state: (q, qd) moved by h along a stage's rates (stage_qd, stage_qdd).
    j = wp.tid()
    jt = joint_type[j]
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    nd = joint_qd_start[j + 1] - ds
    for k in range(nd):
        joint_qd_new[ds + k] = joint_qd[ds + k] + stage_qdd[ds + k] * h
    advance(jt, qs, ds, joint_q_start[j + 1] - qs, joint_q, stage_qd, h, joint_q_new)


@wp.kernel
def integrate_featherstone_rk4(
    joint_type: wp.array(dtype=int),
    joint_q_start: wp.array(dtype=int),
    joint_qd_start: wp.array(dtype=int),
    joint_axis_dim: wp.array2d(dtype=int),
    joint_q: wp.array(dtype=float),
    joint_qd: wp.array(dtype=float),
    qd1: wp.array(dtype=float),
    qd2: wp.array(dtype=float),
    qd3: wp.array(dtype=float),
    qd4: wp.array(dtype=float),
    qdd1: wp.array(dtype=float),
    qdd2: wp.array(dtype=float),
    qdd3: wp.array(dtype=float),
    qdd4: wp.array(dtype=float),
    dt: float,
    angular_damping: float,
    rate: wp.array(dtype=float),
    joint_q_new: wp.array(dtype=float),
    joint_qd_new: wp.array(dtype=float),
):
    # The classical RK4 combination: qd' = qd + dt/6 (a1 + 2 a2 + 2 a3 + a4), q' = q moved by
    # dt along (v1 + 2 v2 + 2 v3 + v4) / 6 (`rate`, scratch), then the rotations' damping.
    j = wp.tid()
    jt = joint_type[j]
    qs = joint_q_start[j]
    ds = joint_qd_start[j]
    nd = joint_qd_start[j + 1] - ds
    for k in range(nd):
        d = ds + k
        rate[d] = (qd1[d] + 2.0 * qd2[d] + 2.0 * qd3[d] + qd4[d]) / 6.0
        damp = 1.0
        if angular_dof(jt, j, k, joint_axis_dim) != 0:
            damp = 1.0 - angular_damping * dt
        joint_qd_new[d] = (joint_qd[d] + (qdd1[d] + 2.0 * qdd2[d] + 2.0 * qdd3[d] + qdd4[d]) * (dt / 6.0)) * damp
    advance(jt, qs, ds, joint_q_start[j + 1] - qs, joint_q, rate, dt, joint_q_new)
