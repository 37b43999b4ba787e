"""What the rigid-body solvers share (rigid.py's semi-implicit contact, xpbd_*.py's positional
one): the contact points of a shape (shape_point: rigid.py's docstring describes them), which
shape's points are tested against which (points_into), the filters of a pair (joined: a joint's
collision_filter_parent; shapes_collide: Warp's collision groups, switches and filtered pairs;
tests_against: all of them for a point of a body's shape), a
body's point velocity, and Warp's semi-implicit step of a body (integrate_bodies, the
semi-implicit integrator's update and XPBD's prediction). A file of its own so that each solver's
module compiles only its own kernels."""
import weft as wp
import geometry as geo
import worlds

BOX_ROUNDING = wp.constant(0.05)  # a box's contact corners are rounded by this fraction of its smallest half extent
RIM_POINTS = wp.constant(8)  # contact points on each rim of a cylinder or cone


@wp.func
def shape_point_count(s: int, geo_type: int, shape_point_start: wp.array(dtype=int)) -> int:
    # How many contact points shape s (of type geo_type) has: a mesh its welded vertices (finalize's
    # upload_shape_points; none for a static mesh), the others a number fixed by their type.
    if geo_type == geo.GEO_MESH:
        return shape_point_start[s + 1] - shape_point_start[s]
    if geo_type == geo.GEO_SPHERE:
        return 1
    if geo_type == geo.GEO_CAPSULE:
        return 2
    if geo_type == geo.GEO_BOX:
        return 8
    if geo_type == geo.GEO_CYLINDER:
        return 2 * RIM_POINTS
    if geo_type == geo.GEO_CONE:
        return RIM_POINTS + 1
    return 0


@wp.func
def round_point(geo_type: int, scale: wp.vec3, k: int) -> wp.vec4:
    # Contact point k of a cylinder or cone: RIM_POINTS points evenly around each rim (a
    # cylinder's top rim first, then its bottom one; a cone's base rim, then its apex), each moved
    # inwards so that a sphere of radius rb = BOX_ROUNDING min(r, h) about it touches the faces it
    # lies on, and given that radius. A flat face rests on its rim as on the sharp shape; a
    # cylinder on its side rolls as a prism of RIM_POINTS sides rounded by rb.
    r = scale[0]
    h = scale[1]
    rb = BOX_ROUNDING * wp.min(r, h)
    if geo_type == geo.GEO_CONE:
        ln = wp.sqrt(r * r + 4.0 * h * h)
        if k == RIM_POINTS:
            return wp.vec4(0.0, -h + rb * ln / r, 0.0, rb)  # the apex, rb from the slant
        y = h - rb
        rho = (r * (y + h) - rb * ln) / (2.0 * h)  # rb from the slant at height y
        a = 2.0 * wp.pi * float(k) / float(RIM_POINTS)
        return wp.vec4(rho * wp.cos(a), y, rho * wp.sin(a), rb)
    y = h - rb
    if k >= RIM_POINTS:
        y = -y
    a = 2.0 * wp.pi * float(k % RIM_POINTS) / float(RIM_POINTS)
    return wp.vec4((r - rb) * wp.cos(a), y, (r - rb) * wp.sin(a), rb)


