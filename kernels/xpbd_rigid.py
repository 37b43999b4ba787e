"""Rigid bodies of the XPBD integrator (Müller et al. 2020, "Detailed rigid body simulation with
extended position based dynamics"), in the shape of Warp's XPBDIntegrator: a prediction by the
semi-implicit step (rigid.py's integrate_bodies) with the external and force-mode joint wrenches,
then per iteration a joint pass and a contact pass, each a set of positional corrections summed per
body (Jacobi) and applied; the velocities follow from the corrections (v += dx / dt), and an
optional restitution pass corrects the normal velocities of the contacts.

Units. A correction is a positional impulse P (kg m) at a point x of a body: its centre of mass
moves by P / m and it turns by the rotation vector I_w^-1 ((x - com) x P), I_w = R I^-1 R^T the
world inverse inertia at the body's current orientation; an angular impulse L (kg m^2) turns it by
I_w^-1 L. A constraint C with gradient n for the point (unit for a linear, any for an angular one)
has the generalised inverse mass w = 1/m + (r x n) . I_w^-1 (r x n) (linear) or n . I_w^-1 n
(angular) per body, and its multiplier step (Macklin et al. 2016, with Rayleigh damping)
dlambda = -(C + gamma dC) / ((1 + gamma) (w_a + w_b) + alpha), alpha = compliance / dt^2,
gamma = compliance damping / dt, dC the constraint's change over the step at the current velocities.

Body-centric, without atomics (as rigid.py's eval_body_forces). One thread per body computes every
constraint that acts on it: its joints (as parent or child) and its contacts, both its own points
against other shapes and other bodies' points against its shapes. The impulse of a constraint is
computed by one function with the same arguments in both bodies' threads, so the two bodies get
equal and opposite impulses bit for bit. Every kernel writes each output element once, so the Tape
replays them exactly.

Joints (joints.py's frames and errors: X_wp, X_wc, x_err = x_c - x_p, r_err = q_p^-1 q_c).
  linear    the part of x_err off the joint's linear axes is held as one constraint along its
            direction; each linear axis (prismatic, D6) has its coordinate q = x_err . a_p with a
            hard limit, a target-position drive (compliance 1 / target_ke, damping target_kd) or a
            target-velocity drive ((qd - target) dt, compliance 1 / target_ke), as Warp's
  angular   fixed, prismatic, D6 without angular axes: the rotation vector of r_err held;
            revolute, D6 with one: the swing a_p x a_c held, the twist about a_p limited and
            driven; universal, compound, D6 with two or three: the Euler angles of euler_angles
            (joints.py), each free one limited and driven and the third of a universal held, each
            with its exact gradient (row k of the inverse of the Euler axes' matrix)
  ball holds x_err; free holds nothing. Force-mode axes act in the prediction (eval_body_actions).
The linear and angular corrections of a joint are scaled by joint_linear_relaxation and
joint_angular_relaxation (Warp's 0.7 and 0.4) and summed, each computed at the iteration's poses.

Contacts. The contact points of rigid.py (shape_point, points_into, the same filters of worlds and
joints) are found at the start of the step (state_in's poses) within `margin` of a shape or the
ground: each point x0 of radius r gives the point's surface point p_a = x - n r (moving with its
body) and the hit shape's surface point p_h = x0 - n (c0 + r), fixed in the hit body with the normal
n (Warp's contact points and normal, found by its collide() before the step). At the iteration's
poses the gap is d = n . (p_a - p_h): where d < 0 the normal correction pushes the two apart along n
(dlambda = -d / w, times rigid_contact_relaxation) and static friction cancels the tangential drift
of p_a against p_h, at most mu times the normal step (Warp's positional friction). A touch between
two body shapes that test each other's points (box on box) is found from both sides, so each of
those contacts counts one half (two_way). A body's summed contact impulses are divided by its number
of closed contacts (Warp's rigid_contact_con_weighting).
mu of a pair is the mean of the two shapes' (against the ground: the shape's and ground_mu), as the
semi-implicit solver combines them.

Restitution (optional). After the iterations, for each contact still closed, the normal velocity
of the contact point is set from -restitution times its value at the start of the step (state_in's
velocities plus gravity dt, Warp's), where that was approaching; restitution is the mean of the two
shapes' (ground_restitution for the ground).
"""
import weft as wp
import geometry as geo
import joints as jn
import rigid
import worlds


@wp.func
def world_inv_inertia(X: wp.transform, I_inv: wp.mat33) -> wp.mat33:
    R = wp.quat_to_matrix(wp.transform_get_rotation(X))
    return R * I_inv * wp.transpose(R)


@wp.func
def linear_weight(inv_m: float, Iw: wp.mat33, r: wp.vec3, n: wp.vec3) -> float:
    rn = wp.cross(r, n)
    return inv_m + wp.dot(rn, Iw * rn)


