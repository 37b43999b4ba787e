// engine/model.h: Model, State and Control of the engine (particles and rigid bodies), under Warp
// 1.9 warp.sim names.
//
// [SECTION] Model    what does not change during a rollout: topology, masses, materials, shapes
// [SECTION] State    what does: positions, velocities, forces (plus per-state scratch, see below)
// [SECTION] Control  inputs of a step: external forces
//
//   ModelBuilder b;                                  // engine/model_builder.h
//   b.add_particle({0, 1, 0}, {0, 0, 0}, 1.0f);
//   Model model = b.finalize("cpu");
//   State s0 = model.state(), s1 = model.state();
//   create_integrator("semi_implicit")->simulate(model, s0, s1, 1.0f / 600, nullptr);  // engine/integrator_registry.h
//
// Arrays are runtime::Array handles on the model's device (copies share memory). Every step writes
// state_out from state_in (out of place), so a rollout that keeps one State per step can be
// differentiated by a Tape that records the launches. Each particle sums its forces itself, in a
// fixed order (kernels/step.py), so results do not depend on the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "engine/smoke_grid.h"
#include "runtime/array.h"

namespace weft::engine {

using runtime::Array;

enum ParticleFlags : uint32_t {
    ParticleFlags_Active = 1u << 0,  // integrated and in contact; inactive particles keep their state
};

// Joint types and drive modes (kernels/joints.py; Warp's numbers).
enum JointType : int {
    JOINT_PRISMATIC = 0,
    JOINT_REVOLUTE = 1,
    JOINT_BALL = 2,
    JOINT_FIXED = 3,
    JOINT_FREE = 4,
    JOINT_COMPOUND = 5,   // three rotation axes
    JOINT_UNIVERSAL = 6,  // two rotation axes
    JOINT_DISTANCE = 7,   // the origins' distance limited (XPBD only, as in Warp); otherwise free
    JOINT_D6 = 8,         // up to three translation and three rotation axes
};
enum JointMode : int { JOINT_MODE_FORCE = 0, JOINT_MODE_TARGET_POSITION = 1, JOINT_MODE_TARGET_VELOCITY = 2 };
// How many coordinates (joint_q) and velocities (joint_qd) a joint of `type` has (Warp's layout);
// `d6_axes` is a D6 joint's number of axes (linear and angular together).
inline std::pair<int, int> joint_coordinate_counts(int type, int d6_axes = 0) {
    switch (type) {
        case JOINT_PRISMATIC:
        case JOINT_REVOLUTE: return {1, 1};
        case JOINT_BALL: return {4, 3};
        case JOINT_FREE:
        case JOINT_DISTANCE: return {7, 6};
        case JOINT_COMPOUND: return {3, 3};
        case JOINT_UNIVERSAL: return {2, 2};
        case JOINT_D6: return {d6_axes, d6_axes};
        default: return {0, 0};
    }
}

// Shape geometry types (kernels/geometry.py; GEO_MESH and GEO_CONE have Warp's numbers, GEO_CYLINDER
// not: Warp's 3 is Weft's plane).
enum GeoType : int { GEO_SPHERE = 0, GEO_BOX = 1, GEO_CAPSULE = 2, GEO_PLANE = 3, GEO_CONE = 4, GEO_MESH = 5, GEO_CYLINDER = 6 };

// The model's element table: every (element, vertex) pair has a number, its slot. Slot i <
// particle_count is particle i itself; the semi-implicit step (kernels/step.py) walks each
// particle's slots to find the elements it belongs to, and XPBD writes each pair's position
// correction to that slot of its deltas array.
struct ForceTermLayout {
    int spring = 0;  // first slot of springs: 2 per spring
    int tri = 0;     // 3 per triangle
    int edge = 0;    // 4 per bending edge
    int tet = 0;     // 4 per tetrahedron
    int count = 0;   // total slots
};

struct State;
struct Control;

// [SECTION] Model
struct Model {
    runtime::Device device;      // where every array lives
    bool requires_grad = false;  // states get gradient arrays; integrators allocate per step

    int particle_count = 0;
    int spring_count = 0;
    int tri_count = 0;
    int edge_count = 0;
    int tet_count = 0;
    int shape_count = 0;
    int body_count = 0;
    int joint_count = 0;
    int distance_joint = -1;  // the first distance joint (only the xpbd integrator simulates them), -1: none

