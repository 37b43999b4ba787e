"""Rigid bodies of the XPBD integrator: its joint pass (this file) and the method of all its passes
(Müller et al. 2020, "Detailed rigid body simulation with extended position based dynamics"), in
the shape of Warp's XPBDIntegrator: a prediction by the semi-implicit step (rigid_common.py's
integrate_bodies) with the external and force-mode joint wrenches, then per iteration a joint pass
and a contact pass, each a set of positional corrections summed per body (Jacobi) and applied; the
velocities follow from the corrections (v += dx / dt), and an optional restitution pass corrects
the normal velocities of the contacts.

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
  ball holds x_err; free holds nothing; distance (Warp's add_joint_distance) keeps |x_err| within
  its axis slot's limits (a negative bound: none), along x_err. Force-mode axes act in the
  prediction (eval_body_actions).
The held parts and the limits have the joint's compliance (joint_linear_compliance for the linear
ones, joint_angular_compliance for the angular ones; 0, rigid, by default), as Warp's XPBD joints;
a drive has its own, 1 / target_ke.
The linear and angular corrections of a joint are scaled by joint_linear_relaxation and
joint_angular_relaxation (Warp's 0.7 and 0.4) and summed, each computed at the iteration's poses.

Contacts (xpbd_contacts.py). The contact points of rigid_common.py (shape_point, points_into, the
same filters of worlds, joints and shapes_collide) are found at the start of the step (state_in's
poses) within `margin` of a shape or the ground: each point x0 of radius r gives the point's
surface point p_a = x - n r (moving with its body) and the hit shape's surface point p_h = x0 - n
(c0 + r), fixed in the hit body with the normal n (Warp's contact points and normal, found by its
collide() before the step). At the iteration's poses the gap is d = n . (p_a - p_h): where d < 0
the normal correction pushes the two apart along n (dlambda = -d / w, times
rigid_contact_relaxation) and static friction cancels the tangential drift of p_a against p_h, at
most mu times the normal step (Warp's positional friction). A touch between two body shapes that
test each other's points (box on box) is found from both sides, so each of those contacts counts
one half (xpbd_common.py's two_way). A body's summed contact impulses are divided by its number of
closed contacts (Warp's rigid_contact_con_weighting). mu of a pair is the mean of the two shapes'
(against the ground: the shape's and ground_mu), as the semi-implicit solver combines them.

Restitution (optional; xpbd_restitution.py). After the iterations, for each contact still closed,
the normal velocity of the contact point is set from -restitution times its value at the start of
the step (state_in's velocities plus gravity dt, Warp's), where that was approaching; restitution
is the mean of the two shapes' (ground_restitution for the ground)."""
import weft as wp
import joints as jn
import xpbd_common as xc


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
def axis_constraint(a: int, q: float, qd: float, dt: float, hold: float, joint_mode: wp.array(dtype=int),
                    joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                    joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                    joint_limit_upper: wp.array(dtype=float)):
    # The constraint of a free coordinate q (velocity qd) of axis slot a: (C, dC, compliance,
    # damping, active). Past the limits a limit of compliance `hold` (the joint's linear or angular
    # compliance); between them the drive, as Warp's XPBD.
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
        compliance = hold
        active = 1
    elif q > upper:
        c = q - upper
        compliance = hold
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
    w = xc.linear_weight(inv_m_p, Iw_p, r_p, n) + xc.linear_weight(inv_m_c, Iw_c, r_c, n)
    P = wp.vec3(0.0)
    if w > 0.0:
        P = n * multiplier_step(c, dc, w, compliance, damping, dt)
    return P


@wp.func
def held_rotation(q_p: wp.quat, r_err: wp.quat, Iw_p: wp.mat33, Iw_c: wp.mat33, dt: float, hold: float) -> wp.vec3:
    # The whole relative rotation held, with compliance `hold` (fixed, prismatic, D6 without angular axes).
    th = wp.quat_rotate(q_p, jn.rotation_vector(r_err))
    c = wp.length(th)
    L = wp.vec3(0.0)
    if c > 0.0:
        L = angular_step(th / c, c, 0.0, hold, 0.0, Iw_p, Iw_c, dt)
    return L


