// engine/launch_args.h: short constructors of kernel launch arguments used by the integrators, and
// the argument groups that several solver kernels share (the static shapes, the particle hash grid).
#pragma once

#include <array>

#include "engine/model.h"
#include "runtime/module.h"
#include "runtime/named_args.h"

namespace weft::engine::args {

inline runtime::LaunchArg a(const Array& x) { return runtime::LaunchArg::of(x); }
inline runtime::LaunchArg f(double v) { return runtime::LaunchArg::number_of(v); }
inline runtime::LaunchArg i(long long v) { return runtime::LaunchArg::integer_of(v); }
inline runtime::LaunchArg v3(const std::array<float, 3>& v) { return runtime::LaunchArg::value(vec3_type(), v.data()); }
inline runtime::LaunchArg v4(const std::array<float, 4>& v) { return runtime::LaunchArg::value(vec4_type(), v.data()); }

// The model's static shapes, as the contact kernels take them (kernels/geometry.py's
// shape_contact): shape_body .. shape_sdf_cell, appended in the kernels' parameter order.
inline void add_shape_args(runtime::NamedArgs& args, const Model& m) {
    args.add("shape_body", a(m.shape_body))
        .add("shape_transform", a(m.shape_transform))
        .add("shape_geo_type", a(m.shape_geo_type))
        .add("shape_geo_scale", a(m.shape_geo_scale))
        .add("shape_geo_thickness", a(m.shape_geo_thickness))
        .add("shape_count", i(m.shape_count))
        .add("shape_sdf_values", a(m.shape_sdf_values))
        .add("shape_sdf_dims", a(m.shape_sdf_dims))
        .add("shape_sdf_origin", a(m.shape_sdf_origin))
        .add("shape_sdf_cell", a(m.shape_sdf_cell));
}

// The shapes' collision filtering (Model::shape_collision_group ..; kernels/rigid.py's shapes_collide).
inline void add_shape_filter_args(runtime::NamedArgs& args, const Model& m) {
    args.add("shape_collision_group", a(m.shape_collision_group))
        .add("shape_collision_flags", a(m.shape_collision_flags))
        .add("shape_filter_start", a(m.shape_filter_start))
        .add("shape_filter_list", a(m.shape_filter_list));
}

// The broad phase and contact points of body contact (Model::shape_bound, shape_point_start,
// shape_points; kernels/rigid_common.py's shape_point).
inline void add_shape_point_args(runtime::NamedArgs& args, const Model& m) {
    args.add("shape_bound", a(m.shape_bound))
        .add("shape_point_start", a(m.shape_point_start))
        .add("shape_points", a(m.shape_points));
}

// The joints' tree and frames (kernels/joints.py's joint_frames and the articulation kernels):
// joint_type, joint_parent, joint_child, joint_X_p, joint_X_c and the joint axes.
inline void add_joint_frame_args(runtime::NamedArgs& args, const Model& m) {
    args.add("joint_type", a(m.joint_type))
        .add("joint_parent", a(m.joint_parent))
        .add("joint_child", a(m.joint_child))
        .add("joint_X_p", a(m.joint_X_p))
        .add("joint_X_c", a(m.joint_X_c))
        .add("joint_axis_start", a(m.joint_axis_start))
        .add("joint_axis_dim", a(m.joint_axis_dim))
        .add("joint_axis", a(m.joint_axis));
}

// The joint axes' drives and limits: joint_mode, joint_act (`act`: the control's or the model's,
// see joint_act below), the target gains and the limits' bounds.
inline void add_joint_drive_args(runtime::NamedArgs& args, const Model& m, const Array& act) {
    args.add("joint_mode", a(m.joint_mode))
        .add("joint_act", a(act))
        .add("joint_target_ke", a(m.joint_target_ke))
        .add("joint_target_kd", a(m.joint_target_kd))
        .add("joint_limit_lower", a(m.joint_limit_lower))
        .add("joint_limit_upper", a(m.joint_limit_upper));
}

// The joints each body takes part in (Model::body_joint_start, body_joint_list).
inline void add_body_joint_args(runtime::NamedArgs& args, const Model& m) {
    args.add("body_joint_start", a(m.body_joint_start)).add("body_joint_list", a(m.body_joint_list));
}

// The joint actions a step applies: the control's joint_act when it has one, else the model's.
inline const Array& joint_act(const Model& m, const Control* control) {
    return control && control->joint_act.valid() ? control->joint_act : m.joint_act;
}

// The particle hash grid of particle contact (kernels/hash_grid.py), read from `count` and
// `particles` (any array when the model has no particle contact): particle_grid .. bucket_particles.
inline void add_grid_args(runtime::NamedArgs& args, const Model& m, const Array& count, const Array& particles) {
    args.add("particle_grid", i(m.particle_contact ? 1 : 0))
        .add("inv_cell_size", f(m.particle_contact ? 1.0 / m.particle_grid_cell : 0.0))
        .add("nbucket", i(m.particle_grid_buckets))
        .add("capacity", i(m.particle_grid_capacity))
        .add("bucket_count", a(count))
        .add("bucket_particles", a(particles));
}

}  // namespace weft::engine::args