    // particles
    Array particle_q;                    // initial positions, vec3 (particle_count)
    Array particle_qd;                   // initial velocities, vec3 (particle_count)
    Array particle_mass;                 // kg, float (particle_count); 0 = kinematic
    Array particle_inv_mass;             // 1/kg, float (particle_count); 0 for kinematic particles
    Array particle_radius;               // m, float (particle_count)
    Array particle_flags;                // ParticleFlags, uint32 (particle_count)
    float particle_max_radius = 0.0f;    // m, largest particle_radius
    float particle_max_velocity = 1e5f;  // m/s, speeds are clamped to this
    float particle_drag = 0.0f;          // N s/m, linear drag f = -drag v on every particle (semi-implicit only)

    // particle-particle contact (semi-implicit: penalty; XPBD: particle_mu only)
    bool particle_contact = false;    // build the hash grid and collide particles with each other
    float particle_ke = 1.0e3f;       // N/m, normal stiffness
    float particle_kd = 1.0e2f;       // N s/m, normal damping (while approaching)
    float particle_kf = 1.0e2f;       // N s/m, friction stiffness (viscous friction below the Coulomb limit)
    float particle_mu = 0.5f;         // Coulomb friction coefficient
    float particle_grid_cell = 0.0f;  // m, cell side of the hash grid (2 particle_max_radius)
    int particle_grid_buckets = 0;    // hash buckets (a power of two)
    int particle_grid_capacity = 16;  // particles kept per bucket; more are dropped (counted)

    // springs
    Array spring_indices;      // int32 (2 spring_count): i, j of each spring
    Array spring_rest_length;  // m, float (spring_count)
    Array spring_stiffness;    // N/m, float (spring_count)
    Array spring_damping;      // N s/m, float (spring_count)

    // triangles (cloth membranes)
    Array tri_indices;      // int32 (tri_count x 3)
    Array tri_poses;        // mat22 (tri_count): inverse rest shape in the triangle's frame
    Array tri_activations;  // float (tri_count): added to the area ratio's target
    Array tri_materials;    // float (tri_count x 5): k_mu, k_lambda, k_damp, drag, lift
    Array tri_areas;        // m^2, float (tri_count): rest areas

    // bending edges
    Array edge_indices;             // int32 (edge_count x 4): opposite i, opposite j, edge k, edge l
    Array edge_rest_angle;          // rad, float (edge_count)
    Array edge_bending_properties;  // float (edge_count x 2): ke (N m/rad), kd

    // tetrahedra (soft bodies)
    Array tet_indices;  // int32 (tet_count x 4)
    int tet_surface_count = 0;
    Array tet_surface_indices;  // int32 (tet_surface_count x 3): the faces no two tetrahedra share, wound
                                //   outward in the initial positions (engine/topology.h), for drawing
    Array tet_poses;            // mat33 (tet_count): inverse rest shape
    Array tet_activations;      // float (tet_count)
    Array tet_materials;        // float (tet_count x 3): k_mu, k_lambda (Pa), k_damp

    // collision shapes: static (shape_body -1) or on a rigid body
    Array shape_body;           // int32 (shape_count): the body a shape is attached to, -1 = static
    Array shape_transform;      // transform (shape_count): shape frame in the world (static shapes) or in its body's frame
    Array shape_geo_type;       // GeoType, int32 (shape_count)
    Array shape_geo_scale;      // vec3 (shape_count): sphere r; box half extents; capsule/cylinder/cone r, half h; mesh scale
    Array shape_geo_thickness;  // m, float (shape_count): added to the shape's surface
    Array shape_materials;      // float (shape_count x 6): ke (N/m), kd (N s/m), kf (N s/m), ka (m), mu, restitution
                                //   (rigid contact; a pair uses the mean of its two shapes', as Warp)

    // Warp's collision filtering of body contact (ModelBuilder::set_shape_collision): int32
    // (max(shape_count, 1)) each; the filtered partners of shape s are
    // shape_filter_list[shape_filter_start[s] .. shape_filter_start[s + 1]] (both directions).
    Array shape_collision_group;  // -1: collides with every group
    Array shape_collision_flags;  // 1: with the ground, 2: with other shapes
    Array shape_filter_start;     // int32 (shape_count + 1)
    Array shape_filter_list;      // int32 (max(2 x pairs, 1))

