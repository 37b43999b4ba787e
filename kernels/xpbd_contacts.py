"""The contact pass of the XPBD integrator's rigid bodies (the method: xpbd_joints.py's docstring,
section Contacts)."""
import weft as wp
import rigid_common as rc
import broad_phase as bp
import xpbd_common as xc


@wp.func
def pair_impulse(r_a: wp.vec3, r_h: wp.vec3, delta: wp.vec3, n: wp.vec3, d: float, inv_m_a: float, Iw_a: wp.mat33,
                 inv_m_h: float, Iw_h: wp.mat33, mu: float, relaxation: float) -> wp.vec3:
    # The impulse on the point's body of a closed contact (gap d < 0, normal n towards it) whose
    # surface points are delta apart: the normal step, then static friction against the tangential
    # part of delta, at most mu times this iteration's normal step (Warp's rule). Capping by the
    # step's accumulated normal impulse instead was tried and made sliding friction too weak (the
    # incline test measured +67% acceleration); the creep this rule leaves below the friction
    # angle shrinks with dt and the iterations (docs/rigid-bodies.md, XPBD).
    w = xc.linear_weight(inv_m_a, Iw_a, r_a, n) + xc.linear_weight(inv_m_h, Iw_h, r_h, n)
    P = wp.vec3(0.0)
    if w > 0.0:
        ln = -d / w * relaxation
        P = n * ln
        tang = delta - n * wp.dot(n, delta)
        lt = wp.length(tang)
        if mu > 0.0 and lt > 0.0:
            t = tang / lt
            wt = xc.linear_weight(inv_m_a, Iw_a, r_a, t) + xc.linear_weight(inv_m_h, Iw_h, r_h, t)
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
    near, n, p_a, p_h, Xh = xc.shape_contact_points(pl, sa, ba, sb, bh, body_q0, body_q, shape_transform, shape_geo_type,
                                                    shape_geo_scale, shape_geo_thickness, shape_sdf_values, shape_sdf_dims,
                                                    shape_sdf_origin, shape_sdf_cell, margin)
    active = 0
    P = wp.vec3(0.0)
    d = wp.dot(n, p_a - p_h)
    if near != 0 and d < 0.0:
        active = 1
        com_a, inv_m_a, Iw_a = xc.body_mass_at(ba, body_q[ba], body_com, body_inv_mass, body_inv_inertia)
        com_h, inv_m_h, Iw_h = xc.body_mass_at(bh, Xh, body_com, body_inv_mass, body_inv_inertia)
        mu = 0.5 * (shape_materials[sa, 4] + shape_materials[sb, 4])
        P = pair_impulse(p_a - com_a, p_h - com_h, p_a - p_h, n, d, inv_m_a, Iw_a, inv_m_h, Iw_h, mu, relaxation)
    return active, P, p_a, p_h


@wp.kernel(block_dim=128)  # as rigid.py's eval_body_forces: 12 warps an SM at their register count
def find_contact_slots(
    body_q0: wp.array(dtype=wp.transform),
    body_shape_start: wp.array(dtype=int),
    body_shape_list: wp.array(dtype=int),
    shape_body: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
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
    margin: float,
    slots: int,
    slot_active: wp.array2d(dtype=int),
):
    # Once per step, before the iterations: whether slot j of body b (solve_contact_slots' slots)
    # holds a contact this step. Contacts are found at the step's start poses, so this is known
    # before the iterations: the slot is active when a point of its pairs lies within the margin
    # of the other shape (or of the ground) at the start, by the same function the solve calls
    # (xpbd_common.py's shape_contact_points, ground_point), after the same filters and bounding
    # spheres. A slot marked idle would have summed to zero: the iterations and the restitution
    # pass skip it. Thread (j, t) handles body body_order[t] (Model::body_order: the same body of
    # consecutive worlds side by side, so a warp's slots tend to be all active or all idle).
    j, t = wp.tid()
    b = body_order[t]
    active = 0
    wb = body_world[b]
    C = (slots - 1) // 2
    n_cand = bp.walk_count(b, wb, shape_count, world_shape_start, num_worlds, broad_phase, body_candidate_count)
    base = bp.list_base(b, broad_phase, body_candidate_count, candidate_capacity)
    if j == 0:
        if ground != 0:
            for si in range(body_shape_start[b], body_shape_start[b + 1]):
                sa = body_shape_list[si]
                ta = shape_geo_type[sa]
                if (shape_collision_flags[sa] & 1) != 0:
                    for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                        pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                        d, c0, p_a, p_h, n = xc.ground_point(pl, sa, b, body_q0, body_q0, shape_transform,
                                                          shape_geo_thickness, ground_plane)
                        if c0 < margin:
                            active = 1
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
                        near, n, p_a, p_h, Xh = xc.shape_contact_points(pl, sa, b, sb, ob, body_q0, body_q0, shape_transform,
                                                                        shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                                                        shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                                                        shape_sdf_cell, margin)
                        if near != 0:
                            active = 1
    else:
        for kp in range(j - 1 - C, n_cand, C):
            sp = bp.walk_shape(kp, base, wb, world_shape_start, world_shape_list, num_worlds, body_candidate_list)
            ob = shape_body[sp]
            if ob >= 0 and ob != b and not rc.joined(b, ob, body_joint_start, body_joint_list, joint_parent, joint_child,
                                                         joint_collision_filter):
                Xp0 = body_q0[ob] * shape_transform[sp]
                for si in range(body_shape_start[b], body_shape_start[b + 1]):
                    sh = body_shape_list[si]
                    if rc.takes_points(sp, sh, shape_world, shape_geo_type, shape_collision_group,
                                       shape_collision_flags, shape_filter_start, shape_filter_list) and xc.may_touch_within(
                                           Xp0, sp, body_q0[b] * shape_transform[sh], sh, shape_bound, margin):
                        tp = shape_geo_type[sp]
                        for k in range(rc.shape_point_count(sp, tp, shape_point_start)):
                            pl = rc.shape_point(sp, tp, shape_geo_scale[sp], k, shape_point_start, shape_points)
                            near, n, p_a, p_h, Xh = xc.shape_contact_points(pl, sp, ob, sh, b, body_q0, body_q0,
                                                                            shape_transform, shape_geo_type, shape_geo_scale,
                                                                            shape_geo_thickness, shape_sdf_values,
                                                                            shape_sdf_dims, shape_sdf_origin, shape_sdf_cell,
                                                                            margin)
                            if near != 0:
                                active = 1
    slot_active[j, b] = active


