// engine/import_shapes.cpp: see import_shapes.h.
#include "engine/import_shapes.h"

#include <cmath>
#include <filesystem>
#include <set>

#include "engine/body_inertia.h"
#include "engine/obj_reader.h"

namespace weft::engine {

namespace {
std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}  // namespace

ShapeParams ShapeImport::params(double density) const {
    ShapeParams p;
    p.density = float(density);
    p.ke = o_.contact_ke;
    p.kd = o_.contact_kd;
    p.kf = o_.contact_kf;
    p.ka = o_.contact_ka;
    p.mu = o_.contact_mu;
    p.restitution = o_.contact_restitution;
    p.thickness = o_.contact_thickness;
    return p;
}

template <class F>
void ShapeImport::located(ElementReader& r, F&& add) {
    try {
        add();
    } catch (const BuildError& e) { r.fail(e.what()); }
}

double ShapeImport::volume(int geo_type, const Eigen::Vector3d& scale) {
    return shape_mass_properties(geo_type, scale, 1.0).mass;
}

void ShapeImport::sphere(ElementReader& r, int body, const Frame& t, double radius, double density) {
    if (!(radius > 0)) r.fail("the sphere's radius must be > 0, got " + fmt(radius));
    located(r, [&] { b_.add_shape_sphere(body, t.p.cast<float>(), t.q.cast<float>(), float(radius), params(density)); });
}

void ShapeImport::box(ElementReader& r, int body, const Frame& t, const Eigen::Vector3d& half, double density) {
    if (!(half.minCoeff() > 0))
        r.fail("the box's sizes must be > 0, got (" + fmt(half.x()) + ", " + fmt(half.y()) + ", " + fmt(half.z()) +
               ") half extents");
    located(r, [&] {
        b_.add_shape_box(body, t.p.cast<float>(), t.q.cast<float>(), float(half.x()), float(half.y()), float(half.z()),
                         params(density));
    });
}

void ShapeImport::capsule(ElementReader& r, int body, const Frame& t, double radius, double half_height, double density) {
    if (!(radius > 0 && half_height >= 0))
        r.fail("the capsule's radius must be > 0 and its half length >= 0, got " + fmt(radius) + " and " + fmt(half_height));
    located(r, [&] {
        b_.add_shape_capsule(body, t.p.cast<float>(), t.q.cast<float>(), float(radius), float(half_height), params(density));
    });
}

void ShapeImport::cylinder(ElementReader& r, int body, const Frame& t, double radius, double half_height, double density) {
    if (!(radius > 0 && half_height > 0))
        r.fail("the cylinder's radius and half length must be > 0, got " + fmt(radius) + " and " + fmt(half_height));
    located(r, [&] {
        b_.add_shape_cylinder(body, t.p.cast<float>(), t.q.cast<float>(), float(radius), float(half_height), params(density));
    });
}

void ShapeImport::mesh(ElementReader& r, int body, const Frame& t, const std::string& file, const Eigen::Vector3d& scale,
                       double density, double mass) {
    if (file.empty()) return;
    if (!std::filesystem::exists(file)) {
        r.warn("mesh file '" + file + "' does not exist; the mesh is skipped");
        return;
    }
    std::string ext = std::filesystem::path(file).extension().string();
    for (auto& c : ext) c = char(std::tolower(c));
    if (ext != ".obj") {
        r.warn("mesh '" + file + "': only OBJ meshes are read (not '" + ext + "'); the mesh is skipped");
        return;
    }
    Mesh m;
    try {
        m = read_obj(file);
    } catch (const ObjError& e) { r.fail(std::string("mesh: ") + e.what()); }
    if (body < 0) {
        located(r,
                [&] { b_.add_shape_mesh(t.p.cast<float>(), m, t.q.cast<float>(), scale.cast<float>(), o_.contact_thickness); });
        return;
    }
    if (density > 0 || mass > 0) {
        try {
            const double volume = mesh_mass_properties(m, scale, 1.0).mass;
            if (mass >= 0) density = mass / volume;
        } catch (const std::invalid_argument& e) {
            r.warn("mesh '" + file + "' adds no mass to its body: " + e.what());
            density = 0.0;
        }
    }
    located(r, [&] { b_.add_shape_mesh(body, t.p.cast<float>(), t.q.cast<float>(), m, scale.cast<float>(), params(density)); });
}

void ShapeImport::plane(ElementReader& r, int body, const Frame& t) {
    if (body >= 0) {
        r.warn("plane on a body is skipped: planes are static shapes");
        return;
    }
    Eigen::Vector3d n = t.q * Eigen::Vector3d::UnitZ();
    const double d = -n.dot(t.p);  // the builder's plane: n.x + d = 0, solid below
    located(r, [&] {
        b_.add_shape_plane(Eigen::Vector4f(float(n.x()), float(n.y()), float(n.z()), float(d)), o_.contact_thickness);
    });
}

namespace {

// The axes of a base_joint string, each "px" etc. (check_import_options has checked them).
std::vector<std::string> base_joint_axes(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        std::string a = s.substr(start, end - start);
        a.erase(0, a.find_first_not_of(' '));
        a.erase(a.find_last_not_of(' ') + 1);
        out.push_back(a);
        start = end + 1;
    }
    return out;
}

}  // namespace