    // float (shape_count): weight of a shape's ke/kd/kf/mu in particle contact against soft_contact_*:
    // 0.5 = Warp's average (shapes given a material), 0 = soft_contact_* alone (scene files' static shapes)
    Array shape_material_share;

    // The broad phase and the contact points of body contact (finalize's upload_shape_points).
    Array shape_bound;  // m, float (max(shape_count, 1)): radius about the shape's origin holding the shape,
                        //   its contact points and thickness; -1 = unbounded (planes)
    int shape_point_count = 0;
    Array shape_point_start;  // int32 (shape_count + 1): mesh shape s on a body has the contact points
                              //   shape_points[start[s] .. start[s+1]-1]; the other shapes' are analytic
    Array shape_points;       // vec4 (max(shape_point_count, 1)): x, y, z in the shape frame (scaled), radius

    // signed distance grids of the mesh shapes (engine/mesh_sdf.h), packed one after another
    int shape_sdf_size = 0;  // nodes of every grid together
    Array shape_sdf_values;  // vec4 (max(shape_sdf_size, 1)): node gradient (x, y, z) and signed
                             //   distance (w, m); node (i, j, k) of shape s at
                             //   shape_sdf_dims[s, 0] + (k ny + j) nx + i
    Array shape_sdf_dims;    // int32 (shape_count x 4): first node, nx, ny, nz; zeros for other shapes
    Array shape_sdf_origin;  // vec3 (shape_count): node (0, 0, 0) in the shape frame (scaled)
    Array shape_sdf_cell;    // m, float (shape_count): node spacing

    // ground and soft contact (particle-ground and particle-shape)
    bool ground = true;                                         // collide particles with the ground plane
    std::array<float, 4> ground_plane{0.0f, 1.0f, 0.0f, 0.0f};  // (n, d): the plane n.x + d = 0, n up
    float soft_contact_ke = 1.0e3f;                             // N/m, normal stiffness
    float soft_contact_kd = 1.0e1f;                             // N s/m, normal damping (while approaching)
    float soft_contact_kf = 1.0e3f;                             // N s/m, friction stiffness
    float soft_contact_mu = 0.5f;                               // Coulomb friction coefficient

    std::array<float, 3> gravity{0.0f, -9.80665f, 0.0f};  // m/s^2

    // rigid bodies (kernels/rigid.py): a body's frame is body_q; its centre of mass body_com (in
    // that frame); body_qd = (w, v), angular velocity and centre-of-mass velocity in the world
    Array body_q;             // initial poses, transform (body_count)
    Array body_qd;            // initial velocities, spatial_vector (body_count)
    Array body_com;           // m, vec3 (body_count): centre of mass in the body frame
    Array body_mass;          // kg, float (body_count); 0 = kinematic (moves at its velocity)
    Array body_inv_mass;      // 1/kg, float (body_count)
    Array body_inertia;       // kg m^2, mat33 (body_count): about the centre of mass, body frame
    Array body_inv_inertia;   // mat33 (body_count); zero for kinematic bodies
    int num_worlds = 0;       // worlds made by ModelBuilder::add_builder
    Array shape_world;        // int32 (max(shape_count, 1)): the shape's world, -1 = touches every world
    Array body_world;         // int32 (max(body_count, 1)): the body's world, -1 = every world
    Array body_order;         // int32 (max(body_count, 1)): the bodies by their index within their world, then
                              //   by world (shared ones first): the same body of every world side by side,
                              //   the thread order of XPBD's contact slots (kernels/xpbd_contacts.py)
    Array world_shape_start;  // int32 (num_worlds + 2): world w's shapes are world_shape_list[start[w] ..
                              // start[w+1]-1]; entry num_worlds holds the shared shapes (world -1)
    Array world_shape_list;   // int32 (max(shape_count, 1))
    // The most shapes one body's contact pass walks (kernels/worlds.py candidate_count): every shape
    // when a body is shared (world -1), else the largest world's shapes plus the shared ones.
    int max_shape_candidates = 0;
    // The body broad phase (engine/broad_phase.h, kernels/broad_phase.py): a hash grid of the shapes'
    // bounding spheres, built by kernels from the poses of each contact evaluation, from which every
    // body gathers the candidates it may touch, in the order of its walk above (so that the contact
    // sums keep their bits). finalize sets it up for every model with bodies and turns it on where a
    // body would walk more than broad_phase_min_candidates shapes; a body whose list would overflow,
    // or that a full bucket hides shapes from, walks every candidate as without it.
    bool body_broad_phase = false;
    int broad_phase_min_candidates = 64;
    float shape_grid_cell = 0.0f;      // m, cell side without a margin: 2 x the largest gridded reach
    int shape_grid_buckets = 0;        // hash buckets (a power of two); 0 = not set up
    int shape_grid_capacity = 16;      // shapes per bucket
    int body_candidate_capacity = 32;  // candidates one body's list holds
    Array shape_large;                 // int32 (max(shape_count, 1)): 1 = not in the grid (planes, and reaches above half
                                       //   the cell): every body of its worlds tests it
    Array world_large_start;           // int32 (num_worlds + 2): the large shapes grouped by world, as world_shape_start
    Array world_large_list;            // int32 (max(large shapes, 1))
    Array shape_world_pos;             // int32 (max(shape_count, 1)): the shape's position in its world's group