@wp.kernel(block_dim=128)  # as rigid.py's eval_body_forces: 12 warps an SM at their register count
def solve_contact_slots(
    body_q0: wp.array(dtype=wp.transform),
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
    shape_collision_group: wp.array(dtype=int),
    shape_collision_flags: wp.array(dtype=int),
    shape_filter_start: wp.array(dtype=int),
    shape_filter_list: wp.array(dtype=int),
    shape_bound: wp.array(dtype=float),
    shape_point_start: wp.array(dtype=int),
    shape_points: wp.array(dtype=wp.vec4),
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
    body_order: wp.array(dtype=int),
    broad_phase: int,
    body_candidate_count: wp.array(dtype=int),
    body_candidate_list: wp.array(dtype=int),
    candidate_capacity: int,
    margin: float,
    relaxation: float,
    slots: int,
    slot_active: wp.array2d(dtype=int),
    slot_deltas: wp.array2d(dtype=wp.spatial_vector),
    slot_counts: wp.array2d(dtype=float),
):
    # One slot j of body b's contacts, a thread each: slot 0 its shapes' points against the
    # ground, slot 1 + k its points against candidate shape k of its walk (worlds.py, or its
    # broad-phase list: broad_phase.py), slot 1 + C + k candidate k's points against its shapes
    # (the reactions). C = (slots - 1) / 2 is the most candidates of any body, or with the broad
    # phase the lists' capacity; a body that walks every shape then has slot 1 + k take candidates
    # k, k + C, k + 2 C ... in turn (and 1 + C + k their reactions). Writes the slot's summed
    # impulses (angular about b's centre of mass, positional; world) and its number of closed
    # contacts; sum_contact_slots adds a body's slots in order. Threads run slot-major
    # (consecutive threads: the same slot of consecutive bodies of body_order, one body of
    # consecutive worlds), so a warp's threads share a branch and mostly its contacts. A slot that
    # find_contact_slots marked idle for the step writes zeros at once; in an active one, which
    # pairs meet is decided once per pair of shapes (the filters, then the bounding spheres at the
    # step's start), and only then are the points walked.
    j, t = wp.tid()
    b = body_order[t]
    P = wp.vec3(0.0)
    L = wp.vec3(0.0)
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
                            Pc = pair_impulse(p_a - com, wp.vec3(0.0), p_a - p_h, n, d, inv_m, Iw, 0.0, wp.mat33(0.0),
                                              0.5 * (shape_materials[sa, 4] + ground_mu), relaxation)
                            P = P + Pc
                            L = L + wp.cross(p_a - com, Pc)
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
                        share = 1.0
                        if ob >= 0:
                            share = xc.two_way(ta, shape_geo_type[sb], sa, sb)
                        for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                            pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                            active, Pc, p_a, p_h = point_contact(pl, sa, b, sb, ob, body_q0, body_q, body_com, body_inv_mass,
                                                                 body_inv_inertia, shape_transform, shape_geo_type,
                                                                 shape_geo_scale, shape_geo_thickness, shape_materials,
                                                                 shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                                                 shape_sdf_cell, margin, relaxation)
                            if active != 0:
                                P = P + Pc * share
                                L = L + wp.cross(p_a - com, Pc) * share
                                count = count + share
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
                            share = xc.two_way(tp, shape_geo_type[sh], sp, sh)
                            for k in range(rc.shape_point_count(sp, tp, shape_point_start)):
                                pl = rc.shape_point(sp, tp, shape_geo_scale[sp], k, shape_point_start, shape_points)
                                active, Pc, p_a, p_h = point_contact(pl, sp, ob, sh, b, body_q0, body_q, body_com,
                                                                     body_inv_mass, body_inv_inertia, shape_transform,
                                                                     shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                                                     shape_materials, shape_sdf_values, shape_sdf_dims,
                                                                     shape_sdf_origin, shape_sdf_cell, margin, relaxation)
                                if active != 0:
                                    P = P - Pc * share
                                    L = L - wp.cross(p_h - com, Pc) * share
                                    count = count + share
    slot_deltas[j, b] = wp.spatial_vector(L[0], L[1], L[2], P[0], P[1], P[2])
    slot_counts[j, b] = count


@wp.kernel
def sum_contact_slots(slot_deltas: wp.array2d(dtype=wp.spatial_vector), slot_counts: wp.array2d(dtype=float), slots: int,
                      deltas: wp.array(dtype=wp.spatial_vector), contact_count: wp.array(dtype=float)):
    # Body b's summed contact impulses and closed contacts: its slots added in slot order, so the
    # sum is the same on every device and in every run.
    b = wp.tid()
    d = wp.spatial_vector()
    count = float(0.0)
    for j in range(slots):
        d = d + slot_deltas[j, b]
        count = count + slot_counts[j, b]
    deltas[b] = d
    contact_count[b] = count