int add_axis_base_joint(ModelBuilder& b, const ImportOptions& o, int root, const std::string& name) {
    std::vector<JointAxisDef> linear, angular;
    for (const std::string& s : base_joint_axes(o.base_joint)) {
        JointAxisDef ax;
        ax.axis = s[1] == 'x' ? Vec3(1, 0, 0) : s[1] == 'y' ? Vec3(0, 1, 0) : Vec3(0, 0, 1);
        ax.limit_lower = o.joint_limit_lower;
        ax.limit_upper = o.joint_limit_upper;
        ax.limit_ke = o.limit_ke;
        ax.limit_kd = o.limit_kd;
        (s[0] == 'p' || s[0] == 'l' ? linear : angular).push_back(ax);
    }
    // The position comes first and the rotation after the joint, so that the axis is the world's.
    ModelBuilder::Xform X_p{o.xform.p, Quat::Identity()}, X_c{Vec3::Zero(), o.xform.q.normalized().conjugate()};
    if (linear.size() + angular.size() > 1) return b.add_joint_d6(-1, root, X_p, X_c, linear, angular, true, 0.0f, name);
    return linear.size() == 1 ? b.add_joint_prismatic(-1, root, X_p, X_c, linear[0], true, 0.0f, name)
                              : b.add_joint_revolute(-1, root, X_p, X_c, angular[0], true, 0.0f, name);
}

void set_free_coordinates(ModelBuilder& b, int joint) {
    const size_t j = size_t(joint);
    const auto& c = b.body_q[size_t(b.joint_child[j])];
    Frame child{Eigen::Vector3d(c[0], c[1], c[2]), Eigen::Quaterniond(c[6], c[3], c[4], c[5])};
    if (b.joint_parent[j] >= 0) {
        const auto& p = b.body_q[size_t(b.joint_parent[j])];
        child = Frame{Eigen::Vector3d(p[0], p[1], p[2]), Eigen::Quaterniond(p[6], p[3], p[4], p[5])}.inverse() * child;
    }
    const auto& xp = b.joint_X_p[j];
    child = Frame{Eigen::Vector3d(xp[0], xp[1], xp[2]), Eigen::Quaterniond(xp[6], xp[3], xp[4], xp[5])}.inverse() * child;
    const int s = b.joint_q_start(joint);
    const float v[7] = {float(child.p.x()), float(child.p.y()), float(child.p.z()), float(child.q.x()),
                        float(child.q.y()), float(child.q.z()), float(child.q.w())};
    for (int k = 0; k < 7; ++k) b.joint_q[size_t(s + k)] = v[k];
}

void check_import_options(const ImportOptions& o, const std::string& call) {
    auto fail = [&](const std::string& m) { throw ImportError(call + ": " + m); };
    auto nonneg = [&](const char* name, float v) {
        if (!(v >= 0) || !std::isfinite(v)) fail(std::string(name) + " must be a finite number >= 0, got " + fmt(v));
    };
    if (!(o.scale > 0) || !std::isfinite(o.scale)) fail("scale must be > 0, got " + fmt(o.scale));
    nonneg("density", o.density);
    nonneg("stiffness", o.stiffness);
    nonneg("damping", o.damping);
    nonneg("armature", o.armature);
    nonneg("armature_scale", o.armature_scale);
    nonneg("contact_ke", o.contact_ke);
    nonneg("contact_kd", o.contact_kd);
    nonneg("contact_kf", o.contact_kf);
    nonneg("contact_ka", o.contact_ka);
    nonneg("contact_mu", o.contact_mu);
    nonneg("contact_restitution", o.contact_restitution);
    nonneg("contact_thickness", o.contact_thickness);
    nonneg("limit_ke", o.limit_ke);
    nonneg("limit_kd", o.limit_kd);
    nonneg("static_link_mass", o.static_link_mass);
    if (!(o.joint_limit_lower <= o.joint_limit_upper))
        fail("joint_limit_lower (" + fmt(o.joint_limit_lower) + ") must be <= joint_limit_upper (" + fmt(o.joint_limit_upper) +
             ")");
    if (o.up_axis != "X" && o.up_axis != "Y" && o.up_axis != "Z" && o.up_axis != "x" && o.up_axis != "y" && o.up_axis != "z")
        fail("up_axis must be 'X', 'Y' or 'Z', got '" + o.up_axis + "'");
    if (!o.base_joint.empty()) {
        std::set<std::string> seen;
        for (const std::string& s : base_joint_axes(o.base_joint)) {
            bool ok = s.size() == 2 && (s[0] == 'p' || s[0] == 'l' || s[0] == 'r' || s[0] == 'a') &&
                      (s[1] == 'x' || s[1] == 'y' || s[1] == 'z');
            if (!ok)
                fail("base_joint '" + o.base_joint + "': '" + s +
                     "' is not an axis: 'px', 'py', 'pz' (prismatic) or 'rx', 'ry', 'rz' (revolute), separated by commas");
            const std::string key = std::string(1, s[0] == 'l' ? 'p' : s[0] == 'a' ? 'r' : s[0]) + s[1];
            if (!seen.insert(key).second) fail("base_joint '" + o.base_joint + "' names axis '" + key + "' twice");
        }
        if (o.floating) fail("base_joint and floating=true exclude each other");
    }
    if (!o.xform.p.allFinite() || !o.xform.q.coeffs().allFinite() || o.xform.q.norm() < 1e-6f)
        fail("xform must be finite with a nonzero quaternion");
}

}  // namespace weft::engine
