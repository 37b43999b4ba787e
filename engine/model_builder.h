// engine/model_builder.h: builds a Model on the host (Eigen), then uploads it with finalize().
//
// Warp 1.9 warp.sim names and defaults: add_particle, add_spring, add_triangle, add_edge,
// add_tetrahedron, add_cloth_grid, add_soft_grid, add_shape_sphere/box/capsule/plane/mesh (static
// shapes), add_body and add_shape_sphere/box/capsule(body, ...) (rigid bodies and their shapes,
// whose density gives the body its mass and inertia, engine/body_inertia.h), set_ground_plane,
// finalize(device, requires_grad). A mesh shape keeps its Mesh here;
// finalize() samples its signed distance field on a grid (engine/mesh_sdf.h). Rest shapes, inverse rest matrices
// (tri_poses, tet_poses), rest lengths, dihedral rest angles and masses are computed here in
// double precision and stored as float. Keyword arguments of Warp's grid builders become fields
// of ClothGridDef / SoftGridDef with the same names and defaults.
//
// Mistakes (a degenerate triangle, an index out of range, a negative mass, a NaN or infinite
// parameter) throw BuildError naming the call, the argument and the value.
#pragma once

#include <cmath>
#include <set>
#include <utility>
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/body_inertia.h"
#include "engine/mesh_sdf.h"
#include "engine/mpm_defs.h"
#include "engine/model.h"
#include "engine/smoke_grid.h"

namespace weft::engine {

using Vec3 = Eigen::Vector3f;
using Quat = Eigen::Quaternionf;

struct BuildError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A tetrahedron whose rest volume is below this (m^3) is degenerate: its inverse rest shape is not usable.
inline constexpr double kMinTetVolume = 1e-15;

struct ClothGridDef {
    Vec3 pos = Vec3::Zero();             // m, position of the grid's first corner
    Quat rot = Quat::Identity();         // the grid lies in the local x-y plane
    Vec3 vel = Vec3::Zero();             // m/s, initial velocity of every particle
    int dim_x = 1, dim_y = 1;            // cells; (dim_x + 1) (dim_y + 1) particles
    float cell_x = 0.1f, cell_y = 0.1f;  // m
    float mass = 0.1f;                   // kg per particle
    bool reverse_winding = false;
    bool fix_left = false, fix_right = false, fix_top = false, fix_bottom = false;  // mass 0 edges
    float tri_ke = 100.0f, tri_ka = 100.0f, tri_kd = 10.0f, tri_drag = 0.0f, tri_lift = 0.0f;
    float edge_ke = 100.0f, edge_kd = 0.0f;  // bending
    bool add_springs = false;                // structural + shear + bending springs as well (XPBD cloth)
    float spring_ke = 100.0f, spring_kd = 0.0f;
    float particle_radius = -1.0f;  // m; < 0: the builder's default_particle_radius
};

struct SoftGridDef {
    Vec3 pos = Vec3::Zero();
    Quat rot = Quat::Identity();
    Vec3 vel = Vec3::Zero();
    int dim_x = 1, dim_y = 1, dim_z = 1;  // cells; 5 tetrahedra per cell
    float cell_x = 0.1f, cell_y = 0.1f, cell_z = 0.1f;
    float density = 1000.0f;                                // kg/m^3: each particle gets density * cell volume
    float k_mu = 1.0e3f, k_lambda = 1.0e3f, k_damp = 0.0f;  // Pa, Pa, s
    bool fix_left = false, fix_right = false, fix_top = false, fix_bottom = false;
    float particle_radius = -1.0f;
};

// Optional parameters of a shape on a body (Warp's add_shape_* keywords); NaN = the builder's
// default_shape_* value.
struct ShapeParams {
    float density = NAN;      // kg/m^3; 0 adds no mass
    float ke = NAN;           // N/m, contact stiffness
    float kd = NAN;           // N s/m, contact damping (while approaching)
    float kf = NAN;           // N s/m, friction stiffness (viscous below the Coulomb limit)
    float ka = NAN;           // m, adhesion distance: attraction ke c for gaps 0 <= c < ka
    float mu = NAN;           // Coulomb friction coefficient
    float restitution = NAN;  // kept in the model for solvers that use it (the semi-implicit one does not, as in Warp)
    float thickness = NAN;    // m, added to the shape's surface for contact (not for mass)
};

// A joint's one degree of freedom (revolute, prismatic): Warp's add_joint_* keywords and defaults.
// A joint frame: a position and a rotation in a body's frame (or the world's).
struct JointFrame {
    Vec3 p = Vec3::Zero();
    Quat q = Quat::Identity();
};

class ModelBuilder;
// The first joint of each articulation of `b`, then joint_count() (articulation a's joints are
// [s[a], s[a+1])): the joints before the first add_articulation() form one; empty ones are dropped.
std::vector<int> articulation_starts(const ModelBuilder& b);

// One axis of a joint (Warp's JointAxis): its direction, drive and limits. Revolute and
// prismatic joints have one, universal two, compound three, D6 up to three linear and three
// angular ones.
struct JointAxisDef {
    Vec3 axis = Vec3(1, 0, 0);  // in the joint frame (normalised)
    float target = 0.0f;        // initial joint_act: a target position or velocity, or a force (by mode)
    float target_ke = 0.0f, target_kd = 0.0f;
    int mode = JOINT_MODE_FORCE;                 // JointMode
    float limit_lower = NAN, limit_upper = NAN;  // rad or m; NaN: +-2 pi rad (angular axes), +-1e4 m (linear axes)
    float limit_ke = NAN, limit_kd = NAN;        // NaN: default_joint_limit_ke / kd
};

// A particle grid in the x-z plane held by springs: the cloth benchmark of issue 8. Structural
// springs to the +1 neighbours along x and z, bending springs to the +2 neighbours, shear springs
// along both diagonals; `fix_corners` gives the two corners of the first row mass 0.
struct SpringGridDef {
    Vec3 pos = Vec3::Zero();         // m, the first particle
    int dim_x = 32, dim_z = 32;      // particles along x and z
    float spacing = 0.1f;            // m
    float mass = 0.1f;               // kg per particle
    float ke = 1000.0f, kd = 10.0f;  // every spring
    bool fix_corners = true;
    float particle_radius = -1.0f;
};

class ModelBuilder {
public:
    // Warp's ModelBuilder(up_vector, gravity): gravity (m/s^2, signed) along up_vector.
    explicit ModelBuilder(float gravity = -9.80665f, Vec3 up_vector = Vec3(0, 1, 0));

