"""Rigid bodies of the semi-implicit solver: penalty contact between body shapes, the ground and
the static shapes, and Warp's semi-implicit Euler step of a body (integrate_bodies).

A body's pose body_q is the transform of its frame in the world; body_com is its centre of mass in
that frame; body_qd = (w, v) holds the angular velocity w and the velocity v of the centre of
mass, both in world coordinates; a wrench (t, f) is a torque about the centre of mass and a force,
in world coordinates, as in Warp.

Contact points. Each shape of a body stands for itself through points with a radius: a sphere its
centre (radius r), a capsule the two ends of its axis (radius r), a box its eight corners, moved
inwards by rb = 5% of its smallest half extent and given the radius rb (the box collides with its
edges rounded by rb; face down it rests exactly as the sharp box), a cylinder eight points on each
rim and a cone eight on its base rim and one at its apex, rounded the same way (round_point), a
mesh its vertices (radius 0; Model::shape_points, written by finalize). A
point x with radius r is in contact with another shape when the shape's signed distance at x is
below r plus both thicknesses (geometry.py's shape_contact_at), and with the ground when n.x + d <
r. Between two body shapes, `points_into` says which shape's points are tested against which: a
sphere's centre against the other shape (exact for a sphere against any shape; between two spheres
only the one of lower index, so the contact counts once), the points of the other shapes against
every shape but spheres (both ways). Edge-edge contact of two boxes, the crossing middles of two
capsules and the curved sides of cylinders and cones between their points are not found
(docs/rigid-bodies.md).

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

Joints (joints.py's joint_wrench, Warp's eval_body_joints): springs pull a joint's child frame onto
its parent's frame, leaving free what its axes free, plus the drive and limit forces of its free
coordinates; both bodies' threads compute the same wrench, so joints too need no atomics.

Particles. Particles touching a body's shapes push it back (soft_contact.py): the reactions are
summed in fixed chunks of (particle, shape) pairs by eval_body_particle_contacts, one thread per
chunk, and eval_body_forces adds a body's chunks in order; no atomics.

Filtering. Warp's shape collision groups, per-shape switches and filtered pairs (shapes_collide)
and the joints' collision_filter_parent (joined) decide which pairs meet.

Worlds and the broad phase. A body of world w tests only its world's shapes and the shared ones
(worlds.py's candidate; world -1 tests every shape, in index order), and a pair whose bounding spheres
are further apart than the pair's adhesion distance is skipped (may_touch; the radii are
Model::shape_bound, from finalize): it would have given exactly zero force, so skipping it changes
no bits. With the broad phase on (Model::body_broad_phase), a body walks only its candidates
(broad_phase.py: the shapes of that walk whose bounding spheres reach its own, found through a
hash grid, in the walk's order) instead of every shape of its world: the same pairs pass may_touch,
in the same order, so the forces keep their bits.
"""
import weft as wp
import geometry as geo
import joints
import soft_contact as sc
import rigid_common as rc
import worlds
import broad_phase as bp


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
        v = rc.point_velocity(qd_point, com_point, xc) - rc.point_velocity(qd_hit, com_hit, xc)
        f = rigid_contact_force(n, v, c, ke, kd, kf, ka, mu)
    return f, xc


@wp.func
def may_touch(Xa: wp.transform, sa: int, Xb: wp.transform, sb: int, shape_bound: wp.array(dtype=float),
              shape_materials: wp.array2d(dtype=float)) -> bool:
    # The broad phase: false only where the two shapes' bounding spheres are further apart than the
    # pair's adhesion distance, so that every pair it skips would have given exactly zero force
    # (the step's bits do not change; it only saves the narrow phase of distant pairs).
    # (shape_bound: the radius of a sphere about a shape's origin holding it, its contact points
    # and its thickness, from finalize; -1 for planes.)
    ra = shape_bound[sa]
    rb = shape_bound[sb]
    if ra < 0.0 or rb < 0.0:
        return True
    ka = wp.abs(0.5 * (shape_materials[sa, 3] + shape_materials[sb, 3]))
    d = wp.transform_get_translation(Xa) - wp.transform_get_translation(Xb)
    return wp.length(d) <= ra + rb + ka