@wp.func
def multiplier_step(c: float, dc: float, w: float, compliance: float, damping: float, dt: float) -> float:
    # dlambda of the module's docstring; 0 where nothing can move.
    alpha = compliance / (dt * dt)
    gamma = compliance * damping / dt
    den = (1.0 + gamma) * w + alpha
    dl = float(0.0)
    if den > 0.0:
        dl = -(c + gamma * dc) / den
    return dl


@wp.func
def axis_constraint(a: int, q: float, qd: float, dt: float, joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float),
                    joint_target_ke: wp.array(dtype=float), joint_target_kd: wp.array(dtype=float),
                    joint_limit_lower: wp.array(dtype=float), joint_limit_upper: wp.array(dtype=float)):
    # The constraint of a free coordinate q (velocity qd) of axis slot a: (C, dC, compliance,
    # damping, active). A hard limit past the limits; between them the drive, as Warp's XPBD.
    lower = joint_limit_lower[a]
    upper = joint_limit_upper[a]
    mode = joint_mode[a]
    ke = joint_target_ke[a]
    c = float(0.0)
    dc = qd * dt
    compliance = float(0.0)
    damping = float(0.0)
    active = 0
    if q < lower:
        c = q - lower
        active = 1
    elif q > upper:
        c = q - upper
        active = 1
    elif ke > 0.0:
        if mode == jn.JOINT_MODE_TARGET_POSITION:
            c = q - wp.clamp(joint_act[a], lower, upper)
            compliance = 1.0 / ke
            damping = joint_target_kd[a]
            active = 1
        elif mode == jn.JOINT_MODE_TARGET_VELOCITY:
            c = (qd - joint_act[a]) * dt
            dc = 0.0
            compliance = 1.0 / ke
            damping = joint_target_kd[a]
            active = 1
    return c, dc, compliance, damping, active


@wp.func
def angular_step(g: wp.vec3, c: float, dc: float, compliance: float, damping: float, Iw_p: wp.mat33, Iw_c: wp.mat33,
                 dt: float) -> wp.vec3:
    # The angular impulse on the child of an angular constraint with gradient g (the parent gets
    # its negative).
    w = wp.dot(g, Iw_p * g) + wp.dot(g, Iw_c * g)
    L = wp.vec3(0.0)
    if w > 0.0:
        L = g * multiplier_step(c, dc, w, compliance, damping, dt)
    return L


@wp.func
def linear_step(n: wp.vec3, c: float, dc: float, compliance: float, damping: float, inv_m_p: float, Iw_p: wp.mat33,
                r_p: wp.vec3, inv_m_c: float, Iw_c: wp.mat33, r_c: wp.vec3, dt: float) -> wp.vec3:
    # The positional impulse on the child (at its joint origin) of a linear constraint along the
    # unit n (the parent gets its negative at its joint origin).
    w = linear_weight(inv_m_p, Iw_p, r_p, n) + linear_weight(inv_m_c, Iw_c, r_c, n)
    P = wp.vec3(0.0)
    if w > 0.0:
        P = n * multiplier_step(c, dc, w, compliance, damping, dt)
    return P


@wp.func
def held_rotation(q_p: wp.quat, r_err: wp.quat, Iw_p: wp.mat33, Iw_c: wp.mat33, dt: float) -> wp.vec3:
    # The whole relative rotation held (fixed, prismatic, D6 without angular axes).
    th = wp.quat_rotate(q_p, jn.rotation_vector(r_err))
    c = wp.length(th)
    L = wp.vec3(0.0)
    if c > 0.0:
        L = angular_step(th / c, c, 0.0, 0.0, 0.0, Iw_p, Iw_c, dt)
    return L


@wp.func
def hinge_correction(a: int, q_p: wp.quat, q_c: wp.quat, r_err: wp.quat, w_err: wp.vec3, Iw_p: wp.mat33, Iw_c: wp.mat33,
                     dt: float, joint_axis: wp.array(dtype=wp.vec3), joint_mode: wp.array(dtype=int),
                     joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                     joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                     joint_limit_upper: wp.array(dtype=float)) -> wp.vec3:
    # One angular axis: the swing held, the twist limited and driven.
    axis = joint_axis[a]
    a_p = wp.quat_rotate(q_p, axis)
    a_c = wp.quat_rotate(q_c, axis)
    swing = wp.cross(a_p, a_c)
    s = wp.length(swing)
    L = wp.vec3(0.0)
    if s > 0.0:
        L = angular_step(swing / s, wp.asin(wp.min(s, 1.0)), 0.0, 0.0, 0.0, Iw_p, Iw_c, dt)
    c, dc, compliance, damping, active = axis_constraint(a, jn.joint_twist(r_err, axis), wp.dot(w_err, a_p), dt, joint_mode,
                                                         joint_act, joint_target_ke, joint_target_kd, joint_limit_lower,
                                                         joint_limit_upper)
    if active != 0:
        L = L + angular_step(a_p, c, dc, compliance, damping, Iw_p, Iw_c, dt)
    return L