@wp.func
def hinge_correction(a: int, q_p: wp.quat, q_c: wp.quat, r_err: wp.quat, w_err: wp.vec3, Iw_p: wp.mat33, Iw_c: wp.mat33,
                     dt: float, hold: float, joint_axis: wp.array(dtype=wp.vec3), joint_mode: wp.array(dtype=int),
                     joint_act: wp.array(dtype=float), joint_target_ke: wp.array(dtype=float),
                     joint_target_kd: wp.array(dtype=float), joint_limit_lower: wp.array(dtype=float),
                     joint_limit_upper: wp.array(dtype=float)) -> wp.vec3:
    # One angular axis: the swing held, the twist limited and driven (`hold`: the joint's angular
    # compliance, of the swing and the limits).
    axis = joint_axis[a]
    a_p = wp.quat_rotate(q_p, axis)
    a_c = wp.quat_rotate(q_c, axis)
    swing = wp.cross(a_p, a_c)
    s = wp.length(swing)
    L = wp.vec3(0.0)
    if s > 0.0:
        L = angular_step(swing / s, wp.asin(wp.min(s, 1.0)), 0.0, hold, 0.0, Iw_p, Iw_c, dt)
    c, dc, compliance, damping, active = axis_constraint(a, jn.joint_twist(r_err, axis), wp.dot(w_err, a_p), dt, hold,
                                                         joint_mode, joint_act, joint_target_ke, joint_target_kd,
                                                         joint_limit_lower, joint_limit_upper)
    if active != 0:
        L = L + angular_step(a_p, c, dc, compliance, damping, Iw_p, Iw_c, dt)
    return L


@wp.func
def euler_correction(n: int, a: int, q_p: wp.quat, r_err: wp.quat, w_err: wp.vec3, Iw_p: wp.mat33, Iw_c: wp.mat33, dt: float,
                     hold: float, joint_axis: wp.array(dtype=wp.vec3), joint_mode: wp.array(dtype=int), joint_act: wp.array(dtype=float),
                     joint_target_ke: wp.array(dtype=float), joint_target_kd: wp.array(dtype=float),
                     joint_limit_lower: wp.array(dtype=float), joint_limit_upper: wp.array(dtype=float)) -> wp.vec3:
    # n = 2 (universal) or 3 (compound) angular axes in slots a, a + 1 (, a + 2): each angle limited
    # and driven along its gradient; for n = 2 the third angle held. The joint frame's angular
    # velocity is A qdot (A: the Euler axes as columns), so angle k's gradient is row k of A^-1.
    # `hold`: the joint's angular compliance, of the limits and the held angle.
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
            c, dc, compliance, damping, active = axis_constraint(slot, qk, wp.dot(g, w_err), dt, hold, joint_mode,
                                                                 joint_act, joint_target_ke, joint_target_kd,
                                                                 joint_limit_lower, joint_limit_upper)
            if active != 0:
                L = L + angular_step(g, c, dc, compliance, damping, Iw_p, Iw_c, dt)
        else:
            L = L + angular_step(g, qk, 0.0, hold, 0.0, Iw_p, Iw_c, dt)
    return L


@wp.func
def distance_correction(a: int, x_err: wp.vec3, v_err: wp.vec3, fallback: wp.vec3, hold: float, dt: float, inv_m_p: float,
                        Iw_p: wp.mat33, r_p: wp.vec3, inv_m_c: float, Iw_c: wp.mat33, r_c: wp.vec3,
                        joint_target_ke: wp.array(dtype=float), joint_target_kd: wp.array(dtype=float),
                        joint_limit_lower: wp.array(dtype=float), joint_limit_upper: wp.array(dtype=float)) -> wp.vec3:
    # A distance joint (axis slot a): the origins' distance d = |x_err| pulled back within
    # [lower, upper] (a negative bound: none) along x_err / d (`fallback`, the unit from the parent's
    # centre of mass to the child's, where the origins coincide). The limit has the joint's linear
    # compliance `hold`, or 1 / target_ke and damping target_kd where target_ke > 0 (Warp's rule).
    d = wp.length(x_err)
    lower = joint_limit_lower[a]
    upper = joint_limit_upper[a]
    c = float(0.0)
    if lower >= 0.0 and d < lower:
        c = d - lower
    elif upper >= 0.0 and d > upper:
        c = d - upper
    P = wp.vec3(0.0)
    if c != 0.0:
        n = fallback
        if d > 1.0e-9:
            n = x_err / d
        compliance = hold
        damping = float(0.0)
        ke = joint_target_ke[a]
        if ke > 0.0:
            compliance = 1.0 / ke
            damping = joint_target_kd[a]
        P = linear_step(n, c, wp.dot(v_err, n) * dt, compliance, damping, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c, r_c, dt)
    return P


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
    joint_linear_compliance: wp.array(dtype=float),
    joint_angular_compliance: wp.array(dtype=float),
    linear_relaxation: float,
    angular_relaxation: float,
    dt: float,
):
    # Joint j's positional impulse P on its child at x_c (the parent gets -P at x_p) and angular
    # impulse L on the child (the parent -L), and the two joint origins.
    jt = joint_type[j]
    hold_lin = joint_linear_compliance[j]
    hold_ang = joint_angular_compliance[j]
    parent = joint_parent[j]
    child = joint_child[j]
    a = joint_axis_start[j]
    X_wp, X_wc, com_p, com_c, v_p, w_p, v_c, w_c = jn.joint_frames(j, body_q, body_qd, body_com, joint_parent, joint_child,
                                                                    joint_X_p, joint_X_c)
    inv_m_p = float(0.0)
    Iw_p = wp.mat33(0.0)
    if parent >= 0:
        inv_m_p = body_inv_mass[parent]
        Iw_p = xc.world_inv_inertia(body_q[parent], body_inv_inertia[parent])
    inv_m_c = body_inv_mass[child]
    Iw_c = xc.world_inv_inertia(body_q[child], body_inv_inertia[child])
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
    if jt == jn.JOINT_DISTANCE:
        P = distance_correction(a, x_err, v_err, wp.normalize(com_c - com_p), hold_lin, dt, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c,
                                r_c, joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper)
    elif jt != jn.JOINT_FREE:
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
            c, dc, compliance, damping, active = axis_constraint(a + k, qk, wp.dot(v_err, ax), dt, hold_lin, joint_mode,
                                                                 joint_act, joint_target_ke, joint_target_kd,
                                                                 joint_limit_lower, joint_limit_upper)
            if active != 0:
                P = P + linear_step(ax, c, dc, compliance, damping, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c, r_c, dt)
        held = x_err - x_free
        c_held = wp.length(held)
        if c_held > 0.0:
            P = P + linear_step(held / c_held, c_held, 0.0, hold_lin, 0.0, inv_m_p, Iw_p, r_p, inv_m_c, Iw_c, r_c, dt)
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
            L = held_rotation(q_p, r_err, Iw_p, Iw_c, dt, hold_ang)
        elif na == 1:
            L = hinge_correction(a + nl, q_p, q_c, r_err, w_err, Iw_p, Iw_c, dt, hold_ang, joint_axis, joint_mode, joint_act,
                                 joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper)
        elif na >= 2:
            L = euler_correction(na, a + nl, q_p, r_err, w_err, Iw_p, Iw_c, dt, hold_ang, joint_axis, joint_mode, joint_act,
                                 joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper)
    return P * linear_relaxation, L * angular_relaxation, x_p, x_c


