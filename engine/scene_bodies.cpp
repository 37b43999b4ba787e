// engine/scene_bodies.cpp: the rigid-body blocks of scene files (docs/scene-format.md), read
// through engine/scene_reader.h and listed in engine/scene_blocks.def:
//
//   [ground_material]        ke, kd, kf, mu, restitution of the ground against body shapes
//   [[body]]                 pos, rot_axis/rot_angle, vel, angular_vel (rad/s), mass, com,
//                            inertia (3 numbers: the diagonal, kg m^2), armature, name
//     [[body.shape]]         type = "sphere" | "box" | "capsule" | "cylinder" | "cone" | "mesh"; pos,
//                            rot_axis/rot_angle in the body frame; radius / half_extents / radius
//                            + half_height (capsule, cylinder, cone) / obj or vertices + indices,
//                            scale, sdf_resolution, sdf_margin (mesh, as [[shape]]'s); density,
//                            ke, kd, kf, ka, mu, restitution, thickness (the builder's defaults)
//   [joint_attachment]       ke, kd: the joints' attachment stiffness and damping (Warp's 1e3, 1e2)
//   [[joint]]                type = "revolute" | "prismatic" | "ball" | "fixed" | "free" |
//                            "universal" | "compound" | "d6" | "distance"; parent ("world" or a body's name),
//                            child (a body's name); parent_pos, parent_rot_axis/parent_rot_angle,
//                            child_pos, child_rot_axis/child_rot_angle (the joint frame in each
//                            body's frame); revolute and prismatic: axis; mode = "force" |
//                            "target_position" | "target_velocity", target, target_ke, target_kd;
//                            limit_lower, limit_upper, limit_ke, limit_kd;
//                            collision_filter_parent, armature, name; linear_compliance,
//                            angular_compliance (XPBD); distance: min_distance, max_distance
//     [[joint.linear_axis]]  d6: up to 3, each with axis (required) and the drive and limit keys
//     [[joint.angular_axis]] universal: 2, compound: 3, d6: up to 3 (the same keys)
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

// A body named in a [[joint]]: "world" is -1.
int body_by_name(TableReader& r, const ModelBuilder& b, const std::string& key, bool world_allowed) {
    std::string name = r.string(key, "");
    if (name.empty()) r.fail(r.table().source(), "missing key '" + key + "' in [[joint]] (a body's name)");
    if (world_allowed && name == "world") return -1;
    for (int k = 0; k < b.body_count(); ++k)
        if (b.body_name[size_t(k)] == name) return k;
    std::vector<std::string> names(b.body_name.begin(), b.body_name.end());
    if (world_allowed) names.push_back("world");
    std::string near = support::closest_name(name, names);
    r.fail_at(key, "no body named '" + name + "' (bodies are named by their [[body]] 'name'" +
                       (world_allowed ? ", or \"world\")" : ")") + (near.empty() ? "" : "; did you mean '" + near + "'?"));
}

// An axis's drive and limits (the keys of a revolute or prismatic [[joint]], and of each
// [[joint.linear_axis]] / [[joint.angular_axis]]); `axis_required` for the latter.
JointAxisDef read_axis(TableReader& r, const ModelBuilder& b, bool axis_required) {
    JointAxisDef a;
    a.axis = r.vec3("axis", Vec3(1, 0, 0), axis_required);
    if (axis_required && !(a.axis.norm() > 1e-6f))
        r.fail_at("axis", "'axis' must be a nonzero vector, got [" + format_number(a.axis.x()) + ", " +
                              format_number(a.axis.y()) + ", " + format_number(a.axis.z()) + "]");
    const std::string mode = r.string("mode", "force", {"force", "target_position", "target_velocity"});
    a.mode = mode == "force"             ? JOINT_MODE_FORCE
             : mode == "target_position" ? JOINT_MODE_TARGET_POSITION
                                         : JOINT_MODE_TARGET_VELOCITY;
    a.target = float(r.number("target", 0.0));
    a.target_ke = float(r.number("target_ke", 0.0, 0.0));
    a.target_kd = float(r.number("target_kd", 0.0, 0.0));
    a.limit_lower = float(r.number("limit_lower", NAN));
    a.limit_upper = float(r.number("limit_upper", NAN));
    a.limit_ke = float(r.number("limit_ke", b.default_joint_limit_ke, 0.0));
    a.limit_kd = float(r.number("limit_kd", b.default_joint_limit_kd, 0.0));
    return a;
}

// The [[joint.<key>]] axes of a universal, compound or D6 joint: between `lo` and `hi` of them.
std::vector<JointAxisDef> read_axes(TableReader& r, const ModelBuilder& b, const std::string& type, const std::string& key,
                                    size_t lo, size_t hi) {
    std::vector<JointAxisDef> axes;
    for_each_entry(r, key, [&](TableReader& ar) { axes.push_back(read_axis(ar, b, true)); });
    if (axes.size() < lo || axes.size() > hi) {
        const std::string want = hi == 0 ? "no" : lo == hi ? std::to_string(lo) : "at most " + std::to_string(hi);
        const std::string msg = "a " + type + " joint has " + want + " [[joint." + key + "]] table" + (hi == 1 ? "" : "s") +
                                ", got " + std::to_string(axes.size());
        if (r.has(key)) r.fail_at(key, msg);
        r.fail(r.table().source(), msg);
    }
    return axes;
}

