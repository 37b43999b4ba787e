// engine/urdf_import.cpp: see urdf_import.h. Three passes over the file: read every <link> and
// <joint> (so that joints may come in any order and name links defined after them), find the tree
// (one root, one parent joint per link) and each link's pose with all joints at 0, then add bodies
// in file order and joints from the root outwards (the order Warp's forward kinematics needs).
#include "engine/urdf_import.h"

#include <cmath>
#include <filesystem>
#include <functional>

#include "engine/import_frames.h"
#include "engine/import_shapes.h"
#include "engine/xml_reader.h"
#include "support/closest_name.h"

namespace weft::engine {

using tinyxml2::XMLElement;

namespace {

struct UrdfJoint {
    const XMLElement* e;
    std::string name, type, parent, child;
    Frame origin;
    Eigen::Vector3d axis = Eigen::Vector3d::UnitX();
    bool has_limit = false;
    double lower = 0, upper = 0, effort = NAN, velocity = NAN;
    double damping = NAN;
};

Frame read_origin(ElementReader& parent, double scale, ImportWarnings& w, const XmlFile& f) {
    const XMLElement* o = parent.child("origin");
    if (!o) return Frame{};
    ElementReader r(f, o, w);
    Frame t;
    Vec3 xyz = r.vec3("xyz", Vec3::Zero());
    std::vector<double> rpy = r.numbers("rpy", 3, {0, 0, 0});
    r.finish();
    t.p = xyz.cast<double>() * scale;
    t.q = rpy_quat(rpy[0], rpy[1], rpy[2]);
    return t;
}

class UrdfImporter {
public:
    UrdfImporter(const XmlFile& f, ModelBuilder& b, const ImportOptions& o) : f_(f), b_(b), o_(o) {}

    ImportResult run() {
        const XMLElement* root = f_.root();
        if (std::string(root->Name()) != "robot")
            f_.fail(root, "the root element is <" + std::string(root->Name()) + ">, a URDF file has <robot>");
        ElementReader robot(f_, root, w_, "<robot>");
        robot.accept({"name", "version"});
        for (const XMLElement* l : robot.children("link")) read_link(l);
        for (const XMLElement* j : robot.children("joint")) read_joint(j);
        robot.children("material");  // colours only
        robot.finish();
        if (links_.empty()) f_.fail(root, "<robot> has no <link>");

        ImportResult res;
        res.body_start = b_.body_count();
        res.joint_start = b_.joint_count();
        res.shape_start = int(b_.shape_geo_type.size());
        b_.add_articulation();  // one articulation per import, as Warp's
        place_links();
        for (size_t i = 0; i < links_.size(); ++i) add_link(i, res);
        add_base_joint(res);
        for (int j : order_) add_joint(joints_[size_t(j)], res);
        res.body_end = b_.body_count();
        res.joint_end = b_.joint_count();
        res.shape_end = int(b_.shape_geo_type.size());
        filter_self_collisions(b_, o_, true, res.shape_start, res.shape_end);
        int with_limits = 0;
        for (float v : res.joint_effort_limit) with_limits += std::isnan(v) ? 0 : 1;
        if (with_limits > 0)
            w_.add(f_.where(root), "<limit effort> and <limit velocity> of " + std::to_string(with_limits) +
                                       " joints are kept in the import result (joint_effort_limit, joint_velocity_limit) "
                                       "but not enforced by the solvers");
        res.warnings = w_.lines();
        return res;
    }

private:
    struct Link {
        const XMLElement* e;
        std::string name;
        Frame world;
        int body = -1;
    };

    void read_link(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<link>");
        std::string name = r.required_string("name");
        if (link_index_.count(name)) r.fail("a second link named '" + name + "'");
        link_index_[name] = links_.size();
        links_.push_back(Link{e, name, Frame{}, -1});
        link_names_.push_back(name);
    }

