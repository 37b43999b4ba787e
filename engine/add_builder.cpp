// engine/add_builder.cpp: ModelBuilder::add_builder, copies of a model side by side (Warp's
// add_builder), the basis of batched worlds: N copies of a small model in one set of arrays, one
// launch per kernel for all of them; and replicate_worlds (engine/replicate_worlds.h), which makes
// the N copies.
//
// World ids live in particle_world / shape_world / body_world, which may be shorter than their
// element lists: a missing entry is -1 (an element added directly, which touches every world), so
// that the add_* calls and the solver families' own builders need not know about worlds.
#include <Eigen/Geometry>

#include "engine/model_builder.h"
#include "engine/replicate_worlds.h"

namespace weft::engine {

namespace {

// `ids` padded with -1 to `n` entries.
void pad_worlds(std::vector<int>& ids, size_t n) {
    if (ids.size() < n) ids.resize(n, -1);
}

std::array<float, 7> moved(const Eigen::Isometry3f& X, const std::array<float, 7>& t) {
    Quat q = (Quat(X.linear()) * Quat(t[6], t[3], t[4], t[5])).normalized();
    Vec3 p = X * Vec3(t[0], t[1], t[2]);
    return {p.x(), p.y(), p.z(), q.x(), q.y(), q.z(), q.w()};
}

}  // namespace

int ModelBuilder::add_builder(const ModelBuilder& o, const Xform& xform, bool separate_world) {
    if (&o == this) throw BuildError("add_builder: a builder cannot be added to itself; add a copy");
    if (o.smoke.resolution[0] > 0 || o.smoke.resolution[1] > 0 || o.smoke.resolution[2] > 0)
        throw BuildError(
            "add_builder: the added builder has a smoke grid, which is one per model and is not copied; "
            "set the receiving builder's smoke instead");
    if (!o.mpm_material.empty() && separate_world)
        throw BuildError(
            "add_builder: the added builder has MPM particles, which share one grid per model and so cannot be "
            "a separate world; add it with separate_world false (one shared grid: this builder's mpm_grid)");
    if (!xform.p.allFinite() || !xform.q.coeffs().allFinite() || xform.q.norm() < 1e-6f)
        throw BuildError("add_builder: xform must be a finite transform with a nonzero rotation");
    Eigen::Isometry3f X = Eigen::Isometry3f::Identity();
    X.linear() = xform.q.normalized().toRotationMatrix();
    X.translation() = xform.p;
    const Eigen::Matrix3f R = X.linear();
    const int np = particle_count(), ns = int(shape_geo_type.size()), nb = body_count(), nj = joint_count();
    const int world = separate_world ? num_worlds++ : -1;
    auto world_of = [&](const std::vector<int>& ids, size_t k) {
        if (separate_world) return world;
        return k < ids.size() ? ids[k] : -1;
    };

    // Particles and the elements between them.
    pad_worlds(particle_world, size_t(np));
    for (int i = 0; i < o.particle_count(); ++i) {
        particle_q.push_back(X * o.particle_q[size_t(i)]);
        particle_qd.push_back(R * o.particle_qd[size_t(i)]);
        particle_world.push_back(world_of(o.particle_world, size_t(i)));
    }
    particle_mass.insert(particle_mass.end(), o.particle_mass.begin(), o.particle_mass.end());
    particle_radius.insert(particle_radius.end(), o.particle_radius.begin(), o.particle_radius.end());
    particle_flags.insert(particle_flags.end(), o.particle_flags.begin(), o.particle_flags.end());
    if (!o.mpm_material.empty()) {  // MPM particles (the lists may stop at the last MPM particle: pad both)
        mpm_material.resize(size_t(np), -1);
        mpm_params.resize(size_t(np), std::array<float, 5>{0, 0, 0, 0, 0});
        mpm_volume.resize(size_t(np), 0.0f);
        mpm_material.insert(mpm_material.end(), o.mpm_material.begin(), o.mpm_material.end());
        mpm_params.insert(mpm_params.end(), o.mpm_params.begin(), o.mpm_params.end());
        mpm_volume.insert(mpm_volume.end(), o.mpm_volume.begin(), o.mpm_volume.end());
    }
    for (int i : o.spring_indices) spring_indices.push_back(i + np);
    spring_rest_length.insert(spring_rest_length.end(), o.spring_rest_length.begin(), o.spring_rest_length.end());
    spring_stiffness.insert(spring_stiffness.end(), o.spring_stiffness.begin(), o.spring_stiffness.end());
    spring_damping.insert(spring_damping.end(), o.spring_damping.begin(), o.spring_damping.end());
    for (const auto& t : o.tri_indices) tri_indices.push_back({t[0] + np, t[1] + np, t[2] + np});
    tri_poses.insert(tri_poses.end(), o.tri_poses.begin(), o.tri_poses.end());
    tri_materials.insert(tri_materials.end(), o.tri_materials.begin(), o.tri_materials.end());
    tri_areas.insert(tri_areas.end(), o.tri_areas.begin(), o.tri_areas.end());
    for (const auto& e : o.edge_indices) {
        std::array<int, 4> c = e;
        for (int& v : c)
            if (v >= 0) v += np;  // -1: an open edge's missing vertex
        edge_indices.push_back(c);
    }
    edge_rest_angle.insert(edge_rest_angle.end(), o.edge_rest_angle.begin(), o.edge_rest_angle.end());
    edge_bending_properties.insert(edge_bending_properties.end(), o.edge_bending_properties.begin(),
                                   o.edge_bending_properties.end());
    for (const auto& t : o.tet_indices) tet_indices.push_back({t[0] + np, t[1] + np, t[2] + np, t[3] + np});
    tet_poses.insert(tet_poses.end(), o.tet_poses.begin(), o.tet_poses.end());
    tet_materials.insert(tet_materials.end(), o.tet_materials.begin(), o.tet_materials.end());

    // Shapes: static ones move with the copy, body shapes keep their place on their body.
    pad_worlds(shape_world, size_t(ns));
    for (size_t s = 0; s < o.shape_geo_type.size(); ++s) {
        const int body = o.shape_body[s];
        shape_transform.push_back(body < 0 ? moved(X, o.shape_transform[s]) : o.shape_transform[s]);
        shape_body.push_back(body < 0 ? -1 : body + nb);
        shape_world.push_back(world_of(o.shape_world, s));
    }
    // collision filtering: pad both to their shape counts (defaults), then append; pairs offset
    if (!o.shape_collision_group.empty() || !o.shape_collision_flags.empty() || !shape_collision_group.empty() ||
        !shape_collision_flags.empty()) {
        shape_collision_group.resize(size_t(ns), -1);
        shape_collision_flags.resize(size_t(ns), 3);
        for (size_t s = 0; s < o.shape_geo_type.size(); ++s) {
            shape_collision_group.push_back(s < o.shape_collision_group.size() ? o.shape_collision_group[s] : -1);
            shape_collision_flags.push_back(s < o.shape_collision_flags.size() ? o.shape_collision_flags[s] : 3);
        }
    }
    for (const auto& [a, b] : o.shape_collision_filter_pairs) shape_collision_filter_pairs.insert({a + ns, b + ns});
    shape_geo_type.insert(shape_geo_type.end(), o.shape_geo_type.begin(), o.shape_geo_type.end());
    shape_material.insert(shape_material.end(), o.shape_material.begin(), o.shape_material.end());
    shape_material_share.insert(shape_material_share.end(), o.shape_material_share.begin(), o.shape_material_share.end());
    shape_geo_scale.insert(shape_geo_scale.end(), o.shape_geo_scale.begin(), o.shape_geo_scale.end());
    shape_geo_thickness.insert(shape_geo_thickness.end(), o.shape_geo_thickness.begin(), o.shape_geo_thickness.end());
    shape_geo_src.insert(shape_geo_src.end(), o.shape_geo_src.begin(), o.shape_geo_src.end());
    shape_sdf_resolution.insert(shape_sdf_resolution.end(), o.shape_sdf_resolution.begin(), o.shape_sdf_resolution.end());
    shape_sdf_margin.insert(shape_sdf_margin.end(), o.shape_sdf_margin.begin(), o.shape_sdf_margin.end());

    // Bodies (mass properties are in the body frame, unchanged) and joints.
    pad_worlds(body_world, size_t(nb));
    for (int b = 0; b < o.body_count(); ++b) {
        body_q.push_back(moved(X, o.body_q[size_t(b)]));
        const auto& v = o.body_qd[size_t(b)];
        Vec3 w = R * Vec3(v[0], v[1], v[2]), lin = R * Vec3(v[3], v[4], v[5]);
        body_qd.push_back({w.x(), w.y(), w.z(), lin.x(), lin.y(), lin.z()});
        body_world.push_back(world_of(o.body_world, size_t(b)));
    }
    body_mass.insert(body_mass.end(), o.body_mass.begin(), o.body_mass.end());
    body_armature.insert(body_armature.end(), o.body_armature.begin(), o.body_armature.end());
    body_name.insert(body_name.end(), o.body_name.begin(), o.body_name.end());
    const int na = joint_axis_count();
    for (int j = 0; j < o.joint_count(); ++j) {
        joint_axis_start.push_back(o.joint_axis_start[size_t(j)] + na);
        const int parent = o.joint_parent[size_t(j)];
        joint_parent.push_back(parent < 0 ? -1 : parent + nb);
        joint_child.push_back(o.joint_child[size_t(j)] + nb);
        joint_X_p.push_back(parent < 0 ? moved(X, o.joint_X_p[size_t(j)]) : o.joint_X_p[size_t(j)]);
    }
    auto append = [](auto& to, const auto& from) { to.insert(to.end(), from.begin(), from.end()); };
    append(joint_type, o.joint_type);
    append(joint_mode, o.joint_mode);
    append(joint_collision_filter, o.joint_collision_filter);
    append(joint_X_c, o.joint_X_c);
    append(joint_axis_dim, o.joint_axis_dim);
    append(joint_axis, o.joint_axis);
    append(joint_act, o.joint_act);
    append(joint_target_ke, o.joint_target_ke);
    append(joint_target_kd, o.joint_target_kd);
    append(joint_limit_lower, o.joint_limit_lower);
    append(joint_limit_upper, o.joint_limit_upper);
    append(joint_limit_ke, o.joint_limit_ke);
    append(joint_limit_kd, o.joint_limit_kd);
    append(joint_armature, o.joint_armature);
    append(joint_linear_compliance, o.joint_linear_compliance);
    append(joint_angular_compliance, o.joint_angular_compliance);
    append(joint_name, o.joint_name);
    append(joint_q, o.joint_q);
    append(joint_qd, o.joint_qd);
    // The copy's articulations stay its own: none merges with this builder's last one.
    std::vector<int> arts = articulation_starts(o);
    for (size_t a = 0; a + 1 < arts.size(); ++a) articulation_start.push_back(arts[a] + nj);
    return world;
}

ModelBuilder replicate_worlds(const ModelBuilder& one, int count, const Vec3& spacing, int first) {
    if (count < 1) throw BuildError("replicate_worlds: count must be >= 1, got " + std::to_string(count));
    if (one.num_worlds > 0) throw BuildError("replicate_worlds: the builder to copy has worlds of its own already");
    // The settings are every member that is not an element list: copy the builder, then empty the
    // lists add_builder appends to.
    ModelBuilder out = one;
    auto clear = [](auto&... v) { (v.clear(), ...); };
    clear(out.particle_q, out.particle_qd, out.particle_mass, out.particle_radius, out.particle_flags, out.spring_indices,
          out.spring_rest_length, out.spring_stiffness, out.spring_damping, out.tri_indices, out.tri_poses, out.tri_materials,
          out.tri_areas, out.edge_indices, out.edge_rest_angle, out.edge_bending_properties, out.tet_indices, out.tet_poses,
          out.tet_materials, out.shape_transform, out.shape_geo_type, out.shape_body, out.shape_material,
          out.shape_material_share, out.shape_geo_scale, out.shape_geo_thickness, out.shape_geo_src, out.shape_sdf_resolution,
          out.shape_sdf_margin, out.body_q, out.body_qd, out.body_mass, out.body_armature, out.body_name, out.joint_type,
          out.joint_parent, out.joint_child, out.joint_mode, out.joint_collision_filter, out.joint_X_p, out.joint_X_c,
          out.joint_axis_start, out.joint_axis_dim, out.joint_axis, out.joint_act, out.joint_target_ke, out.joint_target_kd,
          out.joint_limit_lower, out.joint_limit_upper, out.joint_limit_ke, out.joint_limit_kd, out.joint_armature,
          out.joint_linear_compliance, out.joint_angular_compliance, out.joint_name, out.joint_q, out.joint_qd,
          out.articulation_start, out.particle_world, out.shape_world, out.body_world, out.mpm_material, out.mpm_params,
          out.mpm_volume, out.shape_collision_group, out.shape_collision_flags, out.shape_collision_filter_pairs);
    out.num_worlds = 0;
    for (int w = 0; w < count; ++w) {
        ModelBuilder::Xform x;
        x.p = spacing * float(first + w);
        out.add_builder(one, x, true);
    }
    return out;
}

}  // namespace weft::engine