    Array body_shape_start;  // int32 (body_count + 1): body b's shapes are body_shape_list[start[b] .. start[b+1]-1]
    Array body_shape_list;   // int32 (max(shapes on bodies, 1))

    // particles by world, and their contact with body shapes (kernels/soft_contact.py): the body
    // side sums its pairs (shape, particle of the shape's world) in chunks, one thread each
    Array particle_world;               // int32 (max(particle_count, 1)): the particle's world, -1 = every world
    Array world_particle_start;         // int32 (num_worlds + 2): particles grouped by world, as world_shape_start
    Array world_particle_list;          // int32 (max(particle_count, 1))
    int particle_body_chunks = 0;       // chunks per body (the most any body needs); 0 = no such pairs
    int particle_pairs_per_chunk = 32;  // pairs one thread sums

    // joints between bodies (maximal coordinates, Warp's semi-implicit joint model): joint j pulls
    // its parent's frame body_q[parent] * joint_X_p towards its child's body_q[child] * joint_X_c
    // with the attachment stiffness, leaving free what its type allows. Per-joint arrays have
    // max(joint_count, 1) entries (a kernel needs an array even of no joints).
    //
    // Axes: joint j's axes are slots joint_axis_start[j] .. joint_axis_start[j+1]-1 of the per-axis
    // arrays, its linear axes first (joint_axis_dim[j, 0] of them), then its angular ones
    // (joint_axis_dim[j, 1]): prismatic (1, 0), revolute (0, 1), universal (0, 2), compound (0, 3),
    // D6 (n, m). A joint without axes (ball, fixed, free, a D6 of none) still has one unused slot
    // (Warp's have none), so a model whose joints have at most one axis indexes joint_act by joint.
    int joint_axis_count = 0;        // axis slots (entries of joint_act)
    Array joint_type;                // JointType, int32 (joint_count)
    Array joint_parent;              // int32 (joint_count): -1 = the world
    Array joint_child;               // int32 (joint_count)
    Array joint_X_p;                 // transform (joint_count): the joint frame in the parent's frame (world for -1)
    Array joint_X_c;                 // transform (joint_count): the joint frame in the child's frame
    Array joint_axis_start;          // int32 (joint_count + 1): the joint's first axis slot
    Array joint_axis_dim;            // int32 (joint_count x 2): linear, angular axis counts
    Array joint_axis;                // vec3 (joint_axis_count): unit axis in the joint frame
    Array joint_mode;                // JointMode, int32 (joint_axis_count): what joint_act means
    Array joint_act;                 // float (joint_axis_count): initial drive input (Control::joint_act overrides)
    Array joint_target_ke;           // float (joint_axis_count): drive stiffness (N m/rad or N/m)
    Array joint_target_kd;           // float (joint_axis_count): drive damping
    Array joint_limit_lower;         // float (joint_axis_count): rad or m
    Array joint_limit_upper;         // float (joint_axis_count)
    Array joint_limit_ke;            // float (joint_axis_count)
    Array joint_limit_kd;            // float (joint_axis_count)
    Array joint_collision_filter;    // int32 (joint_count): 1 = the parent's and child's shapes do not collide
    Array joint_linear_compliance;   // float (joint_count): XPBD compliance of the held linear parts and limits (m/N)
    Array joint_angular_compliance;  // float (joint_count): the same, angular (rad/(N m))
    Array body_joint_start;          // int32 (body_count + 1): body b's joints are body_joint_list[start[b] ..]
    Array body_joint_list;           // int32 (max(2 joint_count, 1))
    // reduced coordinates (engine/kinematics.h eval_fk / eval_ik; layout in model_builder.h)
    int joint_coord_count = 0;  // entries of joint_q
    int joint_dof_count = 0;    // entries of joint_qd
    int articulation_count = 0;
    Array joint_q;             // float (max(joint_coord_count, 1)): initial coordinates
    Array joint_qd;            // float (max(joint_dof_count, 1)): initial velocities
    Array joint_q_start;       // int32 (joint_count + 1)
    Array joint_qd_start;      // int32 (joint_count + 1)
    Array articulation_start;  // int32 (articulation_count + 1): joints of articulation a
    // For reduced-coordinate dynamics (engine/featherstone.h): each dof's armature (kg m^2 or kg,
    // added to the mass matrix's diagonal; the joint's `armature`), the joint each dof belongs to,
    // the joint whose child each body is, and where articulation a's dense dof x dof matrix starts
    // in a per-model array of articulation_mass_size floats.
    Array joint_armature;            // float (max(joint_dof_count, 1))
    Array dof_joint;                 // int32 (max(joint_dof_count, 1))
    Array body_parent_joint;         // int32 (max(body_count, 1)): -1 = the child of no joint
    Array articulation_mass_start;   // int32 (articulation_count + 1)
    int articulation_mass_size = 0;  // sum over articulations of dofs^2
    float joint_attach_ke = 1.0e3f;  // N/m (and N m/rad): the attachment's stiffness (Warp's default)
    float joint_attach_kd = 1.0e2f;  // N s/m: its damping (angular: 1% of it, as Warp)