@wp.func
def euler_correction(n: int, a: int, q_p: wp.quat, r_err: wp.quat, w_err: wp.vec3, Iw_p: wp.mat33, Iw_c: wp.mat33, dt: float,
                     joint_axis: wp.array(dtype=wp.vec3), joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float),
                     joint_target_ke: wp.array(dtype=float), joint_target_kd: wp.array(dtype=float),
                     joint_limit_lower: wp.array(dtype=float), joint_limit_upper: wp.array(dtype=float)) -> wp.vec3:
    # n = 2 (universal) or 3 (compound) angular axes in slots a, a + 1 (, a + 2): each angle limited
    # and driven along its gradient; for n = 2 the third angle held. The joint frame's angular
    # velocity is A qdot (A: the Euler axes as columns), so angle k's gradient is row k of A^-1.
    a0 = joint_axis[a]
    a1 = joint_axis[a + 1]
    e = jn.euler_angles(r_err, a0, a1)
    G = wp.inverse(jn.euler_axes(a0, a1, e[0], e[1]))
    L = wp.vec3(0.0)
    for k in range(3):
        g = wp.quat_rotate(q_p, wp.vec3(G[k, 0], G[k, 1], G[k, 2]))
        qk = e[k]
        slot = a + k
        if k == 2 and n == 3:
            s = wp.dot(joint_axis[a + 2], wp.cross(a0, a1))  # a2 = s (a0 x a1): the angle s q2
            qk = s * qk
            g = g * s
        if k < n:
            c, dc, compliance, damping, active = axis_constraint(slot, qk, wp.dot(g, w_err), dt, joint_mode, joint_act,
                                                                 joint_target_ke, joint_target_kd, joint_limit_lower,
                                                                 joint_limit_upper)
            if active != 0:
                L = L + angular_step(g, c, dc, compliance, damping, Iw_p, Iw_c, dt)
        else:
            L = L + angular_step(g, qk, 0.0, 0.0, 0.0, Iw_p, Iw_c, dt)
    return L


@wp.func
def joint_correction(
    j: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
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
    linear_relaxation: float,
    angular_relaxation: float,
    dt: float,
):
    # Joint j's positional impulse P on its child at x_c (the parent gets -P at x_p) and angular
    # impulse L on the child (the parent -L), and the two joint origins.
    jt = joint_type[j]
    parent = joint_parent[j]
    child = joint_child[j]
    a = joint_axis_start[j]
    X_wp = joint_X_p[j]
    inv_m_p = float(0.0)
    Iw_p = wp.mat33(0.0)
    com_p = wp.transform_get_translation(X_wp)
    w_p = wp.vec3(0.0)
    v_p = wp.vec3(0.0)
    if parent >= 0:
        Xb = body_q[parent]
        X_wp = Xb * X_wp
        com_p = wp.transform_point(Xb, body_com[parent])
        inv_m_p = body_inv_mass[parent]
        Iw_p = world_inv_inertia(Xb, body_inv_inertia[parent])
        qd_p = body_qd[parent]
        w_p = wp.spatial_top(qd_p)
        v_p = wp.spatial_bottom(qd_p) + wp.cross(w_p, wp.transform_get_translation(X_wp) - com_p)
    Xc = body_q[child]
    X_wc = Xc * joint_X_c[j]
    com_c = wp.transform_point(Xc, body_com[child])
    inv_m_c = body_inv_mass[child]
    Iw_c = world_inv_inertia(Xc, body_inv_inertia[child])
    qd_c = body_qd[child]
    w_c = wp.spatial_top(qd_c)
    v_c = wp.spatial_bottom(qd_c) + wp.cross(w_c, wp.transform_get_translation(X_wc) - com_c)
    x_p = wp.transform_get_translation(X_wp)
    x_c = wp.transform_get_translation(X_wc)
    q_p = wp.transform_get_rotation(X_wp)
    q_c = wp.transform_get_rotation(X_wc)
    r_err = wp.quat_inverse(q_p) * q_c
    x_err = x_c - x_p
    v_err = v_c - v_p
    w_err = w_c - w_p
    r_p = x_p - com_p
    r_c = x_c - com_c
    P = wp.vec3(0.0)
    L = wp.vec3(0.0)
    if jt != jn.JOINT_FREE:
        # linear: the free axes' constraints, then the rest of x_err held
        nl = 0
        if jt == jn.JOINT_PRISMATIC:
            nl = 1
        elif jt == jn.JOINT_D6:
            nl = joint_axis_dim[j, 0]
        x_free = wp.vec3(0.0)
        for k in range(nl):
            ax = wp.quat_rotate(q_p, joint_axis[a + k])
            qk = wp.dot(x_err, ax)
            x_free = x_free + ax * qk
            c, dc, compliance, damping, active = axis_constraint(a + k, qk, wp.dot(v_err, ax), dt, joint_mode, joint_act,
                                                                 joint_target_ke, joint_target_kd, joint_limit_lower,
                                                                 joint_limit_upper)
            if active != 0:
                P = P + linear_step(ax, c, dc, compliance, damping, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c, r_c, dt)
        held = x_err - x_free
        c_held = wp.length(held)
        if c_held > 0.0:
            P = P + linear_step(held / c_held, c_held, 0.0, 0.0, 0.0, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c, r_c, dt)
        # angular
        na = 0
        if jt == jn.JOINT_REVOLUTE:
            na = 1
        elif jt == jn.JOINT_UNIVERSAL:
            na = 2
        elif jt == jn.JOINT_COMPOUND:
            na = 3
        elif jt == jn.JOINT_D6:
            na = joint_axis_dim[j, 1]
        if jt == jn.JOINT_FIXED or jt == jn.JOINT_PRISMATIC or (jt == jn.JOINT_D6 and na == 0):
            L = held_rotation(q_p, r_err, Iw_p, Iw_c, dt)
        elif na == 1:
            L = hinge_correction(a + nl, q_p, q_c, r_err, w_err, Iw_p, Iw_c, dt, joint_axis, joint_mode, joint_act,
                                 joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper)
        elif na >= 2:
            L = euler_correction(na, a + nl, q_p, r_err, w_err, Iw_p, Iw_c, dt, joint_axis, joint_mode, joint_act,
                                 joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper)
    return P * linear_relaxation, L * angular_relaxation, x_p, x_c


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
        for i in range(nl + joint_axis_dim[j, 1]):
            if joint_mode[a + i] == jn.JOINT_MODE_FORCE:
                act = wp.quat_rotate(q_p, joint_axis[a + i]) * (joint_act[a + i] * s)
                if i < nl:
                    f = f + act
                else:
                    t = t + act
    body_f[b] = wp.spatial_vector(t[0], t[1], t[2], f[0], f[1], f[2])


