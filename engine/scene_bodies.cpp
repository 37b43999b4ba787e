// engine/scene_bodies.cpp: the rigid-body blocks of scene files (docs/scene-format.md), read
// through engine/scene_reader.h and listed in engine/scene_blocks.def:
//
//   [ground_material]        ke, kd, kf, mu, restitution of the ground against body shapes
//   [[body]]                 pos, rot_axis/rot_angle, vel, angular_vel (rad/s), mass, com,
//                            inertia (3 numbers: the diagonal, kg m^2), armature, name
//     [[body.shape]]         type = "sphere" | "box" | "capsule"; pos, rot_axis/rot_angle in the
//                            body frame; radius / half_extents / radius + half_height; density,
//                            ke, kd, kf, ka, mu, restitution, thickness (the builder's defaults)
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES

namespace weft::engine {

namespace {

ShapeParams read_shape_params(TableReader& r, const ModelBuilder& b) {
    ShapeParams p;
    p.density = float(r.number("density", b.default_shape_density, 0.0));
    p.ke = float(r.number("ke", b.default_shape_ke, 0.0));
    p.kd = float(r.number("kd", b.default_shape_kd, 0.0));
    p.kf = float(r.number("kf", b.default_shape_kf, 0.0));
    p.ka = float(r.number("ka", b.default_shape_ka, 0.0));
    p.mu = float(r.number("mu", b.default_shape_mu, 0.0));
    p.restitution = float(r.number("restitution", b.default_shape_restitution, 0.0, 1.0));
    p.thickness = float(r.number("thickness", b.default_shape_thickness, 0.0));
    return p;
}

}  // namespace

void read_body_blocks(TableReader& root, Scene& s) {
    ModelBuilder& b = s.builder;
    if (const toml::node* n = root.get("ground_material")) {
        if (!n->is_table()) root.fail(n->source(), "'ground_material' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[ground_material]");
        b.ground_ke = float(r.number("ke", b.ground_ke, 0.0));
        b.ground_kd = float(r.number("kd", b.ground_kd, 0.0));
        b.ground_kf = float(r.number("kf", b.ground_kf, 0.0));
        b.ground_mu = float(r.number("mu", b.ground_mu, 0.0));
        b.ground_restitution = float(r.number("restitution", b.ground_restitution, 0.0, 1.0));
        r.finish();
    }
    for_each_entry(root, "body", [&](TableReader& r) {
        Vec3 pos = r.vec3("pos", Vec3::Zero(), true);
        Quat rot = r.rotation();
        Vec3 com = r.vec3("com", Vec3::Zero());
        Vec3 diag = r.vec3("inertia", Vec3::Zero());
        if (diag.minCoeff() < 0) r.fail_at("inertia", "'inertia' (the diagonal, kg m^2) must be >= 0");
        float mass = float(r.number("mass", 0.0, 0.0));
        float armature = float(r.number("armature", 0.0, 0.0));
        std::string name = r.string("name", "");
        Eigen::Matrix3f I = diag.asDiagonal();
        const int body = b.add_body(pos, rot, com, I, mass, armature, name);
        b.set_body_velocity(body, r.vec3("angular_vel", Vec3::Zero()), r.vec3("vel", Vec3::Zero()));
        bool any = false;
        for_each_entry(r, "shape", [&](TableReader& sr) {
            any = true;
            std::string type = sr.string("type", "", {"sphere", "box", "capsule"});
            if (type.empty()) sr.fail(sr.table().source(), "missing key 'type' in [[body.shape]]");
            Vec3 spos = sr.vec3("pos", Vec3::Zero());
            Quat srot = sr.rotation();
            ShapeParams p = read_shape_params(sr, b);
            if (type == "sphere")
                b.add_shape_sphere(body, spos, srot, float(sr.required_number("radius", 0.0, INFINITY, true)), p);
            if (type == "box") {
                Vec3 h = sr.vec3("half_extents", Vec3::Zero(), true);
                if (!(h.x() > 0 && h.y() > 0 && h.z() > 0)) sr.fail_at("half_extents", "'half_extents' must all be > 0");
                b.add_shape_box(body, spos, srot, h.x(), h.y(), h.z(), p);
            }
            if (type == "capsule")
                b.add_shape_capsule(body, spos, srot, float(sr.required_number("radius", 0.0, INFINITY, true)),
                                    float(sr.required_number("half_height", 0.0)), p);
        });
        if (!any && !(mass > 0)) r.fail(r.table().source(), "a [[body]] needs a [[body.shape]] or a mass");
    });
}

}  // namespace weft::engine

#endif