    // the ground's contact material with body shapes (Warp's ground shape parameters)
    float ground_ke = 1.0e5f, ground_kd = 1.0e3f, ground_kf = 1.0e3f, ground_mu = 0.5f, ground_restitution = 0.0f;

    // the Eulerian smoke grid (engine/smoke_grid.h, docs/smoke.md); smoke.nx == 0: none
    SmokeGrid smoke;
    // MLS-MPM (engine/mpm.h): particles made by MPM volumes (engine/mpm_defs.h) on a dense grid of
    // (mpm_cells + 1) nodes along each axis, node (i, j, k) at mpm_lo + (i, j, k) mpm_dx
    int mpm_particle_count = 0;                     // particles with an MPM material; 0 = no MPM arrays
    std::array<int, 3> mpm_cells{0, 0, 0};          // grid cells along x, y, z
    std::array<float, 3> mpm_lo{0.0f, 0.0f, 0.0f};  // m, the domain's lower corner
    float mpm_dx = 0.0f;                            // m, cell side
    int mpm_boundary = 0;                           // MpmBoundary: walls of the domain box
    int mpm_floor_boundary = -1;                    // MpmBoundary of the -y wall; -1 = mpm_boundary
    int mpm_boundary_cells = 3;                     // nodes within this many cells of a wall obey it
    Array mpm_material;                             // MpmMaterial, int32 (particle_count); -1 = not an MPM particle
    Array mpm_params;                               // float (particle_count x 5): mu, lambda (Pa), then sand: alpha;
                                                    //   snow: theta_c, theta_s, xi; fluid: -, K (Pa)
    Array mpm_volume;                               // m^3, float (particle_count): rest volume

