"""Soft contact of the semi-implicit solver: the penalty force law of every particle contact, and
the contact of a particle with a shape on a rigid body (Warp's eval_particle_contacts).

Force law (contact_force). With penetration c < 0 along the contact normal n and relative
velocity v: normal force fn = ke c + kd min(v.n, 0) (damping only while approaching), friction
ft = min(kf |v_t|, mu |fn|) against the tangential velocity, force = -n fn - t ft.

Particle and body shape (particle_body_contact). Particle x (radius r, velocity v) against shape s
of body b, placed at body_q[b] * shape_transform[s]: the shape's signed distance at x gives the
normal n and the gap c (geometry.py's shape_contact_at, with the shape's thickness); in contact
(c < 0) the force acts at xc = x - n (c + r), the point of the shape's thickened surface nearest
the particle, and v is taken relative to the body's velocity at xc. The material is
soft_contact_* moved towards the shape's own ke, kd, kf, mu by shape_material_share[s] (0.5, Warp's
average, for shapes on bodies). The particle gets f, the body -f at xc.

Both sides call particle_body_contact with the same arguments: the particle's thread
(contact.py's eval_particle_terms, summing its own contacts) and the body's gather threads
(rigid.py's eval_body_particle_contacts, each summing the reactions of a fixed range of pairs), so
the pair's two forces are equal and opposite and no atomics are needed.
"""
import weft as wp
import geometry as geo

PARTICLE_FLAG_ACTIVE = wp.constant(wp.uint32(1))  # (engine/model.h ParticleFlags_Active)


@wp.func
def contact_force(n: wp.vec3, v: wp.vec3, c: float, ke: float, kd: float, kf: float, mu: float) -> wp.vec3:
    vn = wp.dot(n, v)
    fn = c * ke + wp.min(vn, 0.0) * kd
    vt = v - n * vn
    vs = wp.length(vt)
    # Viscous below the Coulomb limit (kf vt), capped at mu |fn| along vt above it. Written without
    # normalising vt in the viscous regime, so that the derivative at vt = 0 (a particle moving
    # straight along the normal, or at rest) is the viscous -kf I and not the 0 that the
    # derivative of length() gives there.
    ft_max = mu * wp.abs(fn)
    ft = vt * kf
    if vs * kf > ft_max:
        ft = vt * (ft_max / vs)
    return -n * fn - ft


@wp.func
def particle_body_contact(
    x: wp.vec3,
    v: wp.vec3,
    radius: float,
    s: int,
    b: int,
    body_q: wp.array(dtype=wp.transform),
    body_qd: wp.array(dtype=wp.spatial_vector),
    body_com: wp.array(dtype=wp.vec3),
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_bound: wp.array(dtype=float),
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
    shape_materials: wp.array2d(dtype=float),
    shape_material_share: wp.array(dtype=float),
    ke: float,
    kd: float,
    kf: float,
    mu: float,
):
    # The force on particle x from shape s of body b, and the point xc where it acts (x where
    # there is no contact). A particle outside the shape's bounding sphere is skipped before the
    # narrow phase; it would have had c >= 0, so the skip changes no result.
    Xb = body_q[b]
    X = Xb * shape_transform[s]
    f = wp.vec3(0.0)
    xc = x
    reach = shape_bound[s]
    if reach < 0.0 or wp.length(x - wp.transform_get_translation(X)) < reach + radius:
        n, c = geo.shape_contact_at(X, s, x, radius, 0.0, shape_geo_type, shape_geo_scale, shape_geo_thickness,
                                    shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
        if c < 0.0:
            xc = x - n * (c + radius)
            qd = body_qd[b]
            vb = wp.spatial_bottom(qd) + wp.cross(wp.spatial_top(qd), xc - wp.transform_point(Xb, body_com[b]))
            w = shape_material_share[s]
            f = contact_force(n, v - vb, c, ke + w * (shape_materials[s, 0] - ke), kd + w * (shape_materials[s, 1] - kd),
                              kf + w * (shape_materials[s, 2] - kf), mu + w * (shape_materials[s, 4] - mu))
    return f, xc