    // [SECTION] Defaults (Warp's)
    float default_particle_radius = 0.1f;
    float default_spring_ke = 100.0f, default_spring_kd = 0.0f;
    float default_tri_ke = 100.0f, default_tri_ka = 100.0f, default_tri_kd = 10.0f;
    float default_edge_ke = 100.0f, default_edge_kd = 0.0f;

    // [SECTION] Contact parameters copied into the Model
    float soft_contact_ke = 1.0e3f, soft_contact_kd = 1.0e1f, soft_contact_kf = 1.0e3f, soft_contact_mu = 0.5f;
    float particle_ke = 1.0e3f, particle_kd = 1.0e2f, particle_kf = 1.0e2f, particle_mu = 0.5f;
    bool particle_contact = false;  // particle-particle contact through the hash grid
    float particle_drag = 0.0f;
    float particle_max_velocity = 1.0e5f;
    bool ground = true;
    // the ground's material against body shapes (Warp's set_ground_plane(ke=..., ...))
    float ground_ke = 1.0e5f, ground_kd = 1.0e3f, ground_kf = 1.0e3f, ground_mu = 0.5f, ground_restitution = 0.0f;
    SmokeDef smoke;  // the Eulerian smoke grid (engine/smoke_grid.h); resolution 0 = none

    // [SECTION] Shape defaults for shapes on bodies (Warp's default_shape_*)
    float default_shape_ke = 1.0e5f, default_shape_kd = 1000.0f, default_shape_kf = 1000.0f, default_shape_ka = 0.0f;
    float default_shape_mu = 0.5f, default_shape_restitution = 0.0f, default_shape_density = 1000.0f;
    float default_shape_thickness = 1e-5f;

