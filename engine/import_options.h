// engine/import_options.h: what parse_urdf and parse_mjcf (engine/urdf_import.h,
// engine/mjcf_import.h) take and return.
//
// ImportOptions holds Warp 1.9.1's keyword arguments of warp.sim.parse_urdf / parse_mjcf with
// their names and defaults (only those Weft simulates; python/weft/sim.py refuses the others by
// name). ImportResult says what the import added to the builder: index ranges of bodies, joints
// and shapes, name lookups, the actuators of an MJCF file, and every warning.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/model_builder.h"

namespace weft::engine {

struct ImportOptions {
    ModelBuilder::Xform xform;    // placed on the root body (MJCF: on every top-level body and world geom)
    bool floating = false;        // root body: a free joint (true) or fixed to the world (false)
    std::string base_joint;       // "" or axes separated by commas: "px" | "py" | "pz" (prismatic, also "l.") |
                                  //   "rx" | "ry" | "rz" (revolute, also "a."); several make a D6 joint (Warp's rule)
    float density = 1000.0f;      // kg/m^3 of collision shapes without their own
    float stiffness = 100.0f;     // joint target_ke; > 0 makes the mode TARGET_POSITION (Warp's rule)
    float damping = 10.0f;        // joint target_kd (URDF <dynamics damping>, MJCF damping override it)
    float armature = 0.0f;        // kg m^2 (MJCF: joints without their own armature)
    float armature_scale = 1.0f;  // MJCF: multiplies every joint's armature
    float contact_ke = 1.0e4f, contact_kd = 1.0e3f, contact_kf = 1.0e2f, contact_ka = 0.0f;
    float contact_mu = 0.25f, contact_restitution = 0.5f, contact_thickness = 0.0f;
    float limit_ke = 100.0f, limit_kd = 10.0f;                      // joint limit penalty
    float joint_limit_lower = -1.0e6f, joint_limit_upper = 1.0e6f;  // joints without limits
    float scale = 1.0f;                                             // lengths (not the root xform's)
    bool parse_visuals_as_colliders = false;                        // <visual> geometry instead of <collision>
    bool ignore_inertial_definitions = true;                        // Warp's default: mass from the shapes
    bool ensure_nonstatic_links = true;                             // a body of mass 0 gets static_link_mass
    float static_link_mass = 1.0e-2f;                               // kg, inertia of a 0.5 m cube of it
    std::string up_axis = "Z";                                      // MJCF: "X" | "Y" | "Z", turned onto the builder's y
    bool parse_meshes = true;                                       // MJCF: mesh geoms
    // Whether the imported shapes collide with each other (besides a joint's parent and child,
    // which its collision_filter_parent filters); -1: Warp's default of the format, URDF yes, MJCF no.
    // Off, every pair of the import's shapes is a shape_collision_filter_pair, as Warp adds them.
    int enable_self_collisions = -1;
};

// Filters every pair of the shapes [shape_start, shape_end) unless `o` enables self-collisions
// (`format_default`: the format's own default for -1).
inline void filter_self_collisions(ModelBuilder& b, const ImportOptions& o, bool format_default, int shape_start, int shape_end) {
    const bool enabled = o.enable_self_collisions < 0 ? format_default : o.enable_self_collisions != 0;
    if (enabled) return;
    for (int a = shape_start; a < shape_end; ++a)
        for (int c = a + 1; c < shape_end; ++c) b.add_shape_collision_filter_pair(a, c);
}

// An MJCF <actuator> entry, applied as its joint's drive (joint_mode, target_ke/kd).
struct ImportedActuator {
    std::string name;
    std::string type;            // "motor" | "position" | "velocity"
    int joint = -1;              // builder joint index
    int axis = -1;               // its axis slot: the joint_act entry it drives
    float gear = 1.0f;           // control -> joint force (motor)
    float kp = 0.0f, kv = 0.0f;  // position / velocity gains as target_ke / target_kd
    bool ctrllimited = false;
    float ctrl_lower = 0.0f, ctrl_upper = 0.0f;  // ctrlrange (not enforced by the solvers: see docs/import.md)
};

struct ImportResult {
    int body_start = 0, body_end = 0;        // [start, end) of the builder's bodies
    int joint_start = 0, joint_end = 0;      // [start, end) of its joints
    int shape_start = 0, shape_end = 0;      // [start, end) of its shapes
    std::map<std::string, int> body_index;   // link / body name -> builder body
    std::map<std::string, int> joint_index;  // joint name -> builder joint
    // hinge / slide joint name -> its axis slot (joint_act entry): several MJCF joints of one body
    // are one builder joint with an axis each
    std::map<std::string, int> joint_axis_index;
    std::vector<ImportedActuator> actuators;
    std::vector<float> joint_effort_limit;    // URDF <limit effort>, N or N m per imported joint (NaN: none)
    std::vector<float> joint_velocity_limit;  // URDF <limit velocity>, m/s or rad/s per imported joint (NaN: none)
    float timestep = 0.0f;                    // MJCF <option timestep>, s (0: not given)
    bool gravity_set = false;                 // MJCF <option gravity> was applied to builder.gravity
    std::vector<std::string> warnings;        // "FILE:LINE: warning: ..."
};

}  // namespace weft::engine
