"""The restitution pass of the XPBD integrator's rigid bodies (the method: xpbd_joints.py's
docstring, section Restitution)."""
import weft as wp
import rigid_common as rc
import broad_phase as bp
import xpbd_common as xc


@wp.func
def approach_speed(ob: int, X0: wp.transform, qd0: wp.array(dtype=wp.spatial_vector), body_com: wp.array(dtype=wp.vec3),
                   gravity: wp.vec3, body_inv_mass: wp.array(dtype=float), dt: float, x: wp.vec3) -> wp.vec3:
    # A body's velocity at x at the start of the step with gravity's dt added (Warp's), zero for
    # the world.
    v = wp.vec3(0.0)
    if ob >= 0:
        v = rc.point_velocity(qd0[ob], wp.transform_point(X0, body_com[ob]), x)
        if body_inv_mass[ob] > 0.0:
            v = v + gravity * dt
    return v


@wp.func
def restitution_impulse(r_a: wp.vec3, r_h: wp.vec3, n: wp.vec3, v_old: float, v_new: float, inv_m_a: float, Iw_a: wp.mat33,
                        inv_m_h: float, Iw_h: wp.mat33, e: float) -> wp.vec3:
    # The velocity impulse on the point's body that turns the normal velocity v_new into
    # -e v_old, for a contact that was approaching (v_old < 0).
    w = xc.linear_weight(inv_m_a, Iw_a, r_a, n) + xc.linear_weight(inv_m_h, Iw_h, r_h, n)
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
    near, n, p_a, p_h, Xh = xc.shape_contact_points(pl, sa, ba, sb, bh, body_q0, body_q, shape_transform, shape_geo_type,
                                                    shape_geo_scale, shape_geo_thickness, shape_sdf_values, shape_sdf_dims,
                                                    shape_sdf_origin, shape_sdf_cell, margin)
    active = 0
    J = wp.vec3(0.0)
    if near != 0 and wp.dot(n, p_a - p_h) < 0.0:
        active = 1
        com_a, inv_m_a, Iw_a = xc.body_mass_at(ba, body_q[ba], body_com, body_inv_mass, body_inv_inertia)
        com_h, inv_m_h, Iw_h = xc.body_mass_at(bh, Xh, body_com, body_inv_mass, body_inv_inertia)
        Xh0 = xc.body_frame(bh, body_q0)
        v_old = wp.dot(n, approach_speed(ba, body_q0[ba], body_qd0, body_com, gravity, body_inv_mass, dt, p_a) -
                       approach_speed(bh, Xh0, body_qd0, body_com, gravity, body_inv_mass, dt, p_h))
        v_h = wp.vec3(0.0)
        if bh >= 0:
            v_h = rc.point_velocity(body_qd[bh], com_h, p_h)
        v_new = wp.dot(n, rc.point_velocity(body_qd[ba], com_a, p_a) - v_h)
        e = 0.5 * (shape_materials[sa, 5] + shape_materials[sb, 5])
        J = restitution_impulse(p_a - com_a, p_h - com_h, n, v_old, v_new, inv_m_a, Iw_a, inv_m_h, Iw_h, e)
    return active, J, p_a, p_h