    // [SECTION] Particles and elements; each returns the new element's index (or its rest measure)
    int add_particle(const Vec3& pos, const Vec3& vel, float mass, float radius = -1.0f, uint32_t flags = ParticleFlags_Active);
    int add_spring(int i, int j, float ke, float kd, float rest_length = -1.0f);  // rest < 0: current distance
    float add_triangle(int i, int j, int k, float tri_ke = -1, float tri_ka = -1, float tri_kd = -1, float tri_drag = 0.0f,
                       float tri_lift = 0.0f);  // returns the rest area; -1: defaults
    int add_edge(int i, int j, int k, int l, float rest = NAN, float edge_ke = -1, float edge_kd = -1);
    float add_tetrahedron(int i, int j, int k, int l, float k_mu = 1.0e3f, float k_lambda = 1.0e3f,
                          float k_damp = 0.0f);  // returns the rest volume; reorders i..l if inverted
    void add_cloth_grid(const ClothGridDef& def);
    void add_soft_grid(const SoftGridDef& def);
    void add_spring_grid(const SpringGridDef& def);

    // [SECTION] Static shapes (body = -1 in Warp's terms)
    int add_shape_sphere(const Vec3& pos, float radius, const Quat& rot = Quat::Identity(), float thickness = 0.0f);
    int add_shape_box(const Vec3& pos, float hx, float hy, float hz, const Quat& rot = Quat::Identity(), float thickness = 0.0f);
    int add_shape_capsule(const Vec3& pos, float radius, float half_height, const Quat& rot = Quat::Identity(),
                          float thickness = 0.0f);  // axis along the local y axis
    // A cylinder from -half_height to +half_height along its local y; a cone with its base of
    // `radius` at +half_height and its apex at -half_height (Warp's cone).
    int add_shape_cylinder(const Vec3& pos, float radius, float half_height, const Quat& rot = Quat::Identity(),
                           float thickness = 0.0f);
    int add_shape_cone(const Vec3& pos, float radius, float half_height, const Quat& rot = Quat::Identity(),
                       float thickness = 0.0f);
    int add_shape_plane(const Eigen::Vector4f& plane, float thickness = 0.0f);  // n.x + d = 0, solid below
    // A triangle mesh (Warp's add_shape_mesh(body, pos, rot, mesh, scale)): its vertices are scaled
    // by `scale` (> 0 per axis) in the shape frame, then placed by pos and rot. finalize() samples
    // its signed distance on a grid of `sdf_resolution` cells (4 to 512) along the longest side of
    // the mesh's bounds grown by `sdf_margin` (m; < 0: 10% of the longest side). finalize raises
    // the margin to twice the largest particle radius plus the thickness where it is less, so that
    // every contact lies inside the grid.
    int add_shape_mesh(const Vec3& pos, const Mesh& mesh, const Quat& rot = Quat::Identity(), const Vec3& scale = Vec3::Ones(),
                       float thickness = 0.0f, int sdf_resolution = 64, float sdf_margin = -1.0f);
    void set_ground_plane(const Vec3& normal, float offset);  // the ground n.x = offset