@wp.kernel
def solve_body_joints(
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    body_joint_start: wp.array(dtype=int),
    body_joint_list: wp.array(dtype=int),
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
    linear_relaxation: float,
    angular_relaxation: float,
    dt: float,
    deltas: wp.array(dtype=wp.spatial_vector),
):
    # Body b's summed joint impulses: (angular about its centre of mass, positional), world.
    b = wp.tid()
    com = wp.transform_point(body_q[b], body_com[b])
    P = wp.vec3(0.0)
    L = wp.vec3(0.0)
    for k in range(body_joint_start[b], body_joint_start[b + 1]):
        j = body_joint_list[k]
        Pj, Lj, x_p, x_c = joint_correction(j, body_q, body_qd, body_com, body_inv_mass, body_inv_inertia, joint_type,
                                            joint_parent, joint_child, joint_X_p, joint_X_c, joint_axis_start, joint_axis_dim,
                                            joint_axis, joint_mode, joint_act, joint_target_ke, joint_target_kd,
                                            joint_limit_lower, joint_limit_upper, linear_relaxation, angular_relaxation, dt)
        if joint_child[j] == b:
            P = P + Pj
            L = L + Lj + wp.cross(x_c - com, Pj)
        if joint_parent[j] == b:
            P = P - Pj
            L = L - Lj - wp.cross(x_p - com, Pj)
    deltas[b] = wp.spatial_vector(L[0], L[1], L[2], P[0], P[1], P[2])


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
def pair_impulse(r_a: wp.vec3, r_h: wp.vec3, delta: wp.vec3, delta_pred: wp.vec3, n: wp.vec3, d: float, d_pred: float,
                 inv_m_a: float, Iw_a: wp.mat33, inv_m_h: float, Iw_h: wp.mat33, mu: float, relaxation: float) -> wp.vec3:
    # The impulse on the point's body of a closed contact (gap d < 0, normal n towards it) whose
    # surface points are delta apart (delta_pred, gap d_pred after the prediction): the normal step,
    # then static friction against the tangential part of delta, within the step's Coulomb budget:
    # mu times the normal impulse of the step so far ((d - d_pred) / w, what the iterations have
    # opened) and of this iteration, less the friction of the step so far (the tangential drift
    # the iterations have cancelled). Warp caps each iteration's friction by mu times that
    # iteration's normal step alone, which lets a box creep down a slope it should stick on once
    # the first iteration has closed the gap.
    w = linear_weight(inv_m_a, Iw_a, r_a, n) + linear_weight(inv_m_h, Iw_h, r_h, n)
    P = wp.vec3(0.0)
    if w > 0.0:
        ln = -d / w * relaxation
        P = n * ln
        tang = delta - n * wp.dot(n, delta)
        lt = wp.length(tang)
        if mu > 0.0 and lt > 0.0:
            t = tang / lt
            wt = linear_weight(inv_m_a, Iw_a, r_a, t) + linear_weight(inv_m_h, Iw_h, r_h, t)
            if wt > 0.0:
                P = P - t * wp.min(lt / wt, mu * ln)
    return P