@wp.func
def shape_point(s: int, geo_type: int, scale: wp.vec3, k: int, shape_point_start: wp.array(dtype=int),
                shape_points: wp.array(dtype=wp.vec4)) -> wp.vec4:
    # Contact point k of shape s in the shape's frame (x, y, z) and its radius (w): a mesh's from
    # its table (a vertex, radius 0), the others' from their type and scale.
    if geo_type == geo.GEO_MESH:
        return shape_points[shape_point_start[s] + k]
    if geo_type == geo.GEO_SPHERE:
        return wp.vec4(0.0, 0.0, 0.0, scale[0])
    if geo_type == geo.GEO_CAPSULE:
        end = 1.0
        if k == 1:
            end = -1.0
        return wp.vec4(0.0, end * scale[1], 0.0, scale[0])
    if geo_type == geo.GEO_CYLINDER or geo_type == geo.GEO_CONE:
        return round_point(geo_type, scale, k)
    # A box's corners, each moved inwards by r along every axis and given the radius r: the box
    # collides as a box whose edges are rounded by r. Unrounded corners of two equal boxes
    # stacked face to face lie on each other's edges, where the inside normal points sideways and
    # the depth is 0, so the boxes would sink through each other.
    r = BOX_ROUNDING * wp.min(scale[0], wp.min(scale[1], scale[2]))
    sx = 1.0
    sy = 1.0
    sz = 1.0
    if k % 2 == 1:
        sx = -1.0
    if (k // 2) % 2 == 1:
        sy = -1.0
    if k >= 4:
        sz = -1.0
    return wp.vec4(sx * (scale[0] - r), sy * (scale[1] - r), sz * (scale[2] - r), r)


@wp.func
def points_into(type_a: int, type_b: int, a: int, b: int) -> bool:
    # Whether the contact points of body shape a (of type type_a) are tested against shape b of
    # another body. (Against static shapes, of any type, they always are.) A mesh's points are its
    # vertices, and its grid of signed distances takes the other shapes' points.
    if type_b == geo.GEO_PLANE:
        return False
    if type_a == geo.GEO_SPHERE:
        return type_b != geo.GEO_SPHERE or a < b
    return type_b != geo.GEO_SPHERE


@wp.func
def point_velocity(qd: wp.spatial_vector, com: wp.vec3, x: wp.vec3) -> wp.vec3:
    return wp.spatial_bottom(qd) + wp.cross(wp.spatial_top(qd), x - com)


@wp.func
def joined(b: int, other: int, body_joint_start: wp.array(dtype=int), body_joint_list: wp.array(dtype=int),
           joint_parent: wp.array(dtype=int), joint_child: wp.array(dtype=int),
           joint_collision_filter: wp.array(dtype=int)) -> bool:
    # Whether a joint that filters collisions (Warp's collision_filter_parent) links bodies b and other.
    found = False
    for k in range(body_joint_start[b], body_joint_start[b + 1]):
        j = body_joint_list[k]
        if joint_collision_filter[j] != 0:
            if (joint_parent[j] == b and joint_child[j] == other) or (joint_child[j] == b and joint_parent[j] == other):
                found = True
    return found


@wp.func
def shapes_collide(a: int, b: int, shape_collision_group: wp.array(dtype=int), shape_collision_flags: wp.array(dtype=int),
                   shape_filter_start: wp.array(dtype=int), shape_filter_list: wp.array(dtype=int)) -> bool:
    # Warp's shape filtering: both shapes collide with shapes, their groups are equal or either is
    # -1, and the pair is not one of the filtered pairs.
    ok = (shape_collision_flags[a] & 2) != 0 and (shape_collision_flags[b] & 2) != 0
    ga = shape_collision_group[a]
    gb = shape_collision_group[b]
    if ga >= 0 and gb >= 0 and ga != gb:
        ok = False
    if ok:
        for k in range(shape_filter_start[a], shape_filter_start[a + 1]):
            if shape_filter_list[k] == b:
                ok = False
    return ok


@wp.func
def tests_against(b: int, sa: int, sb: int, ob: int, shape_world: wp.array(dtype=int), shape_geo_type: wp.array(dtype=int),
                  shape_collision_group: wp.array(dtype=int), shape_collision_flags: wp.array(dtype=int),
                  shape_filter_start: wp.array(dtype=int), shape_filter_list: wp.array(dtype=int),
                  body_joint_start: wp.array(dtype=int), body_joint_list: wp.array(dtype=int), joint_parent: wp.array(dtype=int),
                  joint_child: wp.array(dtype=int), joint_collision_filter: wp.array(dtype=int)) -> bool:
    # Whether the points of shape sa on body b are tested against shape sb (on body ob, -1 for a
    # static shape): another body's (or a static) shape of the same world that the shape filters
    # let meet it and, for a body's shape, one whose points_into rule takes sa's points and that
    # no filtering joint links to b.
    return ob != b and worlds.same_world(shape_world[sa], shape_world[sb]) and shapes_collide(
        sa, sb, shape_collision_group, shape_collision_flags, shape_filter_start, shape_filter_list) and (ob < 0 or (points_into(
            shape_geo_type[sa], shape_geo_type[sb], sa, sb) and not joined(b, ob, body_joint_start, body_joint_list, joint_parent,
                                                                          joint_child, joint_collision_filter)))


@wp.func
def takes_points(sp: int, sh: int, shape_world: wp.array(dtype=int), shape_geo_type: wp.array(dtype=int),
                 shape_collision_group: wp.array(dtype=int), shape_collision_flags: wp.array(dtype=int),
                 shape_filter_start: wp.array(dtype=int), shape_filter_list: wp.array(dtype=int)) -> bool:
    # The reaction side of tests_against: whether body shape sh takes the points of shape sp of
    # another body (one that no filtering joint links to it; the caller checks the bodies once per
    # candidate): points_into picks sp's points, the shapes share a world and the shape filters let
    # them meet.
    return points_into(shape_geo_type[sp], shape_geo_type[sh], sp, sh) and worlds.same_world(
        shape_world[sp], shape_world[sh]) and shapes_collide(sp, sh, shape_collision_group, shape_collision_flags,
                                                             shape_filter_start, shape_filter_list)


@wp.kernel
def integrate_bodies(
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_f: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    body_inertia: wp.array(dtype=wp.mat33),
    body_inv_mass: wp.array(dtype=float),
    body_inv_inertia: wp.array(dtype=wp.mat33),
    gravity: wp.vec3,
    angular_damping: float,
    dt: float,
    body_q_new: wp.array(dtype=wp.transform),
    body_qd_new: wp.array(dtype=wp.spatial_vector),
):
    # Warp's integrate_rigid_body: v' = v + (f / m + g) dt, the centre of mass moves by v' dt; the
    # angular velocity is advanced in the body frame with the gyroscopic torque -w x (I w) taken
    # explicitly, the orientation by q' = normalize(q + 0.5 dt (w', 0) q), then w' is damped by
    # (1 - angular_damping dt). A body of zero mass keeps its velocities (kinematic).
    b = wp.tid()
    q = body_q[b]
    qd = body_qd[b]
    wr = body_f[b]
    p = wp.transform_get_translation(q)
    rot = wp.transform_get_rotation(q)
    w0 = wp.spatial_top(qd)
    v0 = wp.spatial_bottom(qd)
    inv_mass = body_inv_mass[b]
    com = body_com[b]
    x_com = p + wp.quat_rotate(rot, com)
    g = wp.vec3(0.0)
    if inv_mass > 0.0:
        g = gravity
    v1 = v0 + (wp.spatial_bottom(wr) * inv_mass + g) * dt
    x1 = x_com + v1 * dt
    wb = wp.quat_rotate_inv(rot, w0)
    tb = wp.quat_rotate_inv(rot, wp.spatial_top(wr)) - wp.cross(wb, body_inertia[b] * wb)
    w1 = wp.quat_rotate(rot, wb + body_inv_inertia[b] * tb * dt)
    r1 = wp.normalize(rot + wp.quat(w1[0], w1[1], w1[2], 0.0) * rot * (0.5 * dt))
    w1 = w1 * (1.0 - angular_damping * dt)
    body_q_new[b] = wp.transform(x1 - wp.quat_rotate(r1, com), r1)
    body_qd_new[b] = wp.spatial_vector(w1[0], w1[1], w1[2], v1[0], v1[1], v1[2])