    // [SECTION] Rigid bodies
    // Warp's add_body(origin, armature, com, I_m, m, name): a body with frame (pos, rot), centre of
    // mass `com` (body frame), inertia I_m about it (kg m^2, body frame; `armature` is added to its
    // diagonal) and mass m (kg; 0 = kinematic until shapes with a density add mass). Its shapes
    // add their mass, centre of mass and inertia. Returns the body's index.
    int add_body(const Vec3& pos = Vec3::Zero(), const Quat& rot = Quat::Identity(), const Vec3& com = Vec3::Zero(),
                 const Eigen::Matrix3f& I_m = Eigen::Matrix3f::Zero(), float m = 0.0f, float armature = 0.0f,
                 const std::string& name = "");
    void set_body_velocity(int body, const Vec3& angular, const Vec3& linear);  // body_qd: w, centre-of-mass v (world)
    // Warp's shape collision filtering (its add_shape_* keywords collision_group, has_ground_collision,
    // has_shape_collision, and shape_collision_filter_pairs). Two shapes meet when both have shape
    // collision, their groups are equal or either is -1, and the pair is not filtered; a shape meets
    // the ground when it has ground collision. Bodies' shapes only: particles ignore these (as in Warp).
    void set_shape_collision(int shape, int group, bool ground, bool shapes);
    void add_shape_collision_filter_pair(int a, int b);          // either order; the same shape twice is an error
    std::vector<int> shape_collision_group;                      // per shape, may be shorter (missing: -1, every group)
    std::vector<int> shape_collision_flags;                      // per shape, may be shorter (missing: 3): 1 ground, 2 shapes
    std::set<std::pair<int, int>> shape_collision_filter_pairs;  // (a, b) with a < b
    // Shapes on body `body` (>= 0; -1 makes a static shape, as the overloads above, with these
    // materials), at (pos, rot) in the body frame, in Warp's argument order. A capsule's axis is
    // its local y. Return the shape's index.
    int add_shape_sphere(int body, const Vec3& pos, const Quat& rot, float radius, const ShapeParams& p = {});
    int add_shape_box(int body, const Vec3& pos, const Quat& rot, float hx, float hy, float hz, const ShapeParams& p = {});
    int add_shape_capsule(int body, const Vec3& pos, const Quat& rot, float radius, float half_height, const ShapeParams& p = {});
    // A cylinder of `radius` from -half_height to +half_height along its local y, and a cone of base
    // `radius` at +half_height narrowing to its apex at -half_height (Warp's cone), on a body.
    int add_shape_cylinder(int body, const Vec3& pos, const Quat& rot, float radius, float half_height,
                           const ShapeParams& p = {});
    int add_shape_cone(int body, const Vec3& pos, const Quat& rot, float radius, float half_height, const ShapeParams& p = {});
    // A triangle mesh on a body (Warp's add_shape_mesh with body >= 0), its vertices scaled by
    // `scale` in the shape frame. Its density adds the mass of the solid it bounds
    // (engine/body_inertia.h mesh_mass_properties), so with density > 0 the mesh must be closed and
    // wound counter-clockwise seen from outside (BuildError naming the open edge otherwise); with
    // density 0 any mesh will do and the body's own mass counts. It collides through its vertices
    // (each a contact point of radius 0) and through its signed distance grid (sdf_resolution,
    // sdf_margin: as the static overload's; finalize raises the margin to cover every body contact
    // point's radius) for the points of other bodies' shapes.
    int add_shape_mesh(int body, const Vec3& pos, const Quat& rot, const Mesh& mesh, const Vec3& scale = Vec3::Ones(),
                       const ShapeParams& p = {}, int sdf_resolution = 64, float sdf_margin = -1.0f);
    int body_count() const { return int(body_q.size()); }

    // [SECTION] Joints (maximal coordinates; Warp's add_joint_*). `parent` is a body or -1 (the
    // world); the joint frame is parent_xform in the parent's frame and child_xform in the
    // child's. `collision_filter_parent`: the two bodies' shapes do not collide. `armature` is kept
    // for reduced-coordinate solvers (the semi-implicit one does not use it, as Warp's). Return the
    // joint's index.
    using Xform = JointFrame;
    float default_joint_limit_ke = 100.0f, default_joint_limit_kd = 1.0f;
    int add_joint_revolute(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                           const JointAxisDef& axis = {}, bool collision_filter_parent = true, float armature = 0.01f,
                           const std::string& name = "");
    int add_joint_prismatic(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                            const JointAxisDef& axis = {}, bool collision_filter_parent = true, float armature = 0.01f,
                            const std::string& name = "");
    int add_joint_ball(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                       bool collision_filter_parent = true, float armature = 0.01f, const std::string& name = "");
    int add_joint_fixed(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                        bool collision_filter_parent = true, float armature = 0.01f, const std::string& name = "");
    int add_joint_free(int child, const Xform& parent_xform = {}, int parent = -1, const std::string& name = "",
                       const Xform& child_xform = {}, float armature = 0.0f);
    // Rotation about two axes (universal) or three (compound) of the joint frame: the child's joint
    // frame is the parent's rotated by R(axis_0, q0) R(axis_1, q1) [R(axis_2, q2)], each angle with
    // its own drive and limits; a universal joint holds the rotation about axis_0 x axis_1 with the
    // attachment spring. The axes must be mutually perpendicular (engine/joint_builder.cpp).
    int add_joint_universal(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                            const JointAxisDef& axis_0, const JointAxisDef& axis_1, bool collision_filter_parent = true,
                            float armature = 0.01f, const std::string& name = "");
    int add_joint_compound(int parent, int child, const Xform& parent_xform, const Xform& child_xform, const JointAxisDef& axis_0,
                           const JointAxisDef& axis_1, const JointAxisDef& axis_2, bool collision_filter_parent = true,
                           float armature = 0.01f, const std::string& name = "");
    // Warp's add_joint_d6: translation along 0 to 3 linear axes (mutually perpendicular), then
    // rotation about 0 to 3 angular axes (as a revolute joint for one, universal for two, compound
    // for three); whatever no axis frees is held by the attachment springs.
    int add_joint_d6(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                     const std::vector<JointAxisDef>& linear_axes, const std::vector<JointAxisDef>& angular_axes,
                     bool collision_filter_parent = true, float armature = 0.01f, const std::string& name = "");
    // Warp's add_joint_distance: the distance between the two joint frames' origins kept within
    // [distance.limit_lower, distance.limit_upper] (a negative or NaN bound: none; Warp's
    // add_joint_distance defaults are -1 and 1), the rest free; the limits are rigid, or soft with the joint's linear compliance, or
    // with compliance 1/target_ke and damping target_kd when target_ke > 0 (Warp's rule). Only the
    // XPBD integrator simulates it (as in Warp); the semi-implicit and Featherstone integrators
    // refuse a model that has one. Coordinates as a free joint's (7 and 6).
    int add_joint_distance(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                           const JointAxisDef& distance = {}, bool collision_filter_parent = true, const std::string& name = "");
    // XPBD compliance of joint `joint` (Warp's linear_compliance / angular_compliance of add_joint_*;
    // m/N and rad/(N m), >= 0): how far its held parts and limits give under load in the XPBD
    // integrator. 0 (the default) is rigid. The semi-implicit and Featherstone integrators hold
    // joints their own way and do not read it, as Warp's.
    void set_joint_compliance(int joint, float linear, float angular);
    int joint_count() const { return int(joint_type.size()); }
    int joint_axis_count() const { return int(joint_axis.size()); }  // axis slots (Model::joint_axis_count)
    // Starts an articulation: the joints added from now on, up to the next call, form one tree that
    // eval_fk / eval_ik walk in the order they were added (Warp's add_articulation). Joints added
    // before the first call form an articulation of their own.
    void add_articulation();
    int articulation_count() const;
    // Reduced coordinates, Warp's layout: joint j's coordinates are joint_q[joint_q_start(j) ..] and
    // its velocities joint_qd[joint_qd_start(j) ..]: prismatic and revolute 1 and 1, ball 4 (a
    // quaternion x, y, z, w) and 3, fixed 0 and 0, free 7 (position, quaternion) and 6 (angular,
    // linear), universal 2 and 2, compound 3 and 3, D6 one each per axis (linear axes first). They
    // start at zero (identity quaternions); edit them and call eval_fk.
    int joint_q_start(int j) const;
    int joint_qd_start(int j) const;