@wp.kernel
def solve_joints(
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
    joint_linear_compliance: wp.array(dtype=float),
    joint_angular_compliance: wp.array(dtype=float),
    linear_relaxation: float,
    angular_relaxation: float,
    dt: float,
    joint_impulse: wp.array(dtype=wp.spatial_vector),
    joint_x_p: wp.array(dtype=wp.vec3),
    joint_x_c: wp.array(dtype=wp.vec3),
):
    # Joint j's correction, a thread each: its impulses on the child (angular, positional; world;
    # the parent gets their negatives) and the two joint origins they act at.
    j = wp.tid()
    Pj, Lj, x_p, x_c = joint_correction(j, body_q, body_qd, body_com, body_inv_mass, body_inv_inertia, joint_type,
                                        joint_parent, joint_child, joint_X_p, joint_X_c, joint_axis_start, joint_axis_dim,
                                        joint_axis, joint_mode, joint_act, joint_target_ke, joint_target_kd, joint_limit_lower,
                                        joint_limit_upper, joint_linear_compliance, joint_angular_compliance,
                                        linear_relaxation, angular_relaxation, dt)
    joint_impulse[j] = wp.spatial_vector(Lj[0], Lj[1], Lj[2], Pj[0], Pj[1], Pj[2])
    joint_x_p[j] = x_p
    joint_x_c[j] = x_c


@wp.kernel
def sum_body_joints(body_q: wp.array(dtype=wp.transform), body_com: wp.array(dtype=wp.vec3),
                    body_joint_start: wp.array(dtype=int), body_joint_list: wp.array(dtype=int),
                    joint_parent: wp.array(dtype=int), joint_child: wp.array(dtype=int),
                    joint_impulse: wp.array(dtype=wp.spatial_vector), joint_x_p: wp.array(dtype=wp.vec3),
                    joint_x_c: wp.array(dtype=wp.vec3), deltas: wp.array(dtype=wp.spatial_vector)):
    # Body b's summed joint impulses (angular about its centre of mass, positional; world), over
    # the joints it is the child or the parent of, in body_joint_list's order.
    b = wp.tid()
    com = wp.transform_point(body_q[b], body_com[b])
    P = wp.vec3(0.0)
    L = wp.vec3(0.0)
    for k in range(body_joint_start[b], body_joint_start[b + 1]):
        j = body_joint_list[k]
        Lj = wp.spatial_top(joint_impulse[j])
        Pj = wp.spatial_bottom(joint_impulse[j])
        if joint_child[j] == b:
            P = P + Pj
            L = L + Lj + wp.cross(joint_x_c[j] - com, Pj)
        if joint_parent[j] == b:
            P = P - Pj
            L = L - Lj - wp.cross(joint_x_p[j] - com, Pj)
    deltas[b] = wp.spatial_vector(L[0], L[1], L[2], P[0], P[1], P[2])