# Blocks of 128: at about 160 registers a thread an SM holds 12 warps, which 128-thread blocks fill
# (3 of them) and 256-thread blocks do not (1); with 4096 quadruped worlds that was 2 waves instead
# of 1, and 0.103 against 0.065 ms a step on an H100 (bench/results/broad-phase-2026-12-07.md).
@wp.kernel(block_dim=128)
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
    shape_collision_group: wp.array(dtype=int),
    shape_collision_flags: wp.array(dtype=int),
    shape_filter_start: wp.array(dtype=int),
    shape_filter_list: wp.array(dtype=int),
    shape_bound: wp.array(dtype=float),
    shape_point_start: wp.array(dtype=int),
    shape_points: wp.array(dtype=wp.vec4),
    ground: int,
    ground_plane: wp.vec4,
    ground_ke: float,
    ground_kd: float,
    ground_kf: float,
    ground_mu: float,
    external_f: wp.array(dtype=wp.spatial_vector),
    has_external_f: int,
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
    joint_limit_ke: wp.array(dtype=float),
    joint_limit_kd: wp.array(dtype=float),
    joint_collision_filter: wp.array(dtype=int),
    joint_attach_ke: float,
    joint_attach_kd: float,
    joint_wrenches: int,
    shape_world: wp.array(dtype=int),
    body_world: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    body_particle_wrench: wp.array(dtype=wp.spatial_vector),
    particle_chunks: int,
    broad_phase: int,
    body_candidate_count: wp.array(dtype=int),
    body_candidate_list: wp.array(dtype=int),
    candidate_capacity: int,
    body_f: wp.array(dtype=wp.spatial_vector),
):
    b = wp.tid()
    wb = body_world[b]
    # The shapes this body walks: its broad-phase list, or every shape of its world.
    n_walk = bp.walk_count(b, wb, shape_count, world_shape_start, num_worlds, broad_phase, body_candidate_count)
    base = bp.list_base(b, broad_phase, body_candidate_count, candidate_capacity)
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
    # Which pairs meet is decided once per pair of shapes (the filters, then may_touch), and only
    # then are the shape's points walked.
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        sa = body_shape_list[si]
        ta = shape_geo_type[sa]
        Xa = Xb * shape_transform[sa]
        if ground != 0 and (shape_collision_flags[sa] & 1) != 0:
            for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                x = wp.transform_point(Xa, wp.vec3(pl[0], pl[1], pl[2]))
                r = pl[3] + shape_geo_thickness[sa]
                n, c = geo.ground_contact(ground_plane, x, r)
                if c < 0.5 * shape_materials[sa, 3]:
                    xc = x - n * r
                    fc = rigid_contact_force(n, rc.point_velocity(qd, com, xc), c, 0.5 * (shape_materials[sa, 0] + ground_ke),
                                             0.5 * (shape_materials[sa, 1] + ground_kd),
                                             0.5 * (shape_materials[sa, 2] + ground_kf), 0.5 * shape_materials[sa, 3],
                                             0.5 * (shape_materials[sa, 4] + ground_mu))
                    f = f + fc
                    t = t + wp.cross(xc - com, fc)
        for kb in range(n_walk):
            sb = bp.walk_shape(kb, base, wb, world_shape_start, world_shape_list, num_worlds, body_candidate_list)
            ob = shape_body[sb]
            if rc.tests_against(b, sa, sb, ob, shape_world, shape_geo_type, shape_collision_group, shape_collision_flags,
                                shape_filter_start, shape_filter_list, body_joint_start, body_joint_list, joint_parent,
                                joint_child, joint_collision_filter):
                Xh = shape_transform[sb]
                qh = still
                ch = wp.vec3(0.0)
                if ob >= 0:
                    Xo = body_q[ob]
                    Xh = Xo * shape_transform[sb]
                    qh = body_qd[ob]
                    ch = wp.transform_point(Xo, body_com[ob])
                if may_touch(Xa, sa, Xh, sb, shape_bound, shape_materials):
                    for k in range(rc.shape_point_count(sa, ta, shape_point_start)):
                        pl = rc.shape_point(sa, ta, shape_geo_scale[sa], k, shape_point_start, shape_points)
                        x = wp.transform_point(Xa, wp.vec3(pl[0], pl[1], pl[2]))
                        r = pl[3] + shape_geo_thickness[sa]
                        fc, xc = pair_force(x, r, qd, com, sa, sb, Xh, qh, ch, shape_geo_type, shape_geo_scale,
                                            shape_geo_thickness, shape_materials, shape_sdf_values, shape_sdf_dims,
                                            shape_sdf_origin, shape_sdf_cell)
                        f = f + fc
                        t = t + wp.cross(xc - com, fc)
    # The reactions: other bodies' points in this body's shapes.
    for kp in range(n_walk):
        sp = bp.walk_shape(kp, base, wb, world_shape_start, world_shape_list, num_worlds, body_candidate_list)
        ob = shape_body[sp]
        if ob >= 0 and ob != b and not rc.joined(b, ob, body_joint_start, body_joint_list, joint_parent, joint_child,
                                               joint_collision_filter):
            tp = shape_geo_type[sp]
            Xo = body_q[ob]
            qo = body_qd[ob]
            com_o = wp.transform_point(Xo, body_com[ob])
            Xp = Xo * shape_transform[sp]
            for si in range(body_shape_start[b], body_shape_start[b + 1]):
                sh = body_shape_list[si]
                Xs = Xb * shape_transform[sh]
                if rc.takes_points(sp, sh, shape_world, shape_geo_type, shape_collision_group, shape_collision_flags,
                                   shape_filter_start, shape_filter_list) and may_touch(Xp, sp, Xs, sh, shape_bound,
                                                                                              shape_materials):
                    for k in range(rc.shape_point_count(sp, tp, shape_point_start)):
                        pl = rc.shape_point(sp, tp, shape_geo_scale[sp], k, shape_point_start, shape_points)
                        x = wp.transform_point(Xp, wp.vec3(pl[0], pl[1], pl[2]))
                        r = pl[3] + shape_geo_thickness[sp]
                        fc, xc = pair_force(x, r, qo, com_o, sp, sh, Xs, qd, com, shape_geo_type, shape_geo_scale,
                                            shape_geo_thickness, shape_materials, shape_sdf_values, shape_sdf_dims,
                                            shape_sdf_origin, shape_sdf_cell)
                        f = f - fc
                        t = t - wp.cross(xc - com, fc)
    # The reactions of particles on this body's shapes, in chunk order (eval_body_particle_contacts).
    for k in range(particle_chunks):
        e = body_particle_wrench[b * particle_chunks + k]
        t = t + wp.spatial_top(e)
        f = f + wp.spatial_bottom(e)
    # The joints this body is the parent or the child of (their penalty wrenches: maximal
    # coordinates only; a reduced-coordinate solver keeps its joints exact and passes 0).
    joint_end = body_joint_start[b]
    if joint_wrenches != 0:
        joint_end = body_joint_start[b + 1]
    for k in range(body_joint_start[b], joint_end):
        j = body_joint_list[k]
        fj, tj, x_p, x_c = joints.joint_wrench(j, body_q, body_qd, body_com, joint_type, joint_parent, joint_child,
                                               joint_X_p, joint_X_c, joint_axis_start, joint_axis_dim, joint_axis, joint_mode,
                                               joint_act, joint_target_ke, joint_target_kd, joint_limit_lower,
                                               joint_limit_upper, joint_limit_ke, joint_limit_kd, joint_attach_ke,
                                               joint_attach_kd)
        if joint_parent[j] == b:
            f = f + fj
            t = t + tj + wp.cross(x_p - com, fj)
        if joint_child[j] == b:
            f = f - fj
            t = t - tj - wp.cross(x_c - com, fj)
    body_f[b] = wp.spatial_vector(t[0], t[1], t[2], f[0], f[1], f[2])


