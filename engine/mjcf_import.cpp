// engine/mjcf_import.cpp: see mjcf_import.h. One pass over the file in MuJoCo's compile order:
// <compiler> (angle units, euler sequence, mesh folder), <default> classes (resolved at once: a
// class holds its parent's attributes overridden by its own), <asset> meshes, <option>, then the
// <worldbody> tree depth first (a body is added before its children, so a joint's parent always
// exists), then <actuator>s onto the joints they name.
#include "engine/mjcf_import.h"

#include <cmath>
#include <filesystem>

#include "engine/import_frames.h"
#include "engine/import_shapes.h"
#include "engine/xml_reader.h"
#include "support/closest_name.h"

namespace weft::engine {

using tinyxml2::XMLElement;

namespace {

using Attrs = std::map<std::string, std::string>;
using ClassDefaults = std::map<std::string, Attrs>;  // tag -> attributes

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

class MjcfImporter {
public:
    MjcfImporter(const XmlFile& f, ModelBuilder& b, const ImportOptions& o) : f_(f), b_(b), o_(o), shapes_(f, b, o, w_) {}

    ImportResult run() {
        const XMLElement* root = f_.root();
        if (std::string(root->Name()) != "mujoco")
            f_.fail(root, "the root element is <" + std::string(root->Name()) + ">, an MJCF file has <mujoco>");
        ElementReader m(f_, root, w_, "<mujoco>");
        m.accept({"model"});
        for (const XMLElement* c : m.children("compiler")) read_compiler(c);
        for (const XMLElement* d : m.children("default")) read_default(d, nullptr);
        for (const XMLElement* a : m.children("asset")) read_assets(a);
        set_root_frame();
        for (const XMLElement* o : m.children("option")) read_option(o);
        m.children("visual");  // rendering only
        res_.body_start = b_.body_count();
        res_.joint_start = b_.joint_count();
        res_.shape_start = int(b_.shape_geo_type.size());
        b_.add_articulation();  // one articulation per import, as Warp's
        auto worlds = m.children("worldbody");
        if (worlds.empty()) f_.fail(root, "<mujoco> has no <worldbody>");
        for (const XMLElement* w : worlds) read_worldbody(w);
        for (const XMLElement* a : m.children("actuator")) read_actuators(a);
        m.finish();
        res_.body_end = b_.body_count();
        res_.joint_end = b_.joint_count();
        res_.shape_end = int(b_.shape_geo_type.size());
        filter_self_collisions(b_, o_, false, res_.shape_start, res_.shape_end);
        res_.warnings = w_.lines();
        return res_;
    }

private:
    // [SECTION] compiler, defaults, assets, option
    void read_compiler(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<compiler>");
        degrees_ = r.choice("angle", "degree", {"degree", "radian"}) == "degree";
        eulerseq_ = r.string("eulerseq", "xyz");
        bool ok = eulerseq_.size() == 3;
        for (char c : eulerseq_) ok = ok && std::string("xyzXYZ").find(c) != std::string::npos;
        if (!ok) r.fail("eulerseq must be 3 of the letters x, y, z, X, Y, Z, got '" + eulerseq_ + "'");
        meshdir_ = r.string("meshdir", "");
        autolimits_ = r.boolean("autolimits", true);
        r.accept({"texturedir", "assetdir"});
        if (r.has("coordinate") && r.string("coordinate") != "local")
            r.fail("coordinate='global' is not supported (MuJoCo 2.2 removed it)");
        r.finish();
    }

    void read_default(const XMLElement* e, const ClassDefaults* parent) {
        ElementReader r(f_, e, w_, "<default>");
        std::string cls = r.string("class", parent ? "" : "main");
        if (cls.empty()) r.fail("a nested <default> needs a class");
        if (classes_.count(cls)) r.fail("a second default class '" + cls + "'");
        ClassDefaults d = parent ? *parent : ClassDefaults{};
        for (const XMLElement* c : r.children()) {
            std::string tag = c->Name();
            if (tag == "default") continue;
            for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a; a = a->Next()) d[tag][a->Name()] = a->Value();
        }
        classes_[cls] = d;
        class_names_.push_back(cls);
        for (const XMLElement* c : r.children("default")) read_default(c, &classes_[cls]);
        r.finish();
    }