@wp.func
def point_contact(
    pl: wp.vec4,
    sa: int,
    ba: int,
    sb: int,
    bh: int,
    body_q0: wp.array(dtype=wp.transform),
    body_q_pred: wp.array(dtype=wp.transform),
    body_q: wp.array(dtype=wp.transform),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    margin: float,
    relaxation: float,
):
    # The contact of point pl (shape frame, radius w) of shape sa on body ba against shape sb
    # (on body bh, or static for -1), as the module's docstring describes: (active, P, p_a, p_h),
    # P the positional impulse on ba at p_a (bh gets -P at p_h). Both bodies' threads call this
    # with the same arguments.
    pv = wp.vec3(pl[0], pl[1], pl[2])
    x0 = wp.transform_point(body_q0[ba] * shape_transform[sa], pv)
    r = pl[3] + shape_geo_thickness[sa]
    Xh0 = body_frame(bh, body_q0)
    n0, c0 = geo.shape_contact_at(Xh0 * shape_transform[sb], sb, x0, r, margin, shape_geo_type, shape_geo_scale,
                                  shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
    active = 0
    P = wp.vec3(0.0)
    p_a = x0
    p_h = x0
    if c0 < margin:
        # the hit point and normal at the start, carried with the hit body to its current pose
        lh = wp.transform_point(wp.transform_inverse(Xh0), x0 - n0 * (c0 + r))
        ln = wp.transform_vector(wp.transform_inverse(Xh0), n0)
        Xh = body_frame(bh, body_q)
        n = wp.transform_vector(Xh, ln)
        p_h = wp.transform_point(Xh, lh)
        p_a = wp.transform_point(body_q[ba] * shape_transform[sa], pv) - n * r
        d = wp.dot(n, p_a - p_h)
        if d < 0.0:
            active = 1
            Xh_pred = body_frame(bh, body_q_pred)
            n_pred = wp.transform_vector(Xh_pred, ln)
            delta_pred = wp.transform_point(body_q_pred[ba] * shape_transform[sa], pv) - n_pred * r - wp.transform_point(
                Xh_pred, lh)
            com_a, inv_m_a, Iw_a = body_mass_at(ba, body_q[ba], body_com, body_inv_mass, body_inv_inertia)
            com_h, inv_m_h, Iw_h = body_mass_at(bh, Xh, body_com, body_inv_mass, body_inv_inertia)
            mu = 0.5 * (shape_materials[sa, 4] + shape_materials[sb, 4])
            P = pair_impulse(p_a - com_a, p_h - com_h, p_a - p_h, delta_pred, n, d, wp.dot(n_pred, delta_pred), inv_m_a,
                             Iw_a, inv_m_h, Iw_h, mu, relaxation)
    return active, P, p_a, p_h


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
def two_way(type_a: int, type_b: int, a: int, b: int) -> float:
    # The share of a contact between two body shapes: 1/2 where each shape's points are tested
    # against the other (box on box: one touch is found from both sides), 1 where only one side's are.
    share = 1.0
    if rigid.points_into(type_a, type_b, a, b) and rigid.points_into(type_b, type_a, b, a):
        share = 0.5
    return share


@wp.func
def may_touch_within(Xa: wp.transform, sa: int, Xb: wp.transform, sb: int, shape_geo_type: wp.array(dtype=int),
                     shape_geo_scale: wp.array(dtype=wp.vec3), shape_geo_thickness: wp.array(dtype=float),
                     margin: float) -> bool:
    # The broad phase: false only where the bounding spheres are more than margin apart (no
    # contact point of one can then be within margin of the other).
    ra = geo.shape_bound(shape_geo_type[sa], shape_geo_scale[sa], shape_geo_thickness[sa])
    rb = geo.shape_bound(shape_geo_type[sb], shape_geo_scale[sb], shape_geo_thickness[sb])
    if ra < 0.0 or rb < 0.0:
        return True
    return wp.length(wp.transform_get_translation(Xa) - wp.transform_get_translation(Xb)) <= ra + rb + margin


@wp.kernel
def solve_body_contacts(
    body_q0: wp.array(dtype=wp.transform),
    body_q_pred: wp.array(dtype=wp.transform),
    body_q: wp.array(dtype=wp.transform),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
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
    ground_mu: float,
    body_joint_start: wp.array(dtype=int),
    body_joint_list: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_collision_filter: wp.array(dtype=int),
    shape_world: wp.array(dtype=int),
    body_world: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    margin: float,
    relaxation: float,
    deltas: wp.array(dtype=wp.spatial_vector),
    contact_count: wp.array(dtype=float),
):
    # Body b's summed contact impulses (angular about its centre of mass, positional; world) and
    # its number of closed contacts.
    b = wp.tid()
    wb = body_world[b]
    Xb = body_q[b]
    com, inv_m, Iw = body_mass_at(b, Xb, body_com, body_inv_mass, body_inv_inertia)
    P = wp.vec3(0.0)
    L = wp.vec3(0.0)
    count = float(0.0)
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        sa = body_shape_list[si]
        ta = shape_geo_type[sa]
        Xa0 = body_q0[b] * shape_transform[sa]
        for k in range(rigid.shape_point_count(ta)):
            pl = rigid.shape_point(ta, shape_geo_scale[sa], k)
            if ground != 0:
                d, c0, p_a, p_h, n = ground_point(pl, sa, b, body_q0, body_q, shape_transform, shape_geo_thickness,
                                                  ground_plane)
                if c0 < margin and d < 0.0:
                    d_pred, c0p, p_pred, p_hp, n_p = ground_point(pl, sa, b, body_q0, body_q_pred, shape_transform,
                                                                  shape_geo_thickness, ground_plane)
                    Pc = pair_impulse(p_a - com, wp.vec3(0.0), p_a - p_h, p_pred - p_h, n, d, d_pred, inv_m, Iw, 0.0,
                                      wp.mat33(0.0), 0.5 * (shape_materials[sa, 4] + ground_mu), relaxation)
                    P = P + Pc
                    L = L + wp.cross(p_a - com, Pc)
                    count = count + 1.0
            for kb in range(worlds.candidate_count(wb, shape_count, world_shape_start, num_worlds)):
                sb = worlds.candidate(kb, wb, world_shape_start, world_shape_list, num_worlds)
                ob = shape_body[sb]
                if ob != b and worlds.same_world(shape_world[sa], shape_world[sb]) and (ob < 0 or (rigid.points_into(
                        ta, shape_geo_type[sb], sa, sb) and not rigid.joined(b, ob, body_joint_start, body_joint_list,
                                                                              joint_parent, joint_child,
                                                                              joint_collision_filter))):
                    if may_touch_within(Xa0, sa, body_frame(ob, body_q0) * shape_transform[sb], sb, shape_geo_type,
                                        shape_geo_scale, shape_geo_thickness, margin):
                        active, Pc, p_a, p_h = point_contact(pl, sa, b, sb, ob, body_q0, body_q_pred, body_q, body_com,
                                                             body_inv_mass, body_inv_inertia, shape_transform, shape_geo_type,
                                                             shape_geo_scale, shape_geo_thickness, shape_materials,
                                                             shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                                             shape_sdf_cell, margin, relaxation)
                        if active != 0:
                            share = 1.0
                            if ob >= 0:
                                share = two_way(ta, shape_geo_type[sb], sa, sb)
                            P = P + Pc * share
                            L = L + wp.cross(p_a - com, Pc) * share
                            count = count + share
    # The reactions: other bodies' points against this body's shapes.
    for kp in range(worlds.candidate_count(wb, shape_count, world_shape_start, num_worlds)):
        sp = worlds.candidate(kp, wb, world_shape_start, world_shape_list, num_worlds)
        ob = shape_body[sp]
        if ob >= 0 and ob != b and not rigid.joined(b, ob, body_joint_start, body_joint_list, joint_parent, joint_child,
                                                     joint_collision_filter):
            tp = shape_geo_type[sp]
            Xp0 = body_q0[ob] * shape_transform[sp]
            for k in range(rigid.shape_point_count(tp)):
                pl = rigid.shape_point(tp, shape_geo_scale[sp], k)
                for si in range(body_shape_start[b], body_shape_start[b + 1]):
                    sh = body_shape_list[si]
                    if rigid.points_into(tp, shape_geo_type[sh], sp, sh) and worlds.same_world(
                            shape_world[sp], shape_world[sh]) and may_touch_within(
                                Xp0, sp, body_q0[b] * shape_transform[sh], sh, shape_geo_type, shape_geo_scale,
                                shape_geo_thickness, margin):
                        active, Pc, p_a, p_h = point_contact(pl, sp, ob, sh, b, body_q0, body_q_pred, body_q, body_com,
                                                             body_inv_mass, body_inv_inertia, shape_transform, shape_geo_type,
                                                             shape_geo_scale, shape_geo_thickness, shape_materials,
                                                             shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                                             shape_sdf_cell, margin, relaxation)
                        if active != 0:
                            share = two_way(tp, shape_geo_type[sh], sp, sh)
                            P = P - Pc * share
                            L = L - wp.cross(p_h - com, Pc) * share
                            count = count + share
    deltas[b] = wp.spatial_vector(L[0], L[1], L[2], P[0], P[1], P[2])
    contact_count[b] = count


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


@wp.func
def approach_speed(ob: int, X0: wp.transform, qd0: wp.array(dtype=wp.spatial_vector), body_com: wp.array(dtype=wp.vec3),
                   gravity: wp.vec3, body_inv_mass: wp.array(dtype=float), dt: float, x: wp.vec3) -> wp.vec3:
    # A body's velocity at x at the start of the step with gravity's dt added (Warp's), zero for
    # the world.
    v = wp.vec3(0.0)
    if ob >= 0:
        v = rigid.point_velocity(qd0[ob], wp.transform_point(X0, body_com[ob]), x)
        if body_inv_mass[ob] > 0.0:
            v = v + gravity * dt
    return v


@wp.func
def restitution_impulse(r_a: wp.vec3, r_h: wp.vec3, n: wp.vec3, v_old: float, v_new: float, inv_m_a: float, Iw_a: wp.mat33,
                        inv_m_h: float, Iw_h: wp.mat33, e: float) -> wp.vec3:
    # The velocity impulse on the point's body that turns the normal velocity v_new into
    # -e v_old, for a contact that was approaching (v_old < 0).
    w = linear_weight(inv_m_a, Iw_a, r_a, n) + linear_weight(inv_m_h, Iw_h, r_h, n)
    J = wp.vec3(0.0)
    if w > 0.0 and v_old < 0.0:
        J = n * ((-e * v_old - v_new) / w)
    return J


@wp.func
def point_restitution(
    pl: wp.vec4,
    sa: int,
    ba: int,
    sb: int,
    bh: int,
    body_q0: wp.array(dtype=wp.transform),
    body_qd0: wp.array(dtype=wp.spatial_vector),
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    gravity: wp.vec3,
    margin: float,
    dt: float,
):
    # The restitution of the contact of point_contact, where it is closed at the final poses:
    # (active, J, p_a, p_h) with J the velocity impulse on ba at p_a (bh gets -J at p_h).
    Xa0 = body_q0[ba] * shape_transform[sa]
    x0 = wp.transform_point(Xa0, wp.vec3(pl[0], pl[1], pl[2]))
    r = pl[3] + shape_geo_thickness[sa]
    Xh0 = body_frame(bh, body_q0)
    n0, c0 = geo.shape_contact_at(Xh0 * shape_transform[sb], sb, x0, r, margin, shape_geo_type, shape_geo_scale,
                                  shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
    active = 0
    J = wp.vec3(0.0)
    p_a = x0
    p_h = x0
    if c0 < margin:
        Xh = body_frame(bh, body_q)
        lh = wp.transform_point(wp.transform_inverse(Xh0), x0 - n0 * (c0 + r))
        n = wp.transform_vector(Xh, wp.transform_vector(wp.transform_inverse(Xh0), n0))
        p_h = wp.transform_point(Xh, lh)
        p_a = wp.transform_point(body_q[ba] * shape_transform[sa], wp.vec3(pl[0], pl[1], pl[2])) - n * r
        if wp.dot(n, p_a - p_h) < 0.0:
            active = 1
            com_a, inv_m_a, Iw_a = body_mass_at(ba, body_q[ba], body_com, body_inv_mass, body_inv_inertia)
            com_h, inv_m_h, Iw_h = body_mass_at(bh, Xh, body_com, body_inv_mass, body_inv_inertia)
            v_old = wp.dot(n, approach_speed(ba, body_q0[ba], body_qd0, body_com, gravity, body_inv_mass, dt, p_a) -
                           approach_speed(bh, Xh0, body_qd0, body_com, gravity, body_inv_mass, dt, p_h))
            v_h = wp.vec3(0.0)
            if bh >= 0:
                v_h = rigid.point_velocity(body_qd[bh], com_h, p_h)
            v_new = wp.dot(n, rigid.point_velocity(body_qd[ba], com_a, p_a) - v_h)
            e = 0.5 * (shape_materials[sa, 5] + shape_materials[sb, 5])
            J = restitution_impulse(p_a - com_a, p_h - com_h, n, v_old, v_new, inv_m_a, Iw_a, inv_m_h, Iw_h, e)
    return active, J, p_a, p_h


@wp.kernel
def solve_body_restitution(
    body_q0: wp.array(dtype=wp.transform),
    body_qd0: wp.array(dtype=wp.spatial_vector),
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
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
    ground_restitution: float,
    body_joint_start: wp.array(dtype=int),
    body_joint_list: wp.array(dtype=int),
    joint_parent: wp.array(dtype=int),
    joint_child: wp.array(dtype=int),
    joint_collision_filter: wp.array(dtype=int),
    shape_world: wp.array(dtype=int),
    body_world: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    gravity: wp.vec3,
    margin: float,
    dt: float,
    body_qd_new: wp.array(dtype=wp.spatial_vector),
):
    # Body b's velocities after the restitution impulses of its closed contacts, each divided by
    # the body's number of them.
    b = wp.tid()
    wb = body_world[b]
    Xb = body_q[b]
    com, inv_m, Iw = body_mass_at(b, Xb, body_com, body_inv_mass, body_inv_inertia)
    J = wp.vec3(0.0)
    H = wp.vec3(0.0)
    count = float(0.0)
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        sa = body_shape_list[si]
        ta = shape_geo_type[sa]
        Xa0 = body_q0[b] * shape_transform[sa]
        for k in range(rigid.shape_point_count(ta)):
            pl = rigid.shape_point(ta, shape_geo_scale[sa], k)
            if ground != 0:
                d, c0, p_a, p_h, n = ground_point(pl, sa, b, body_q0, body_q, shape_transform, shape_geo_thickness,
                                                  ground_plane)
                if c0 < margin and d < 0.0:
                    v_old = wp.dot(n, approach_speed(b, body_q0[b], body_qd0, body_com, gravity, body_inv_mass, dt, p_a))
                    v_new = wp.dot(n, rigid.point_velocity(body_qd[b], com, p_a))
                    Jc = restitution_impulse(p_a - com, wp.vec3(0.0), n, v_old, v_new, inv_m, Iw, 0.0, wp.mat33(0.0),
                                             0.5 * (shape_materials[sa, 5] + ground_restitution))
                    J = J + Jc
                    H = H + wp.cross(p_a - com, Jc)
                    count = count + 1.0
            for kb in range(worlds.candidate_count(wb, shape_count, world_shape_start, num_worlds)):
                sb = worlds.candidate(kb, wb, world_shape_start, world_shape_list, num_worlds)
                ob = shape_body[sb]
                if ob != b and worlds.same_world(shape_world[sa], shape_world[sb]) and (ob < 0 or (rigid.points_into(
                        ta, shape_geo_type[sb], sa, sb) and not rigid.joined(b, ob, body_joint_start, body_joint_list,
                                                                              joint_parent, joint_child,
                                                                              joint_collision_filter))):
                    if may_touch_within(Xa0, sa, body_frame(ob, body_q0) * shape_transform[sb], sb, shape_geo_type,
                                        shape_geo_scale, shape_geo_thickness, margin):
                        active, Jc, p_a, p_h = point_restitution(pl, sa, b, sb, ob, body_q0, body_qd0, body_q, body_qd,
                                                                 body_com, body_inv_mass, body_inv_inertia, shape_transform,
                                                                 shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                                                 shape_materials, shape_sdf_values, shape_sdf_dims,
                                                                 shape_sdf_origin, shape_sdf_cell, gravity, margin, dt)
                        if active != 0:
                            J = J + Jc
                            H = H + wp.cross(p_a - com, Jc)
                            count = count + 1.0
    for kp in range(worlds.candidate_count(wb, shape_count, world_shape_start, num_worlds)):
        sp = worlds.candidate(kp, wb, world_shape_start, world_shape_list, num_worlds)
        ob = shape_body[sp]
        if ob >= 0 and ob != b and not rigid.joined(b, ob, body_joint_start, body_joint_list, joint_parent, joint_child,
                                                     joint_collision_filter):
            tp = shape_geo_type[sp]
            Xp0 = body_q0[ob] * shape_transform[sp]
            for k in range(rigid.shape_point_count(tp)):
                pl = rigid.shape_point(tp, shape_geo_scale[sp], k)
                for si in range(body_shape_start[b], body_shape_start[b + 1]):
                    sh = body_shape_list[si]
                    if rigid.points_into(tp, shape_geo_type[sh], sp, sh) and worlds.same_world(
                            shape_world[sp], shape_world[sh]) and may_touch_within(
                                Xp0, sp, body_q0[b] * shape_transform[sh], sh, shape_geo_type, shape_geo_scale,
                                shape_geo_thickness, margin):
                        active, Jc, p_a, p_h = point_restitution(pl, sp, ob, sh, b, body_q0, body_qd0, body_q, body_qd,
                                                                 body_com, body_inv_mass, body_inv_inertia, shape_transform,
                                                                 shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                                                 shape_materials, shape_sdf_values, shape_sdf_dims,
                                                                 shape_sdf_origin, shape_sdf_cell, gravity, margin, dt)
                        if active != 0:
                            J = J - Jc
                            H = H - wp.cross(p_h - com, Jc)
                            count = count + 1.0
    scale = 1.0 / wp.max(count, 1.0)
    qd = body_qd[b]
    w1 = wp.spatial_top(qd) + Iw * H * scale
    v1 = wp.spatial_bottom(qd) + J * (inv_m * scale)
    body_qd_new[b] = wp.spatial_vector(w1[0], w1[1], w1[2], v1[0], v1[1], v1[2])