@wp.kernel(block_dim=128)  # as rigid.py's eval_body_forces: 12 warps an SM at their register count
def solve_restitution_slots(
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
    shape_collision_group: wp.array(dtype=int),
    shape_collision_flags: wp.array(dtype=int),
    shape_filter_start: wp.array(dtype=int),
    shape_filter_list: wp.array(dtype=int),
    shape_bound: wp.array(dtype=float),
    shape_point_start: wp.array(dtype=int),
    shape_points: wp.array(dtype=wp.vec4),
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
    body_order: wp.array(dtype=int),
    broad_phase: int,
    body_candidate_count: wp.array(dtype=int),
    body_candidate_list: wp.array(dtype=int),
    candidate_capacity: int,
    gravity: wp.vec3,
    margin: float,
    dt: float,
    slots: int,
    slot_active: wp.array2d(dtype=int),
    slot_impulses: wp.array2d(dtype=wp.spatial_vector),
    slot_counts: wp.array2d(dtype=float),
):
    # One slot j of body b's restitution impulses, a thread each, with the slots of
    # xpbd_contacts.py's solve_contact_slots (0 the ground, 1 + k candidate shape k, 1 + C + k
    # candidate k's points on the body): the slot's summed velocity impulses (angular about b's
    # centre of mass, linear; world) and its number of closed contacts.
    j, t = wp.tid()
    b = body_order[t]
    J = wp.vec3(0.0)
    H = wp.vec3(0.0)
    count = float(0.0)
    if slot_active[j, b] != 0:
        wb = body_world[b]
        com = wp.transform_point(body_q[b], body_com[b])
        C = (slots - 1) // 2
        n_cand = bp.walk_count(b, wb, shape_count, world_shape_start, num_worlds, broad_phase, body_candidate_count)
        base = bp.list_base(b, broad_phase, body_candidate_count, candidate_capacity)
        if j == 0:
            inv_m = body_inv_mass[b]
            Iw = xc.world_inv_inertia(body_q[b], body_inv_inertia[b])
            for si in range(body_shape_start[b], body_shape_start[b + 1]):
                sa = body_shape_list[si]
                ta = shape_geo_type[sa]
                if ground != 0 and (shape_collision_flags[sa] & 1) != 0:
                    for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                        pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                        d, c0, p_a, p_h, n = xc.ground_point(pl, sa, b, body_q0, body_q, shape_transform, shape_geo_thickness,
                                                          ground_plane)
                        if c0 < margin and d < 0.0:
                            v_old = wp.dot(n, approach_speed(b, body_q0[b], body_qd0, body_com, gravity, body_inv_mass, dt, p_a))
                            v_new = wp.dot(n, rc.point_velocity(body_qd[b], com, p_a))
                            Jc = restitution_impulse(p_a - com, wp.vec3(0.0), n, v_old, v_new, inv_m, Iw, 0.0, wp.mat33(0.0),
                                                     0.5 * (shape_materials[sa, 5] + ground_restitution))
                            J = J + Jc
                            H = H + wp.cross(p_a - com, Jc)
                            count = count + 1.0
        elif j <= C:
            for kb in range(j - 1, n_cand, C):
                sb = bp.walk_shape(kb, base, wb, world_shape_start, world_shape_list, num_worlds, body_candidate_list)
                ob = shape_body[sb]
                Xh0 = xc.body_frame(ob, body_q0) * shape_transform[sb]
                for si in range(body_shape_start[b], body_shape_start[b + 1]):
                    sa = body_shape_list[si]
                    ta = shape_geo_type[sa]
                    if rc.tests_against(b, sa, sb, ob, shape_world, shape_geo_type, shape_collision_group, shape_collision_flags,
                                        shape_filter_start, shape_filter_list, body_joint_start, body_joint_list, joint_parent,
                                        joint_child, joint_collision_filter) and xc.may_touch_within(
                                            body_q0[b] * shape_transform[sa], sa, Xh0, sb, shape_bound, margin):
                        for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                            pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                            active, Jc, p_a, p_h = point_restitution(pl, sa, b, sb, ob, body_q0, body_qd0, body_q, body_qd,
                                                                     body_com, body_inv_mass, body_inv_inertia, shape_transform,
                                                                     shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                                                     shape_materials, shape_sdf_values, shape_sdf_dims,
                                                                     shape_sdf_origin, shape_sdf_cell, gravity, margin, dt)
                            if active != 0:
                                J = J + Jc
                                H = H + wp.cross(p_a - com, Jc)
                                count = count + 1.0
        else:
            for kp in range(j - 1 - C, n_cand, C):
                sp = bp.walk_shape(kp, base, wb, world_shape_start, world_shape_list, num_worlds, body_candidate_list)
                ob = shape_body[sp]
                if ob >= 0 and ob != b and not rc.joined(b, ob, body_joint_start, body_joint_list, joint_parent, joint_child,
                                                             joint_collision_filter):
                    tp = shape_geo_type[sp]
                    Xp0 = body_q0[ob] * shape_transform[sp]
                    for si in range(body_shape_start[b], body_shape_start[b + 1]):
                        sh = body_shape_list[si]
                        if rc.takes_points(sp, sh, shape_world, shape_geo_type, shape_collision_group,
                                           shape_collision_flags, shape_filter_start, shape_filter_list) and xc.may_touch_within(
                                               Xp0, sp, body_q0[b] * shape_transform[sh], sh, shape_bound, margin):
                            for k in range(rc.shape_point_count(sp, tp, shape_point_start)):
                                pl = rc.shape_point(sp, tp, shape_geo_scale[sp], k, shape_point_start, shape_points)
                                active, Jc, p_a, p_h = point_restitution(pl, sp, ob, sh, b, body_q0, body_qd0, body_q, body_qd,
                                                                         body_com, body_inv_mass, body_inv_inertia,
                                                                         shape_transform, shape_geo_type, shape_geo_scale,
                                                                         shape_geo_thickness, shape_materials, shape_sdf_values,
                                                                         shape_sdf_dims, shape_sdf_origin, shape_sdf_cell,
                                                                         gravity, margin, dt)
                                if active != 0:
                                    J = J - Jc
                                    H = H - wp.cross(p_h - com, Jc)
                                    count = count + 1.0
    slot_impulses[j, b] = wp.spatial_vector(H[0], H[1], H[2], J[0], J[1], J[2])
    slot_counts[j, b] = count


@wp.kernel
def apply_restitution_slots(body_q: wp.array(dtype=wp.transform), body_qd: wp.array(dtype=wp.spatial_vector),
                            body_inv_mass: wp.array(dtype=float), body_inv_inertia: wp.array(dtype=wp.mat33),
                            slot_impulses: wp.array2d(dtype=wp.spatial_vector), slot_counts: wp.array2d(dtype=float),
                            slots: int, body_qd_new: wp.array(dtype=wp.spatial_vector)):
    # Body b's velocities after the restitution impulses of its closed contacts (its slots added
    # in slot order), each divided by the body's number of them.
    b = wp.tid()
    H = wp.vec3(0.0)
    J = wp.vec3(0.0)
    count = float(0.0)
    for j in range(slots):
        e = slot_impulses[j, b]
        H = H + wp.spatial_top(e)
        J = J + wp.spatial_bottom(e)
        count = count + slot_counts[j, b]
    scale = 1.0 / wp.max(count, 1.0)
    Iw = xc.world_inv_inertia(body_q[b], body_inv_inertia[b])
    qd = body_qd[b]
    w1 = wp.spatial_top(qd) + Iw * H * scale
    v1 = wp.spatial_bottom(qd) + J * (body_inv_mass[b] * scale)
    body_qd_new[b] = wp.spatial_vector(w1[0], w1[1], w1[2], v1[0], v1[1], v1[2])