    // The defaults for element `e` of kind `tag`: its class, else the inherited childclass, else "main".
    const Attrs* defaults_for(ElementReader& r, const std::string& tag, const std::string& childclass) {
        std::string cls = r.string("class", childclass.empty() ? "main" : childclass);
        auto it = classes_.find(cls);
        if (it == classes_.end()) {
            if (cls == "main") return nullptr;
            std::string near = support::closest_name(cls, class_names_);
            r.fail("unknown class '" + cls + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        auto t = it->second.find(tag);
        return t == it->second.end() ? nullptr : &t->second;
    }

    void read_assets(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<asset>");
        namespace fs = std::filesystem;
        for (const XMLElement* m : r.children("mesh")) {
            ElementReader mr(f_, m, w_, "<mesh>");
            mr.set_defaults(nullptr);
            std::string file = mr.required_string("file");
            std::string name = mr.string("name", fs::path(file).stem().string());
            std::vector<double> s = mr.numbers("scale", 3, {1, 1, 1});
            mr.accept({"class"});
            mr.finish();
            fs::path p = fs::path(meshdir_) / file;
            if (!p.is_absolute()) p = fs::path(f_.path()).parent_path() / p;
            meshes_[name] = {p.string(), Eigen::Vector3d(s[0], s[1], s[2])};
        }
        r.children("texture");
        r.children("material");  // appearance only
        r.finish();
    }

    void set_root_frame() {
        // The MJCF's up axis becomes the builder's +y (Warp's up_axis; X turns +x onto +y), after
        // options.xform's rotation, which acts in the MJCF's frame as in Warp.
        const double h = std::sqrt(0.5);
        Eigen::Quaterniond up = Eigen::Quaterniond::Identity();  // (w, x, y, z)
        const char axis = char(std::toupper(o_.up_axis[0]));
        if (axis == 'Z') up = Eigen::Quaterniond(h, -h, 0, 0);  // -90 deg about x: +z -> +y
        if (axis == 'X') up = Eigen::Quaterniond(h, 0, 0, h);   // +90 deg about z: +x -> +y
        X0_ = Frame{o_.xform.p.cast<double>(), (up * o_.xform.q.cast<double>().normalized()).normalized()};
    }

    void read_option(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<option>");
        if (r.has("gravity")) {
            Vec3 g = r.vec3("gravity", Vec3::Zero());
            b_.gravity = (X0_.q * g.cast<double>()).cast<float>();
            res_.gravity_set = true;
        }
        res_.timestep = float(r.number("timestep", 0.0));
        if (r.has("timestep") && !(res_.timestep > 0)) r.fail("timestep must be > 0, got " + fmt(res_.timestep));
        r.finish();
    }

    // [SECTION] frames
    Eigen::Quaterniond read_orientation(ElementReader& r) {
        int n = 0;
        Eigen::Quaterniond q = Eigen::Quaterniond::Identity();
        const double unit = degrees_ ? M_PI / 180.0 : 1.0;
        if (r.has("quat")) {
            ++n;
            auto v = r.numbers("quat", 4, {});
            q = Eigen::Quaterniond(v[0], v[1], v[2], v[3]);
            if (q.norm() < 1e-12) r.fail("attribute 'quat' must be a nonzero quaternion");
            q.normalize();
        }
        if (r.has("axisangle")) {
            ++n;
            auto v = r.numbers("axisangle", 4, {});
            Eigen::Vector3d a(v[0], v[1], v[2]);
            if (a.norm() < 1e-12) r.fail("the axis of 'axisangle' must be nonzero");
            q = Eigen::Quaterniond(Eigen::AngleAxisd(v[3] * unit, a.normalized()));
        }
        if (r.has("euler")) {
            ++n;
            auto v = r.numbers("euler", 3, {});
            // MuJoCo's rule: a lowercase axis rotates with the frame (multiply on the right), an
            // uppercase one is fixed (multiply on the left).
            q = Eigen::Quaterniond::Identity();
            for (int i = 0; i < 3; ++i) {
                char c = eulerseq_[size_t(i)];
                Eigen::Vector3d ax = Eigen::Vector3d::Unit(std::tolower(c) - 'x');
                Eigen::Quaterniond t(Eigen::AngleAxisd(v[size_t(i)] * unit, ax));
                q = std::islower(c) ? q * t : t * q;
            }
        }
        if (r.has("xyaxes")) {
            ++n;
            auto v = r.numbers("xyaxes", 6, {});
            Eigen::Vector3d x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
            if (x.norm() < 1e-12) r.fail("the x axis of 'xyaxes' must be nonzero");
            x.normalize();
            y -= x * x.dot(y);
            if (y.norm() < 1e-12) r.fail("the axes of 'xyaxes' must not be parallel");
            y.normalize();
            Eigen::Matrix3d R;
            R << x, y, x.cross(y);
            q = Eigen::Quaterniond(R);
        }
        if (r.has("zaxis")) {
            ++n;
            auto v = r.numbers("zaxis", 3, {});
            Eigen::Vector3d z(v[0], v[1], v[2]);
            if (z.norm() < 1e-12) r.fail("attribute 'zaxis' must be nonzero");
            q = Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), z.normalized());
        }
        if (n > 1) r.fail("more than one of quat, axisangle, euler, xyaxes, zaxis");
        return q;
    }