    void read_joint(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<joint>");
        UrdfJoint j;
        j.e = e;
        j.name = r.required_string("name");
        ElementReader jr(f_, e, w_, "joint '" + j.name + "'");
        jr.accept({"name"});
        j.type = jr.choice("type", "", {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"});
        if (j.type == "planar") jr.fail("type 'planar' is not supported (the builder has no D6 joint yet)");
        j.parent = link_ref(jr, "parent");
        j.child = link_ref(jr, "child");
        if (j.parent == j.child) jr.fail("parent and child are the same link '" + j.child + "'");
        j.origin = read_origin(jr, o_.scale, w_, f_);
        if (const XMLElement* a = jr.child("axis")) {
            ElementReader ar(f_, a, w_, "joint '" + j.name + "' <axis>");
            j.axis = ar.vec3("xyz", Vec3(1, 0, 0)).cast<double>();
            if (j.axis.norm() < 1e-9) ar.fail("attribute 'xyz' must be a nonzero vector");
            j.axis.normalize();
            ar.finish();
        }
        if (const XMLElement* l = jr.child("limit")) {
            ElementReader lr(f_, l, w_, "joint '" + j.name + "' <limit>");
            j.has_limit = lr.has("lower") || lr.has("upper");
            j.lower = lr.number("lower", o_.joint_limit_lower);
            j.upper = lr.number("upper", o_.joint_limit_upper);
            j.effort = lr.number("effort", NAN);
            j.velocity = lr.number("velocity", NAN);
            if (j.lower > j.upper) lr.fail("lower (" + format(j.lower) + ") is above upper (" + format(j.upper) + ")");
            lr.finish();
        }
        if (const XMLElement* d = jr.child("dynamics")) {
            ElementReader dr(f_, d, w_, "joint '" + j.name + "' <dynamics>");
            j.damping = dr.number("damping", NAN);
            if (dr.number("friction", 0.0) != 0.0) dr.warn("friction is not simulated (no joint friction in the solvers)");
            dr.finish();
        }
        jr.finish();
        if (joint_of_child_.count(j.child))
            jr.fail("link '" + j.child + "' already has a parent joint '" + joints_[size_t(joint_of_child_[j.child])].name +
                    "' (a URDF is a tree)");
        joint_of_child_[j.child] = int(joints_.size());
        joints_.push_back(j);
    }

    static std::string format(double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return buf;
    }

    std::string link_ref(ElementReader& jr, const char* tag) {
        const XMLElement* c = jr.child(tag);
        if (!c) jr.fail("missing <" + std::string(tag) + ">");
        ElementReader cr(f_, c, w_, jr.what() + " <" + tag + ">");
        std::string name = cr.required_string("link");
        cr.finish();
        if (!link_index_.count(name)) {
            std::string near = support::closest_name(name, link_names_);
            cr.fail("no link named '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        return name;
    }

    // The root and each link's pose with every joint at 0: world(child) = world(parent) origin.
    void place_links() {
        std::vector<std::string> roots;
        for (const auto& l : links_)
            if (!joint_of_child_.count(l.name)) roots.push_back(l.name);
        if (roots.empty()) f_.fail(f_.root(), "the joints form a cycle: every link has a parent joint");
        if (roots.size() > 1)
            f_.fail(links_[link_index_[roots[1]]].e,
                    "link '" + roots[1] + "' has no parent joint, and neither has '" + roots[0] + "': a URDF has one root link");
        root_ = link_index_[roots[0]];
        links_[root_].world = Frame::from(o_.xform);
        std::map<std::string, std::vector<int>> children;
        for (size_t j = 0; j < joints_.size(); ++j) children[joints_[j].parent].push_back(int(j));
        std::function<void(const std::string&)> visit = [&](const std::string& parent) {
            for (int j : children[parent]) {
                const UrdfJoint& jt = joints_[size_t(j)];
                links_[link_index_[jt.child]].world = links_[link_index_[parent]].world * jt.origin;
                order_.push_back(j);
                visit(jt.child);
            }
        };
        visit(links_[root_].name);
    }

    void add_link(size_t i, ImportResult& res) {
        Link& l = links_[i];
        ElementReader r(f_, l.e, w_, "link '" + l.name + "'");
        r.accept({"name"});
        // Warp's parse_urdf gives `armature` to each link's inertia as well as to its joint.
        l.body = b_.add_body(l.world.p.cast<float>(), l.world.q.cast<float>(), Vec3::Zero(), Eigen::Matrix3f::Zero(), 0.0f,
                             o_.armature, l.name);
        res.body_index[l.name] = l.body;
        ShapeImport shapes(f_, b_, o_, w_);
        auto collisions = r.children("collision");
        auto visuals = r.children("visual");
        for (const XMLElement* g : o_.parse_visuals_as_colliders ? visuals : collisions) add_geometry(r, g, l.body, shapes);
        const XMLElement* inertial = r.child("inertial");
        if (inertial && !o_.ignore_inertial_definitions)
            read_inertial(inertial, l);
        else if (inertial) {
            ElementReader ir(f_, inertial, w_, "link '" + l.name + "' <inertial>");
            ir.children();  // read by design when ignore_inertial_definitions is false
            ir.finish();
        }
        r.finish();
        ensure_mass(l.body);
    }

    void add_geometry(ElementReader& link, const XMLElement* g, int body, ShapeImport& shapes) {
        ElementReader gr(f_, g, w_, link.what() + " <" + std::string(g->Name()) + ">");
        gr.accept({"name"});
        Frame t = read_origin(gr, o_.scale, w_, f_);
        gr.children("material");
        const XMLElement* geo = gr.child("geometry");
        gr.finish();
        if (!geo) return;
        ElementReader geor(f_, geo, w_, link.what() + " <geometry>");
        for (const XMLElement* s : geor.children()) {
            std::string kind = s->Name();
            ElementReader sr(f_, s, w_, link.what() + " <" + kind + ">");
            double sc = o_.scale;
            if (kind == "box") {
                std::vector<double> size = sr.numbers("size", 3, {1, 1, 1});
                shapes.box(sr, body, t, Eigen::Vector3d(size[0], size[1], size[2]) * 0.5 * sc, o_.density);
            } else if (kind == "sphere") {
                shapes.sphere(sr, body, t, sr.number("radius", 1.0) * sc, o_.density);
            } else if (kind == "cylinder" || kind == "capsule") {
                // URDF cylinders and capsules lie along their local z axis.
                double radius = sr.number("radius", 1.0) * sc;
                double half = sr.number(kind == "cylinder" ? "length" : "height", 1.0) * 0.5 * sc;
                Frame along = t * Frame{Eigen::Vector3d::Zero(), y_onto(Eigen::Vector3d::UnitZ())};
                if (kind == "cylinder")
                    shapes.cylinder(sr, body, along, radius, half, o_.density);
                else
                    shapes.capsule(sr, body, along, radius, half, o_.density);
            } else if (kind == "mesh") {
                std::string file = sr.required_string("filename");
                std::vector<double> s3 = sr.numbers("scale", 3, {1, 1, 1});
                shapes.mesh(sr, body, t, resolve_mesh(sr, file), Eigen::Vector3d(s3[0], s3[1], s3[2]) * sc, o_.density);
            } else {
                sr.warn("unsupported geometry <" + kind + "> ignored");
                sr.accept({});
                continue;
            }
            sr.finish();
        }
        geor.finish();
    }

    std::string resolve_mesh(ElementReader& r, const std::string& file) {
        namespace fs = std::filesystem;
        fs::path dir = fs::path(f_.path()).parent_path();
        const std::string pkg = "package://";
        if (file.rfind(pkg, 0) == 0) {
            std::string rest = file.substr(pkg.size());
            std::string package = rest.substr(0, rest.find('/'));
            // The package folder is one of the URDF's ancestors (as Warp resolves it).
            for (fs::path p = fs::absolute(dir); !p.empty(); p = p.parent_path()) {
                if (p.filename() == package) return (p.parent_path() / rest).string();
                if (p == p.parent_path()) break;
            }
            r.warn("package '" + package + "' of mesh '" + file + "' is not a folder above the URDF file");
            return "";
        }
        if (file.rfind("http://", 0) == 0 || file.rfind("https://", 0) == 0) {
            r.warn("mesh '" + file + "' is a URL: Weft does not download files; the mesh is skipped");
            return "";
        }
        if (file.rfind("file://", 0) == 0) return file.substr(7);
        return fs::path(file).is_absolute() ? file : (dir / file).string();
    }

    void read_inertial(const XMLElement* e, Link& l) {
        ElementReader ir(f_, e, w_, "link '" + l.name + "' <inertial>");
        Frame t = read_origin(ir, o_.scale, w_, f_);
        const XMLElement* m = ir.child("mass");
        const XMLElement* in = ir.child("inertia");
        if (!m) ir.fail("missing <mass>");
        ElementReader mr(f_, m, w_, ir.what() + " <mass>");
        double mass = mr.required_number("value");
        if (mass < 0) mr.fail("value must be >= 0, got " + format(mass));
        mr.finish();
        Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
        if (in) {
            ElementReader r(f_, in, w_, ir.what() + " <inertia>");
            const double s2 = o_.scale * o_.scale;
            I(0, 0) = r.number("ixx", 0) * s2;
            I(1, 1) = r.number("iyy", 0) * s2;
            I(2, 2) = r.number("izz", 0) * s2;
            I(0, 1) = I(1, 0) = r.number("ixy", 0) * s2;
            I(0, 2) = I(2, 0) = r.number("ixz", 0) * s2;
            I(1, 2) = I(2, 1) = r.number("iyz", 0) * s2;
            r.finish();
            Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
            if (eig.eigenvalues().minCoeff() < -1e-12)
                r.fail("the inertia is not positive semi-definite (smallest eigenvalue " + format(eig.eigenvalues().minCoeff()) +
                       ")");
        }
        ir.finish();
        // The <inertial> frame's rotation turns its inertia into the link frame: R I R^T.
        Eigen::Matrix3d R = t.q.toRotationMatrix();
        MassProperties mp;
        mp.mass = mass;
        mp.com = t.p;
        mp.inertia = R * I * R.transpose();
        b_.body_mass[size_t(l.body)] = mp;
    }

    void ensure_mass(int body) {
        MassProperties& mp = b_.body_mass[size_t(body)];
        if (mp.mass == 0.0 && o_.ensure_nonstatic_links) {
            // Warp's rule: static_link_mass with the inertia of a cube of side 0.5 m (scaled).
            mp.mass = o_.static_link_mass;
            double side = 0.5 * o_.scale;
            mp.inertia = Eigen::Matrix3d::Identity() * (mp.mass * side * side / 6.0);
        }
    }

    void add_base_joint(ImportResult& res) {
        const int root = links_[root_].body;
        ModelBuilder::Xform world = o_.xform;
        int j;
        if (!o_.base_joint.empty()) {
            j = add_axis_base_joint(b_, o_, root, "base_joint");
        } else if (o_.floating) {
            j = b_.add_joint_free(root, ModelBuilder::Xform{}, -1, "floating_base");
            set_free_coordinates(b_, j);
        } else {
            j = b_.add_joint_fixed(-1, root, world, ModelBuilder::Xform{}, true, 0.0f, "fixed_base");
        }
        res.joint_index[b_.joint_name[size_t(j)]] = j;
        res.joint_effort_limit.push_back(NAN);
        res.joint_velocity_limit.push_back(NAN);
    }

    void add_joint(const UrdfJoint& j, ImportResult& res) {
        const int parent = links_[link_index_[j.parent]].body, child = links_[link_index_[j.child]].body;
        JointAxisDef ax;
        ax.axis = j.axis.cast<float>();
        ax.target_ke = o_.stiffness;
        ax.target_kd = std::isnan(j.damping) ? o_.damping : float(j.damping);
        ax.mode = o_.stiffness > 0 ? JOINT_MODE_TARGET_POSITION : JOINT_MODE_FORCE;
        const bool limited = j.type != "continuous";
        const double s = j.type == "prismatic" ? o_.scale : 1.0;
        ax.limit_lower = float(limited ? j.lower * s : o_.joint_limit_lower);
        ax.limit_upper = float(limited ? j.upper * s : o_.joint_limit_upper);
        ax.limit_ke = o_.limit_ke;
        ax.limit_kd = o_.limit_kd;
        const auto X_p = j.origin.xform();
        const ModelBuilder::Xform X_c{};
        int k = -1;
        try {
            if (j.type == "revolute" || j.type == "continuous")
                k = b_.add_joint_revolute(parent, child, X_p, X_c, ax, true, o_.armature, j.name);
            else if (j.type == "prismatic")
                k = b_.add_joint_prismatic(parent, child, X_p, X_c, ax, true, o_.armature, j.name);
            else if (j.type == "fixed")
                k = b_.add_joint_fixed(parent, child, X_p, X_c, true, o_.armature, j.name);
            else {
                k = b_.add_joint_free(child, X_p, parent, j.name);
                set_free_coordinates(b_, k);
            }
        } catch (const BuildError& e) { f_.fail(j.e, "joint '" + j.name + "': " + e.what()); }
        res.joint_index[j.name] = k;
        if (b_.joint_axis_dim[size_t(k)][0] + b_.joint_axis_dim[size_t(k)][1] == 1)
            res.joint_axis_index[j.name] = b_.joint_axis_start[size_t(k)];
        res.joint_effort_limit.push_back(float(j.effort));
        res.joint_velocity_limit.push_back(float(j.velocity));
    }

    const XmlFile& f_;
    ModelBuilder& b_;
    const ImportOptions& o_;
    ImportWarnings w_;
    std::vector<Link> links_;
    std::vector<std::string> link_names_;
    std::map<std::string, size_t> link_index_;
    std::vector<UrdfJoint> joints_;
    std::map<std::string, int> joint_of_child_;
    std::vector<int> order_;  // joints from the root outwards
    size_t root_ = 0;
};

}  // namespace

ImportResult parse_urdf(const std::string& path, ModelBuilder& builder, const ImportOptions& options) {
    check_import_options(options, "parse_urdf");
    XmlFile f(path);
    return UrdfImporter(f, builder, options).run();
}

ImportResult parse_urdf_string(const std::string& text, const std::string& path, ModelBuilder& builder,
                               const ImportOptions& options) {
    check_import_options(options, "parse_urdf");
    XmlFile f(text, path);
    return UrdfImporter(f, builder, options).run();
}

}  // namespace weft::engine
