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