@wp.kernel
def eval_body_particle_contacts(
    particle_q: wp.array(dtype=wp.vec3),
    particle_qd: wp.array(dtype=wp.vec3),
    particle_radius: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    particle_count: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_shape_start: wp.array(dtype=int),
    body_shape_list: wp.array(dtype=int),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    shape_bound: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_material_share: wp.array(dtype=float),
    shape_world: wp.array(dtype=int),
    world_particle_start: wp.array(dtype=int),
    world_particle_list: wp.array(dtype=int),
    num_worlds: int,
    soft_ke: float,
    soft_kd: float,
    soft_kf: float,
    soft_mu: float,
    pairs_per_chunk: int,
    particle_chunks: int,
    body_particle_wrench: wp.array(dtype=wp.spatial_vector),
):
    # The reactions of particles on body b's shapes (soft_contact.py), summed in chunks of
    # P = pairs_per_chunk pairs: the pairs of body b are, shape by shape in its list, the particles
    # of the shape's world (worlds.py), and thread (b, k) sums pairs k P .. (k + 1) P - 1 into
    # body_particle_wrench[b * particle_chunks + k]; eval_body_forces adds the chunks in order.
    # The particle's own thread computes the same pairs with the same function (contact.py).
    tid = wp.tid()
    b = tid // particle_chunks
    first = (tid % particle_chunks) * pairs_per_chunk
    com = wp.transform_point(body_q[b], body_com[b])
    f = wp.vec3(0.0)
    t = wp.vec3(0.0)
    base = int(0)
    for si in range(body_shape_start[b], body_shape_start[b + 1]):
        s = body_shape_list[si]
        ws = shape_world[s]
        n = worlds.candidate_count(ws, particle_count, world_particle_start, num_worlds)
        lo = wp.max(first - base, 0)
        hi = wp.min(first + pairs_per_chunk - base, n)
        for k in range(lo, hi):
            i = worlds.candidate(k, ws, world_particle_start, world_particle_list, num_worlds)
            if (particle_flags[i] & sc.PARTICLE_FLAG_ACTIVE) != wp.uint32(0):
                fp, xc = sc.particle_body_contact(particle_q[i], particle_qd[i], particle_radius[i], s, b, body_q, body_qd,
                                                  body_com, shape_transform, shape_geo_type, shape_geo_scale,
                                                  shape_geo_thickness, shape_bound, shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                                  shape_sdf_cell, shape_materials, shape_material_share, soft_ke, soft_kd,
                                                  soft_kf, soft_mu)
                f = f - fp
                t = t - wp.cross(xc - com, fp)
        base = base + n
    body_particle_wrench[tid] = wp.spatial_vector(t[0], t[1], t[2], f[0], f[1], f[2])


