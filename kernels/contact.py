"""Per-particle forces of the semi-implicit solver: external force, drag, and penalty contact with
the ground, the static shapes (analytic, or a mesh's distance grid), the shapes on rigid bodies
and the other particles (through the hash grid of hash_grid.py).

Contact follows Warp's soft contact model (soft_contact.py's contact_force). Particle i sums its
own contacts with every neighbour j in a fixed order and writes the total to force_terms[i]; the
pair force is antisymmetric bit for bit, so momentum is conserved. A contact with a body's shape
pushes the body back: the body's threads sum those reactions (rigid.py's
eval_body_particle_contacts) with the same function, soft_contact.py's particle_body_contact.
"""
import weft as wp
import geometry as geo
import soft_contact as sc
import worlds
import hash_grid as grid


@wp.func
def shape_contacts(
    x: wp.vec3,
    v: wp.vec3,
    radius: float,
    w: int,
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
    shape_bound: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_material_share: wp.array(dtype=float),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    ke: float,
    kd: float,
    kf: float,
    mu: float,
) -> wp.vec3:
    # The shapes a particle of world w meets (worlds.py; every shape, in index order, for w = -1).
    # The contact material of particle and shape s: soft_contact_* moved towards the shape's own
    # ke, kd, kf, mu by shape_material_share[s] (0.5 is Warp's average of the two; 0, for the
    # static shapes of scene files, is soft_contact_* alone). A shape on a body moves with it
    # (soft_contact.py's particle_body_contact, whose reaction the body's threads sum).
    f = wp.vec3(0.0)
    for k in range(worlds.candidate_count(w, shape_count, world_shape_start, num_worlds)):
        s = worlds.candidate(k, w, world_shape_start, world_shape_list, num_worlds)
        b = shape_body[s]
        if b < 0:
            n, d = geo.shape_contact(s, x, radius, shape_body, shape_transform, shape_geo_type, shape_geo_scale,
                                     shape_geo_thickness, shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
            if d < 0.0:
                ws = shape_material_share[s]
                f = f + sc.contact_force(n, v, d, ke + ws * (shape_materials[s, 0] - ke), kd + ws * (shape_materials[s, 1] - kd),
                                         kf + ws * (shape_materials[s, 2] - kf), mu + ws * (shape_materials[s, 4] - mu))
        else:
            fb, xc = sc.particle_body_contact(x, v, radius, s, b, body_q, body_qd, body_com, shape_transform, shape_geo_type,
                                              shape_geo_scale, shape_geo_thickness, shape_bound, shape_sdf_values, shape_sdf_dims,
                                              shape_sdf_origin, shape_sdf_cell, shape_materials, shape_material_share, ke,
                                              kd, kf, mu)
            f = f + fb
    return f


@wp.func
def particle_contacts(
    i: int,
    xi: wp.vec3,
    vi: wp.vec3,
    ri: float,
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    particle_radius: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    particle_world: wp.array(dtype=int),
    inv_cell_size: float,
    nbucket: int,
    capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_particles: wp.array(dtype=int),
    ke: float,
    kd: float,
    kf: float,
    mu: float,
) -> wp.vec3:
    # The particles of i's own world only: particles of two worlds never touch (worlds.py).
    f = wp.vec3(0.0)
    wi = particle_world[i]
    ci = grid.grid_cell(xi, inv_cell_size)
    for dz in range(-1, 2):
        for dy in range(-1, 2):
            for dx in range(-1, 2):
                c = wp.vec3i(ci[0] + dx, ci[1] + dy, ci[2] + dz)
                b = grid.grid_bucket(c, wi, nbucket)
                n = wp.min(bucket_count[b], capacity)
                for s in range(n):
                    j = bucket_particles[b * capacity + s]
                    xj = x[j]
                    if grid.grid_cell_neighbor(i, j, xj, c, inv_cell_size, wi, particle_world[j]) and (particle_flags[j] & sc.PARTICLE_FLAG_ACTIVE) != wp.uint32(0):
                        d_vec = xi - xj
                        d = wp.length(d_vec)
                        err = d - ri - particle_radius[j]
                        if err < 0.0 and d > 0.0:
                            f = f + sc.contact_force(d_vec / d, vi - v[j], err, ke, kd, kf, mu)
    return f


@wp.kernel
def eval_particle_terms(
    x: wp.array(dtype=wp.vec3),
    v: wp.array(dtype=wp.vec3),
    particle_radius: wp.array(dtype=float),
    particle_flags: wp.array(dtype=wp.uint32),
    external_f: wp.array(dtype=wp.vec3),
    has_external_f: int,
    drag: float,
    ground: int,
    ground_plane: wp.vec4,
    soft_ke: float,
    soft_kd: float,
    soft_kf: float,
    soft_mu: float,
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
    shape_bound: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_material_share: wp.array(dtype=float),
    particle_world: wp.array(dtype=int),
    world_shape_start: wp.array(dtype=int),
    world_shape_list: wp.array(dtype=int),
    num_worlds: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    particle_grid: int,
    inv_cell_size: float,
    nbucket: int,
    capacity: int,
    bucket_count: wp.array(dtype=int),
    bucket_particles: wp.array(dtype=int),
    particle_ke: float,
    particle_kd: float,
    particle_kf: float,
    particle_mu: float,
    force_terms: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    f = wp.vec3(0.0)
    if (particle_flags[i] & sc.PARTICLE_FLAG_ACTIVE) != wp.uint32(0):
        xi = x[i]
        vi = v[i]
        ri = particle_radius[i]
        if has_external_f != 0:
            f = f + external_f[i]
        f = f - vi * drag
        if ground != 0:
            n, c = geo.ground_contact(ground_plane, xi, ri)
            if c < 0.0:
                f = f + sc.contact_force(n, vi, c, soft_ke, soft_kd, soft_kf, soft_mu)
        if shape_count > 0:
            f = f + shape_contacts(xi, vi, ri, particle_world[i], shape_body, shape_transform, shape_geo_type, shape_geo_scale,
                                   shape_geo_thickness, shape_count, shape_sdf_values, shape_sdf_dims, shape_sdf_origin,
                                   shape_sdf_cell, shape_bound, shape_materials, shape_material_share, world_shape_start,
                                   world_shape_list, num_worlds, body_q, body_qd, body_com, soft_ke, soft_kd, soft_kf,
                                   soft_mu)
        if particle_grid != 0:
            f = f + particle_contacts(i, xi, vi, ri, x, v, particle_radius, particle_flags, particle_world, inv_cell_size, nbucket,
                                      capacity, bucket_count, bucket_particles, particle_ke, particle_kd, particle_kf,
                                      particle_mu)
    force_terms[i] = f