int add_joint(TableReader& r, ModelBuilder& b, const std::string& type);

// A [[joint]] and its XPBD compliances.
void read_joint(TableReader& r, ModelBuilder& b) {
    std::string type =
        r.string("type", "", {"revolute", "prismatic", "ball", "fixed", "free", "universal", "compound", "d6", "distance"});
    if (type.empty()) r.fail(r.table().source(), "missing key 'type' in [[joint]]");
    const float linear = float(r.number("linear_compliance", 0.0, 0.0));
    const float angular = float(r.number("angular_compliance", 0.0, 0.0));
    const int j = add_joint(r, b, type);
    if (linear != 0.0f || angular != 0.0f) b.set_joint_compliance(j, linear, angular);
}

int add_joint(TableReader& r, ModelBuilder& b, const std::string& type) {
    const int parent = body_by_name(r, b, "parent", true);
    const int child = body_by_name(r, b, "child", false);
    ModelBuilder::Xform xp{r.vec3("parent_pos"), r.rotation("parent_")};
    ModelBuilder::Xform xc{r.vec3("child_pos"), r.rotation("child_")};
    const bool filter = r.boolean("collision_filter_parent", true);
    const float armature = type == "distance" ? 0.0f : float(r.number("armature", type == "free" ? 0.0 : 0.01, 0.0));
    const std::string name = r.string("name", "");
    if (type == "ball") return b.add_joint_ball(parent, child, xp, xc, filter, armature, name);
    if (type == "fixed") return b.add_joint_fixed(parent, child, xp, xc, filter, armature, name);
    if (type == "free") return b.add_joint_free(child, xp, parent, name, xc, armature);
    if (type == "distance") {
        JointAxisDef d;
        d.limit_lower = float(r.number("min_distance", -1.0));
        d.limit_upper = float(r.number("max_distance", 1.0));
        return b.add_joint_distance(parent, child, xp, xc, d, filter, name);
    }
    if (type == "universal" || type == "compound" || type == "d6") {
        const size_t n_ang = type == "universal" ? 2 : 3;
        std::vector<JointAxisDef> lin = read_axes(r, b, type, "linear_axis", 0, type == "d6" ? 3 : 0);
        std::vector<JointAxisDef> ang = read_axes(r, b, type, "angular_axis", type == "d6" ? 0 : n_ang, n_ang);
        if (type == "universal") return b.add_joint_universal(parent, child, xp, xc, ang[0], ang[1], filter, armature, name);
        if (type == "compound")
            return b.add_joint_compound(parent, child, xp, xc, ang[0], ang[1], ang[2], filter, armature, name);
        return b.add_joint_d6(parent, child, xp, xc, lin, ang, filter, armature, name);
    }
    JointAxisDef a = read_axis(r, b, false);
    if (type == "revolute") return b.add_joint_revolute(parent, child, xp, xc, a, filter, armature, name);
    return b.add_joint_prismatic(parent, child, xp, xc, a, filter, armature, name);
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
            std::string type = sr.string("type", "", {"sphere", "box", "capsule", "cylinder", "cone", "mesh"});
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
            if (type == "cylinder")
                b.add_shape_cylinder(body, spos, srot, float(sr.required_number("radius", 0.0, INFINITY, true)),
                                     float(sr.required_number("half_height", 0.0, INFINITY, true)), p);
            if (type == "cone")
                b.add_shape_cone(body, spos, srot, float(sr.required_number("radius", 0.0, INFINITY, true)),
                                 float(sr.required_number("half_height", 0.0, INFINITY, true)), p);
            if (type == "mesh") {
                read_mesh_shape(sr, [&](const Mesh& mesh, const Vec3& scale, int resolution, float margin) {
                    b.add_shape_mesh(body, spos, srot, mesh, scale, p, resolution, margin);
                });
            }
        });
        if (!any && !(mass > 0)) r.fail(r.table().source(), "a [[body]] needs a [[body.shape]] or a mass");
    });
    if (const toml::node* n = root.get("joint_attachment")) {
        if (!n->is_table()) root.fail(n->source(), "'joint_attachment' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[joint_attachment]");
        b.joint_attach_ke = float(r.number("ke", b.joint_attach_ke, 0.0));
        b.joint_attach_kd = float(r.number("kd", b.joint_attach_kd, 0.0));
        r.finish();
    }
    for_each_entry(root, "joint", [&](TableReader& r) { read_joint(r, b); });
}

}  // namespace weft::engine

#endif