    // [SECTION] Copies of a model (Warp's add_builder; engine/add_builder.cpp)
    // Appends everything `other` holds, moved by the rigid transform `xform` (particles, static
    // shapes, bodies and joint frames on the world), with its indices offset; this builder's
    // model-wide settings (gravity, ground, contact parameters) stay. With `separate_world`, the
    // copy becomes a world of its own (world ids 0, 1, ...): body shapes of two worlds never touch
    // (elements added directly, world -1, touch every world). Returns the copy's world id, or -1.
    // Throws BuildError where a separation is not simulated yet (finalize: particle contact between
    // world -1 particles and the worlds'; here: MPM particles, smoke grids). N copies at once:
    // replicate_worlds (engine/replicate_worlds.h).
    int add_builder(const ModelBuilder& other, const Xform& xform = {}, bool separate_world = true);
    int num_worlds = 0;                                        // worlds made by add_builder(separate_world)
    int num_envs = 0;                                          // Warp's count of add_builder copies (update_num_env_count)
    std::vector<int> particle_world, shape_world, body_world;  // -1: every world
    // [SECTION] MLS-MPM (engine/mpm_defs.h, engine/mpm_builder.cpp)
    MpmGridDef mpm_grid;  // set before adding volumes (their particle spacing is mpm_grid.dx / particles_per_cell)
    // Fills the box or sphere with particles of one material on a regular lattice (the cell
    // centres of a lattice of spacing dx / particles_per_cell inside the shape). Returns the
    // number of particles added; throws BuildError for an empty or out-of-domain volume or a bad parameter.
    int add_mpm_volume(const MpmVolumeDef& def);
    std::vector<int> mpm_material;                 // per particle; -1 for particles not added by a volume
    std::vector<std::array<float, 5>> mpm_params;  // per particle (Model::mpm_params)
    std::vector<float> mpm_volume;                 // m^3 per particle
    void finalize_mpm(Model& m) const;             // called by finalize(): the MPM arrays of the model

