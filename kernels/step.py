"""One semi-implicit Euler step of every particle, as one kernel.

Particle i sums, in a fixed order, its own force (external, drag, contacts: contact.py), the
forces of its springs (springs.py), and the forces on it of each triangle, bending edge and
tetrahedron it belongs to (triangles.py, bending.py, tetrahedra.py: an element is evaluated
once per vertex), then integrates (particles.py). No float atomics, so results do not depend on
the thread count; no per-element force slots, so a recorded rollout keeps only positions,
velocities and forces per step (the elements' forces are recomputed by the adjoint).

The elements of particle i after its springs are the entries term_index[term_start[i] +
nsprings .. term_start[i + 1] - 1] of the model's element table (engine/model.h), in element
order: an entry e encodes a triangle corner (tri <= e < edge: 3 per triangle), a bending-edge
corner (edge <= e < tet: 4 per edge) or a tetrahedron corner (tet <= e: 4 per tet).
"""
import weft as wp
import contact
import springs
import triangles
import bending
import tetrahedra
import particles


@wp.kernel
def step_particles(
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
    shape_transform: wp.array(dtype=wp.transform),
    shape_geo_type: wp.array(dtype=int),
    shape_geo_scale: wp.array(dtype=wp.vec3),
    shape_geo_thickness: wp.array(dtype=float),
    shape_count: int,
    shape_sdf_values: wp.array(dtype=wp.vec4),
    shape_sdf_dims: wp.array2d(dtype=int),
    shape_sdf_origin: wp.array(dtype=wp.vec3),
    shape_sdf_cell: wp.array(dtype=float),
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
    spring_start: wp.array(dtype=int),
    spring_list: wp.array(dtype=int),
    spring_other: wp.array(dtype=int),
    spring_width: int,
    spring_ell_list: wp.array(dtype=int),
    spring_ell_other: wp.array(dtype=int),
    spring_rest_length: wp.array(dtype=float),
    spring_stiffness: wp.array(dtype=float),
    spring_damping: wp.array(dtype=float),
    term_start: wp.array(dtype=int),
    term_index: wp.array(dtype=int),
    first_tri: int,
    first_edge: int,
    first_tet: int,
    tri_indices: wp.array2d(dtype=int),
    tri_poses: wp.array(dtype=wp.mat22),
    tri_activations: wp.array(dtype=float),
    tri_materials: wp.array2d(dtype=float),
    edge_indices: wp.array2d(dtype=int),
    edge_rest_angle: wp.array(dtype=float),
    edge_bending_properties: wp.array2d(dtype=float),
    tet_indices: wp.array2d(dtype=int),
    tet_poses: wp.array(dtype=wp.mat33),
    tet_activations: wp.array(dtype=float),
    tet_materials: wp.array2d(dtype=float),
    inv_mass: wp.array(dtype=float),
    gravity: wp.vec3,
    dt: float,
    v_max: float,
    particle_f: wp.array(dtype=wp.vec3),
    x_new: wp.array(dtype=wp.vec3),
    v_new: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    f = contact.particle_own_force(i, x, v, particle_radius, particle_flags, external_f, has_external_f, drag, ground,
                                   ground_plane, soft_ke, soft_kd, soft_kf, soft_mu, shape_transform, shape_geo_type,
                                   shape_geo_scale, shape_geo_thickness, shape_count, shape_sdf_values, shape_sdf_dims,
                                   shape_sdf_origin, shape_sdf_cell, particle_grid, inv_cell_size, nbucket, capacity,
                                   bucket_count, bucket_particles, particle_ke, particle_kd, particle_kf, particle_mu)
    f = springs.add_springs(f, i, x, v, spring_start, spring_list, spring_other, spring_width, spring_ell_list,
                            spring_ell_other, spring_rest_length, spring_stiffness, spring_damping)
    nsprings = spring_start[i + 1] - spring_start[i]
    for k in range(term_start[i] + nsprings, term_start[i + 1]):
        e = term_index[k]
        if e < first_edge:
            f = f + triangles.triangle_force(x, v, tri_indices, tri_poses, tri_activations, tri_materials,
                                             (e - first_tri) // 3, (e - first_tri) % 3)
        elif e < first_tet:
            f = f + bending.bending_force(x, v, edge_indices, edge_rest_angle, edge_bending_properties,
                                          (e - first_edge) // 4, (e - first_edge) % 4)
        else:
            f = f + tetrahedra.tetrahedron_force(x, v, tet_indices, tet_poses, tet_activations, tet_materials,
                                                 (e - first_tet) // 4, (e - first_tet) % 4)
    particle_f[i] = f
    particles.integrate_particle(i, x, v, f, inv_mass, particle_flags, gravity, dt, v_max, x_new, v_new)