    // the element table: for particle i, its slots term_index[term_start[i] .. term_start[i+1]-1]
    ForceTermLayout term_layout;
    Array particle_term_start;  // int32 (particle_count + 1)
    Array particle_term_index;  // int32 (term_layout.count - particle_count)
    // The springs of each particle, in spring order (CSR): the semi-implicit solver sums them per
    // particle (kernels/springs.py) instead of going through force slots. A particle's spring slots
    // are the first (spring_start[i+1] - spring_start[i]) entries of its term_index list.
    Array particle_spring_start;  // int32 (particle_count + 1)
    Array particle_spring_list;   // int32 (2 spring_count): spring ids
    Array particle_spring_other;  // int32 (2 spring_count): the spring's other particle
    // The same lists column by column (ELL): entry k of particle i at [k * particle_count + i],
    // -1 past its last spring, so the threads of a warp read consecutive words. Used when the
    // padding costs at most 2x the lists (particle_spring_width > 0), as in grids and cloth.
    int particle_spring_width = 0;    // the most springs of one particle; 0: CSR only
    Array particle_spring_ell_list;   // int32 (width x particle_count)
    Array particle_spring_ell_other;  // int32 (width x particle_count)

    // A new State holding the model's initial positions and velocities (copies).
    State state(int requires_grad = -1) const;  // -1: the model's requires_grad
    Control control() const;
};

// [SECTION] State
struct State {
    int particle_count = 0;
    int body_count = 0;
    Array particle_q;   // positions, vec3 (particle_count)
    Array particle_qd;  // velocities, vec3 (particle_count)
    Array particle_f;   // total force of the (semi-implicit) step that wrote this state, vec3
                        // (particle_count); an output, without a gradient even under requires_grad

    Array body_q;   // body poses, transform (body_count)
    Array body_qd;  // body velocities (w, v), spatial_vector (body_count)
    Array body_f;   // total wrench (torque about the centre of mass, force; world frame) of the step
                    // that wrote this state, spatial_vector (body_count); an output, as particle_f

    // Reduced coordinates (models with joints; Warp's State.joint_q / joint_qd): the Featherstone
    // integrator reads and writes them (and body_q, body_qd from them); the maximal-coordinate
    // integrators leave them as they are (eval_ik recovers them from body_q, body_qd).
    Array joint_q;   // float (max(joint_coord_count, 1))
    Array joint_qd;  // float (max(joint_dof_count, 1))

    // MLS-MPM particles (models with mpm_particle_count > 0; empty otherwise)
    Array mpm_F;   // deformation gradient (elastic part), mat33 (particle_count); identity at rest
    Array mpm_C;   // APIC affine velocity field, mat33 (particle_count)
    Array mpm_Jp;  // plastic volume ratio (sand, snow; 1 for the others), float (particle_count)

    // Scratch written by the step that wrote this state (kept per state so a recorded rollout
    // can be replayed backwards; a step never writes its state_in): the particle hash grid,
    // built from the step's starting (semi-implicit) or predicted (XPBD) positions.
    Array grid_bucket_count;      // int32 (particle_grid_buckets); empty without particle contact
    Array grid_bucket_particles;  // int32 (buckets x capacity)

    // The smoke grid's fields (engine/smoke_grid.h); empty without one.
    Array smoke_density;  // float (nx ny nz), at cell centres
    Array smoke_u;        // m/s, float ((nx + 1) ny nz), x velocity on the x faces
    Array smoke_v;        // m/s, float (nx (ny + 1) nz)
    Array smoke_w;        // m/s, float (nx ny (nz + 1))

    // Zeroes particle_f and body_f (Warp's idiom before a step; Weft's integrators do not read it). While a
    // Tape records, a force that a recorded step wrote (its backward reads it) is left as it is
    // instead, so that the rollout stays differentiable and allocates nothing (CUDA graph capture).
    void clear_forces();
};

// [SECTION] Control
struct Control {
    Array particle_f;  // external forces, vec3 (particle_count); empty = none
    Array body_f;      // external wrenches (torque about the centre of mass, force; world frame),
                       // spatial_vector (body_count); empty = none
    Array joint_act;   // drive inputs, float (joint_axis_count: one per axis slot); empty = the model's joint_act
};

// Element types of the model's arrays.
compiler::Type vec3_type();
compiler::Type vec4_type();
compiler::Type transform_type();
compiler::Type spatial_vector_type();
compiler::Type mat33_type();

}  // namespace weft::engine