    int particle_count() const { return int(particle_q.size()); }
    // Nothing to simulate: each solver family's elements count here (a scene refuses an empty builder).
    bool empty() const { return particle_count() == 0 && body_count() == 0; }
    int tet_count_or_zero() const { return int(tet_indices.size()); }

    // Uploads everything to `device` ("cpu", "cuda:0", "sim:h200").
    Model finalize(const std::string& device = "cpu", bool requires_grad = false) const;

    // Host-side data (public, as in Warp, so tests and loaders can read what was built).
    std::vector<Vec3> particle_q, particle_qd;
    std::vector<float> particle_mass, particle_radius;
    std::vector<uint32_t> particle_flags;
    std::vector<int> spring_indices;
    std::vector<float> spring_rest_length, spring_stiffness, spring_damping;
    std::vector<std::array<int, 3>> tri_indices;
    std::vector<Eigen::Matrix2f> tri_poses;
    std::vector<std::array<float, 5>> tri_materials;
    std::vector<float> tri_areas;
    std::vector<std::array<int, 4>> edge_indices;
    std::vector<float> edge_rest_angle;
    std::vector<std::array<float, 2>> edge_bending_properties;
    std::vector<std::array<int, 4>> tet_indices;
    std::vector<Eigen::Matrix3f> tet_poses;
    std::vector<std::array<float, 3>> tet_materials;
    std::vector<std::array<float, 7>> shape_transform;  // p (3), q (x, y, z, w)
    std::vector<int> shape_geo_type;
    std::vector<int> shape_body;                       // -1 = static
    std::vector<std::array<float, 6>> shape_material;  // ke, kd, kf, ka, mu, restitution
    std::vector<float> shape_material_share;           // Model::shape_material_share: 0.5 from add_body_shape, else 0
    std::vector<Vec3> shape_geo_scale;
    std::vector<float> shape_geo_thickness;
    std::vector<Mesh> shape_geo_src;            // the mesh of each GEO_MESH shape (empty for the others)
    std::vector<int> shape_sdf_resolution;      // mesh shapes: cells along the longest side
    std::vector<float> shape_sdf_margin;        // mesh shapes: m, < 0 = automatic
    std::vector<std::array<float, 7>> body_q;   // p (3), q (x, y, z, w)
    std::vector<std::array<float, 6>> body_qd;  // w (3), v (3)
    std::vector<MassProperties> body_mass;      // mass, com, inertia about com (body frame), double
    std::vector<double> body_armature;          // kg m^2, added to the inertia's diagonal
    std::vector<std::string> body_name;
    std::vector<int> joint_type, joint_parent, joint_child, joint_collision_filter;  // per joint
    std::vector<std::array<float, 7>> joint_X_p, joint_X_c;                          // per joint
    std::vector<float> joint_armature;                                               // per joint
    std::vector<float> joint_linear_compliance, joint_angular_compliance;            // per joint (XPBD)
    std::vector<int> joint_axis_start;               // per joint: its first axis slot (Model::joint_axis_start)
    std::vector<std::array<int, 2>> joint_axis_dim;  // per joint: linear, angular axis counts
    std::vector<Vec3> joint_axis;                    // per axis slot (the rest as well)
    std::vector<int> joint_mode;
    std::vector<float> joint_act, joint_target_ke, joint_target_kd, joint_limit_lower, joint_limit_upper, joint_limit_ke,
        joint_limit_kd;
    std::vector<std::string> joint_name;
    std::vector<float> joint_q, joint_qd;                      // reduced coordinates (above)
    std::vector<int> articulation_start;                       // first joint of each articulation
    float joint_attach_ke = 1.0e3f, joint_attach_kd = 1.0e2f;  // copied into the Model (Warp's defaults)
    Vec3 gravity;
    std::array<float, 4> ground_plane{0, 1, 0, 0};

private:
    void check_particle(const char* what, int i) const;
    int add_shape(int type, const Vec3& pos, const Quat& rot, const Vec3& scale, float thickness);
    int add_joint(const char* call, int type, int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                  const std::vector<JointAxisDef>& linear, const std::vector<JointAxisDef>& angular, bool filter, float armature,
                  const std::string& name);
    int add_body_shape(const char* call, int body, int type, const Vec3& pos, const Quat& rot, const Vec3& scale,
                       const ShapeParams& p, const Mesh* mesh = nullptr);
    static void check_mesh(const char* what, const Mesh& mesh, const Vec3& scale, int sdf_resolution);
};

}  // namespace weft::engine