    Frame read_frame(ElementReader& r) {
        Frame t;
        t.p = r.vec3("pos", Vec3::Zero()).cast<double>() * o_.scale;
        t.q = read_orientation(r);
        return t;
    }

    // [SECTION] bodies
    void read_worldbody(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<worldbody>");
        for (const XMLElement* c : r.children()) {
            std::string tag = c->Name();
            if (tag == "geom")
                read_geom(c, -1, X0_, "world", "");
            else if (tag == "body")
                read_body(c, -1, X0_, "");
            else if (tag == "site" || tag == "camera" || tag == "light")
                continue;  // no physics
            else
                w_.add(f_.where(c), "unsupported element <" + tag + "> in <worldbody> ignored");
        }
        r.finish();
    }

    void read_body(const XMLElement* e, int parent, const Frame& parent_world, const std::string& childclass_in) {
        ElementReader r(f_, e, w_, "<body>");
        const std::string name = r.string("name", "body " + std::to_string(b_.body_count()));
        ElementReader br(f_, e, w_, "body '" + name + "'");
        br.accept({"name"});
        const std::string childclass = br.string("childclass", childclass_in);
        if (br.has("childclass") && !classes_.count(childclass)) {
            std::string near = support::closest_name(childclass, class_names_);
            br.fail("unknown childclass '" + childclass + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        const Frame local = read_frame(br);
        const Frame world = parent_world * local;
        const int link =
            b_.add_body(world.p.cast<float>(), world.q.cast<float>(), Vec3::Zero(), Eigen::Matrix3f::Zero(), 0.0f, 0.0f, name);
        res_.body_index[name] = link;

        // The joint: one <joint> (or <freejoint>) per body, or several hinge and slide joints, which
        // become one joint with an axis each (Warp's rule: universal for two hinges, compound for
        // three, D6 for the other mixes).
        std::vector<const XMLElement*> joints = br.children("joint");
        auto frees = br.children("freejoint");
        joints.insert(joints.end(), frees.begin(), frees.end());
        if (joints.empty()) {
            // A body without joints is welded to its parent.
            Frame X_p = parent < 0 ? world : local;
            add_joint_located(e, name, [&] {
                return b_.add_joint_fixed(parent, link, X_p.xform(), ModelBuilder::Xform{}, true, 0.0f, name + "_joint");
            });
        } else if (joints.size() == 1) {
            read_joint(joints[0], link, parent, local, world, name, childclass);
        } else {
            read_joint_group(joints, link, parent, local, world, name, childclass);
        }

        for (const XMLElement* g : br.children("geom")) read_geom(g, link, Frame{}, name, childclass);
        const XMLElement* inertial = br.child("inertial");
        if (inertial) read_inertial(inertial, link, name);
        ensure_mass(link);
        br.children("site");
        br.children("camera");
        br.children("light");
        for (const XMLElement* c : br.children("body")) read_body(c, link, world, childclass);
        br.finish();
    }

    template <class F>
    int add_joint_located(const XMLElement* e, const std::string& name, F&& add) {
        int j = -1;
        try {
            j = add();
        } catch (const BuildError& err) { f_.fail(e, "joint '" + name + "': " + err.what()); }
        res_.joint_index[b_.joint_name[size_t(j)]] = j;
        return j;
    }

    void read_joint(const XMLElement* e, int link, int parent, const Frame& local, const Frame& world, const std::string& body,
                    const std::string& childclass) {
        const bool is_free_tag = std::string(e->Name()) == "freejoint";
        ElementReader r0(f_, e, w_, "<joint>");
        const std::string name = r0.string("name", body + "_joint");
        ElementReader r(f_, e, w_, "joint '" + name + "'");
        r.accept({"name"});
        if (!is_free_tag) r.set_defaults(defaults_for(r, "joint", childclass));
        r.accept({"class"});
        const std::string type = is_free_tag ? "free" : r.choice("type", "hinge", {"hinge", "slide", "ball", "free"});
        if (type == "free") {
            if (parent >= 0)
                r.fail("a free joint must be in a top-level body (MuJoCo's rule), and body '" + body + "' is inside another");
            if (!is_free_tag) r.accept({"pos", "axis", "range", "limited", "stiffness", "damping", "armature"});
            r.finish();
            if (o_.floating) {
                int j = add_joint_located(e, name, [&] { return b_.add_joint_free(link, ModelBuilder::Xform{}, -1, name); });
                set_free_coordinates(b_, j);
            } else if (!o_.base_joint.empty()) {
                add_joint_located(e, name, [&] { return add_axis_base_joint(b_, o_, link, "base_joint"); });
            } else {
                r.warn(
                    "the free joint becomes a fixed joint to the world (floating=false, Warp's rule; pass floating=true "
                    "for a free body)");
                add_joint_located(e, name, [&] {
                    return b_.add_joint_fixed(-1, link, world.xform(), ModelBuilder::Xform{}, true, 0.0f, "fixed_base");
                });
            }
            return;
        }
        AxisJoint a = read_axis_joint(r, type);
        // The joint frame: at `pos` in the body, with the body's orientation; axes in the body frame.
        const Frame X_p = (parent < 0 ? world : local) * a.pos;
        const ModelBuilder::Xform X_c = a.pos.xform();
        if (type == "ball") {
            if (a.limited) r.warn("the ball joint's range is not simulated (the builder's ball joint has no limit)");
            add_joint_located(e, name, [&] { return b_.add_joint_ball(parent, link, X_p.xform(), X_c, true, a.armature, name); });
            return;
        }
        const int j = add_joint_located(e, name, [&] {
            return a.angular ? b_.add_joint_revolute(parent, link, X_p.xform(), X_c, a.axis, true, a.armature, name)
                             : b_.add_joint_prismatic(parent, link, X_p.xform(), X_c, a.axis, true, a.armature, name);
        });
        res_.joint_axis_index[name] = b_.joint_axis_start[size_t(j)];
    }

    // A hinge, slide or ball <joint> past its name and type: its position in the body, its axis with
    // drive (stiffness, damping) and limits (range), its armature.
    struct AxisJoint {
        Frame pos;
        JointAxisDef axis;
        float armature = 0.0f;
        bool angular = true, limited = false;
    };
    AxisJoint read_axis_joint(ElementReader& r, const std::string& type) {
        AxisJoint a;
        a.pos = Frame{r.vec3("pos", Vec3::Zero()).cast<double>() * o_.scale, Eigen::Quaterniond::Identity()};
        Eigen::Vector3d axis = r.vec3("axis", Vec3(0, 0, 1)).cast<double>();
        if (axis.norm() < 1e-9) r.fail("attribute 'axis' must be a nonzero vector");
        axis.normalize();
        const bool has_range = r.has("range");
        std::vector<double> range = r.numbers("range", 2, {0, 0});
        std::string limited = r.choice("limited", "auto", {"true", "false", "auto"});
        a.limited = limited == "true" || (limited == "auto" && autolimits_ && has_range);
        if (a.limited && range[0] > range[1])
            r.fail("range lower (" + fmt(range[0]) + ") is above upper (" + fmt(range[1]) + ")");
        const bool has_stiffness = r.has("stiffness");
        const float stiffness = float(r.number("stiffness", o_.stiffness));
        const float damping = float(r.number("damping", o_.damping));
        a.armature = float(r.number("armature", o_.armature) * o_.armature_scale);
        if (stiffness < 0 || damping < 0 || a.armature < 0) r.fail("stiffness, damping and armature must be >= 0");
        for (const char* k : {"springref", "ref", "frictionloss"})
            if (r.number(k, 0.0) != 0.0) r.warn(std::string(k) + " is not simulated (the joint's zero is its pose in the file)");
        r.accept({"group", "user"});
        r.finish();
        JointAxisDef& ax = a.axis;
        ax.axis = axis.cast<float>();
        ax.target_ke = stiffness;
        ax.target_kd = damping;
        // Warp's rule, and damping alone as well: only TARGET_POSITION applies target_kd.
        ax.mode = (stiffness > 0 || has_stiffness || damping > 0) ? JOINT_MODE_TARGET_POSITION : JOINT_MODE_FORCE;
        a.angular = type == "hinge";
        const double unit = a.angular ? (degrees_ ? M_PI / 180.0 : 1.0) : o_.scale;
        ax.limit_lower = a.limited ? float(range[0] * unit) : o_.joint_limit_lower;
        ax.limit_upper = a.limited ? float(range[1] * unit) : o_.joint_limit_upper;
        ax.limit_ke = o_.limit_ke;
        ax.limit_kd = o_.limit_kd;
        return a;
    }

    // Several <joint>s in one body (hinge and slide only): one builder joint with an axis per
    // <joint>, named by their names joined with '_', at the first one's position with its armature
    // (Warp's rule): two hinges make a universal joint, three a compound one, any other mix of
    // hinges and slides a D6 joint (its slides first, then its hinges, whatever their order).
    void read_joint_group(const std::vector<const XMLElement*>& joints, int link, int parent, const Frame& local,
                          const Frame& world, const std::string& body, const std::string& childclass) {
        std::vector<JointAxisDef> linear, angular;
        std::vector<std::string> names, linear_names, angular_names;
        Frame pos;
        float armature = 0.0f;
        for (size_t k = 0; k < joints.size(); ++k) {
            const XMLElement* e = joints[k];
            ElementReader r0(f_, e, w_, "<joint>");
            const std::string name = r0.string("name", body + "_joint_" + std::to_string(k));
            ElementReader r(f_, e, w_, "joint '" + name + "'");
            r.accept({"name"});
            const bool is_free_tag = std::string(e->Name()) == "freejoint";
            if (!is_free_tag) r.set_defaults(defaults_for(r, "joint", childclass));
            r.accept({"class"});
            const std::string type = is_free_tag ? "free" : r.choice("type", "hinge", {"hinge", "slide", "ball", "free"});
            if (type == "free" || type == "ball")
                r.fail("body '" + body + "' has " + std::to_string(joints.size()) + " joints and this one is a " + type +
                       " joint: several joints in one body must be hinge and slide joints");
            AxisJoint a = read_axis_joint(r, type);
            if (k == 0) {
                pos = a.pos;
                armature = a.armature;
            } else if ((a.pos.p - pos.p).norm() > 1e-9) {
                r.warn("the joint is placed at the body's first joint's position (the builder's joint has one frame)");
            }
            names.push_back(name);
            (a.angular ? angular : linear).push_back(a.axis);
            (a.angular ? angular_names : linear_names).push_back(name);
        }
        std::string name;
        for (const auto& n : names) name += (name.empty() ? "" : "_") + n;
        const Frame X_p = (parent < 0 ? world : local) * pos;
        const ModelBuilder::Xform X_c = pos.xform();
        const int j = add_joint_located(joints[0], name, [&] {
            if (linear.empty() && angular.size() == 2)
                return b_.add_joint_universal(parent, link, X_p.xform(), X_c, angular[0], angular[1], true, armature, name);
            if (linear.empty() && angular.size() == 3)
                return b_.add_joint_compound(parent, link, X_p.xform(), X_c, angular[0], angular[1], angular[2], true, armature,
                                             name);
            return b_.add_joint_d6(parent, link, X_p.xform(), X_c, linear, angular, true, armature, name);
        });
        // Each <joint> by its own name as well, for actuators and the import result.
        const int first = b_.joint_axis_start[size_t(j)];
        for (size_t k = 0; k < linear_names.size(); ++k) {
            res_.joint_index[linear_names[k]] = j;
            res_.joint_axis_index[linear_names[k]] = first + int(k);
        }
        for (size_t k = 0; k < angular_names.size(); ++k) {
            res_.joint_index[angular_names[k]] = j;
            res_.joint_axis_index[angular_names[k]] = first + int(linear_names.size() + k);
        }
    }

    void read_geom(const XMLElement* e, int body, const Frame& frame, const std::string& body_name,
                   const std::string& childclass) {
        ElementReader r(f_, e, w_, "<geom>");
        r.set_defaults(defaults_for(r, "geom", childclass));
        r.accept({"class", "name", "rgba", "material", "group", "user"});
        const std::string cls = r.string("class", childclass);
        if (cls == "visual" && !o_.parse_visuals_as_colliders) {
            r.accept({"type", "size", "pos", "quat", "euler", "axisangle", "xyaxes", "zaxis", "fromto", "mesh", "density", "mass",
                      "contype", "conaffinity"});
            w_.add(r.where(), "geoms of class 'visual' are visuals: not imported (parse_visuals_as_colliders=true imports them)");
            r.finish();
            return;
        }
        std::string type = r.choice("type", r.has("mesh") ? "mesh" : "sphere",
                                    {"plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"});
        const std::string what =
            "geom '" + r.string("name", type) + "' of " + (body < 0 ? std::string("the world") : "body '" + body_name + "'");
        ElementReader g(f_, e, w_, what);
        g.set_defaults(defaults_for(g, "geom", childclass));
        g.accept({"class", "name", "rgba", "material", "group", "user", "type"});
        std::vector<double> size = g.numbers_between("size", 0, 3);
        for (auto& s : size) s *= o_.scale;
        auto sz = [&](size_t i, const char* what_size) {
            if (size.size() <= i) g.fail(type + " needs 'size' with its " + what_size);
            return size[i];
        };
        Frame t = frame * read_frame(g);
        double density = g.number("density", o_.density);
        const bool has_mass = g.has("mass");
        const double mass = g.number("mass", 0.0);
        if (density < 0 || mass < 0) g.fail("density and mass must be >= 0");
        if (g.string("contype", "1") == "0" && g.string("conaffinity", "1") == "0")
            g.warn("contype=0 conaffinity=0: the geom still collides (the builder has no collision masks yet)");
        auto with_mass = [&](int geo_type, const Eigen::Vector3d& scale3) {
            if (has_mass) density = mass / ShapeImport::volume(geo_type, scale3);
        };
        if (type == "sphere") {
            double rad = sz(0, "radius");
            with_mass(GEO_SPHERE, Eigen::Vector3d(rad, 0, 0));
            shapes_.sphere(g, body, t, rad, density);
        } else if (type == "box") {
            Eigen::Vector3d half(sz(0, "half sizes"), sz(1, "3 half sizes"), sz(2, "3 half sizes"));
            with_mass(GEO_BOX, half);
            shapes_.box(g, body, t, half, density);
        } else if (type == "capsule" || type == "cylinder") {
            double rad = sz(0, "radius"), half;
            if (g.has("fromto")) {
                auto ft = g.numbers("fromto", 6, {});
                Eigen::Vector3d a(ft[0], ft[1], ft[2]), c(ft[3], ft[4], ft[5]);
                a *= o_.scale;
                c *= o_.scale;
                if ((c - a).norm() < 1e-12) g.fail("'fromto' must give two different points");
                half = 0.5 * (c - a).norm();
                t = frame * Frame{0.5 * (a + c), y_onto(c - a)};
            } else {
                half = sz(1, "half length");
                t = t * Frame{Eigen::Vector3d::Zero(), y_onto(Eigen::Vector3d::UnitZ())};  // MJCF's axis is local z
            }
            if (type == "capsule") {
                with_mass(GEO_CAPSULE, Eigen::Vector3d(rad, half, 0));
                shapes_.capsule(g, body, t, rad, half, density);
            } else {
                if (has_mass) density = mass / (M_PI * rad * rad * 2 * half);
                shapes_.cylinder(g, body, t, rad, half, density);
            }
        } else if (type == "plane") {
            shapes_.plane(g, body, t);
        } else if (type == "mesh") {
            std::string mesh = g.required_string("mesh");
            auto it = meshes_.find(mesh);
            if (it == meshes_.end()) {
                std::vector<std::string> names;
                for (auto& [n, _] : meshes_) names.push_back(n);
                std::string near = support::closest_name(mesh, names);
                g.fail("no mesh asset named '" + mesh + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
            }
            if (o_.parse_meshes)
                shapes_.mesh(g, body, t, it->second.file, it->second.scale * o_.scale, density, has_mass ? mass : -1.0);
        } else {
            g.warn("geom type '" + type + "' is not supported; the geom is skipped");
            g.accept({"fromto", "mesh", "hfield"});
        }
        g.accept({"contype", "conaffinity"});
        g.finish();
    }

    void read_inertial(const XMLElement* e, int link, const std::string& body) {
        ElementReader r(f_, e, w_, "body '" + body + "' <inertial>");
        Frame t = read_frame(r);
        double mass = r.required_number("mass");
        if (mass < 0) r.fail("mass must be >= 0, got " + fmt(mass));
        Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
        const double s2 = o_.scale * o_.scale;
        if (r.has("diaginertia") && r.has("fullinertia")) r.fail("both diaginertia and fullinertia");
        if (r.has("diaginertia")) {
            auto d = r.numbers("diaginertia", 3, {});
            I = Eigen::Vector3d(d[0], d[1], d[2]).asDiagonal();
        } else if (r.has("fullinertia")) {
            auto v = r.numbers("fullinertia", 6, {});
            I << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
        } else {
            r.fail("needs diaginertia or fullinertia");
        }
        I *= s2;
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I);
        if (eig.eigenvalues().minCoeff() < -1e-12)
            r.fail("the inertia is not positive semi-definite (smallest eigenvalue " + fmt(eig.eigenvalues().minCoeff()) + ")");
        r.finish();
        if (o_.ignore_inertial_definitions) return;  // Warp's default: the geoms give the mass
        const Eigen::Matrix3d R = t.q.toRotationMatrix();
        MassProperties mp;
        mp.mass = mass;
        mp.com = t.p;
        mp.inertia = R * I * R.transpose();
        b_.body_mass[size_t(link)] = mp;
    }

    void ensure_mass(int body) {
        MassProperties& mp = b_.body_mass[size_t(body)];
        if (mp.mass == 0.0 && o_.ensure_nonstatic_links) {
            mp.mass = o_.static_link_mass;
            const double side = 0.5 * o_.scale;
            mp.inertia = Eigen::Matrix3d::Identity() * (mp.mass * side * side / 6.0);
        }
    }

    // [SECTION] actuators
    void read_actuators(const XMLElement* e) {
        ElementReader r(f_, e, w_, "<actuator>");
        for (const XMLElement* a : r.children()) {
            std::string tag = a->Name();
            if (tag != "motor" && tag != "position" && tag != "velocity") {
                w_.add(f_.where(a), "actuator <" + tag + "> is not supported (motor, position and velocity are); ignored");
                continue;
            }
            ElementReader a0(f_, a, w_, "<" + tag + ">");
            ImportedActuator act;
            act.type = tag;
            act.name = a0.string("name", tag + " " + std::to_string(res_.actuators.size()));
            ElementReader ar(f_, a, w_, "actuator '" + act.name + "'");
            ar.set_defaults(defaults_for(ar, tag, ""));
            ar.accept({"name", "class", "group", "user"});
            if (!ar.has("joint")) ar.fail("needs a joint (tendon, site and body transmissions are not supported)");
            std::string joint = ar.string("joint");
            auto it = res_.joint_index.find(joint);
            if (it == res_.joint_index.end()) {
                std::vector<std::string> names;
                for (auto& [n, _] : res_.joint_index) names.push_back(n);
                std::string near = support::closest_name(joint, names);
                ar.fail("no joint named '" + joint + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
            }
            act.joint = it->second;
            auto axis_it = res_.joint_axis_index.find(joint);
            if (axis_it == res_.joint_axis_index.end())
                ar.fail("joint '" + joint + "' is not a hinge or slide joint (the builder's drives act on one axis)");
            const size_t j = size_t(axis_it->second);
            act.axis = int(j);
            auto gear = ar.numbers_between("gear", 1, 6);
            act.gear = gear.empty() ? 1.0f : float(gear[0]);
            for (size_t k = 1; k < gear.size(); ++k)
                if (gear[k] != 0) ar.fail("gear components past the first must be 0 for a joint actuator");
            auto cr = ar.numbers("ctrlrange", 2, {0, 0});
            std::string cl = ar.choice("ctrllimited", "auto", {"true", "false", "auto"});
            act.ctrllimited = cl == "true" || (cl == "auto" && autolimits_ && ar.has("ctrlrange"));
            act.ctrl_lower = float(cr[0]);
            act.ctrl_upper = float(cr[1]);
            if (act.ctrllimited)
                ar.warn("ctrlrange is kept in the import result's actuators but not enforced: clamp the controls you write");
            if (tag == "motor") {
                b_.joint_mode[j] = JOINT_MODE_FORCE;
                if (act.gear != 1.0f)
                    ar.warn("gear " + fmt(act.gear) + ": the joint force is joint_act; multiply controls by the gear");
            } else if (tag == "position") {
                act.kp = float(ar.number("kp", 1.0));
                b_.joint_mode[j] = JOINT_MODE_TARGET_POSITION;
                b_.joint_target_ke[j] = act.kp;  // force = kp (target - q) - target_kd qd (the joint's damping)
            } else {
                act.kv = float(ar.number("kv", 1.0));
                if (b_.joint_target_kd[j] > 0)
                    ar.warn("the joint's damping is not applied under a velocity drive (Warp's TARGET_VELOCITY mode)");
                b_.joint_mode[j] = JOINT_MODE_TARGET_VELOCITY;
                b_.joint_target_ke[j] = act.kv;  // Warp's TARGET_VELOCITY: force = target_ke (target - qd)
            }
            ar.finish();
            res_.actuators.push_back(act);
        }
        r.finish();
    }

    struct MeshAsset {
        std::string file;
        Eigen::Vector3d scale;
    };

    const XmlFile& f_;
    ModelBuilder& b_;
    const ImportOptions& o_;
    ImportWarnings w_;
    ShapeImport shapes_;
    ImportResult res_;
    bool degrees_ = true, autolimits_ = true;
    std::string eulerseq_ = "xyz", meshdir_;
    std::map<std::string, ClassDefaults> classes_;
    std::vector<std::string> class_names_;
    std::map<std::string, MeshAsset> meshes_;
    Frame X0_;
};

}  // namespace

ImportResult parse_mjcf(const std::string& path, ModelBuilder& builder, const ImportOptions& options) {
    check_import_options(options, "parse_mjcf");
    XmlFile f(path);
    return MjcfImporter(f, builder, options).run();
}

ImportResult parse_mjcf_string(const std::string& text, const std::string& path, ModelBuilder& builder,
                               const ImportOptions& options) {
    check_import_options(options, "parse_mjcf");
    XmlFile f(text, path);
    return MjcfImporter(f, builder, options).run();
}

}  // namespace weft::engine
