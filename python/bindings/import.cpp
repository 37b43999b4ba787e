// python/bindings/import.cpp: engine/urdf_import.h and engine/mjcf_import.h for wp.sim.parse_urdf
// / parse_mjcf (python/weft/sim.py checks and names the keywords; this file only carries them).
// Without tinyxml2 the functions exist and raise, so that the Python side can say why.
#include <pybind11/stl.h>

#include "engine/model_builder.h"
#include "python/bindings/bindings.h"

#if WEFT_XML_IMPORT
#include "engine/mjcf_import.h"
#include "engine/urdf_import.h"
#include "engine/xml_reader.h"
#endif

namespace py = pybind11;
using namespace weft::engine;

namespace weft::python {

#if WEFT_XML_IMPORT
namespace {

ImportOptions options_of(const py::dict& kw) {
    ImportOptions o;
    auto f = [&](const char* k, float& v) {
        if (kw.contains(k)) v = kw[k].cast<float>();
    };
    auto b = [&](const char* k, bool& v) {
        if (kw.contains(k)) v = kw[k].cast<bool>();
    };
    if (kw.contains("pos")) {
        auto p = kw["pos"].cast<std::array<float, 3>>();
        o.xform.p = Vec3(p[0], p[1], p[2]);
    }
    if (kw.contains("rot")) {
        auto q = kw["rot"].cast<std::array<float, 4>>();
        o.xform.q = Quat(q[3], q[0], q[1], q[2]);
    }
    b("floating", o.floating);
    if (kw.contains("base_joint")) o.base_joint = kw["base_joint"].cast<std::string>();
    f("density", o.density);
    f("stiffness", o.stiffness);
    f("damping", o.damping);
    f("armature", o.armature);
    f("armature_scale", o.armature_scale);
    f("contact_ke", o.contact_ke);
    f("contact_kd", o.contact_kd);
    f("contact_kf", o.contact_kf);
    f("contact_ka", o.contact_ka);
    f("contact_mu", o.contact_mu);
    f("contact_restitution", o.contact_restitution);
    f("contact_thickness", o.contact_thickness);
    f("limit_ke", o.limit_ke);
    f("limit_kd", o.limit_kd);
    f("joint_limit_lower", o.joint_limit_lower);
    f("joint_limit_upper", o.joint_limit_upper);
    f("scale", o.scale);
    b("parse_visuals_as_colliders", o.parse_visuals_as_colliders);
    b("ignore_inertial_definitions", o.ignore_inertial_definitions);
    b("ensure_nonstatic_links", o.ensure_nonstatic_links);
    f("static_link_mass", o.static_link_mass);
    if (kw.contains("up_axis")) o.up_axis = kw["up_axis"].cast<std::string>();
    b("parse_meshes", o.parse_meshes);
    if (kw.contains("enable_self_collisions")) o.enable_self_collisions = kw["enable_self_collisions"].cast<bool>() ? 1 : 0;
    return o;
}

py::dict result_of(const ImportResult& r) {
    py::dict d;
    d["body_start"] = r.body_start;
    d["body_end"] = r.body_end;
    d["joint_start"] = r.joint_start;
    d["joint_end"] = r.joint_end;
    d["shape_start"] = r.shape_start;
    d["shape_end"] = r.shape_end;
    d["body_index"] = r.body_index;
    d["joint_index"] = r.joint_index;
    d["joint_axis_index"] = r.joint_axis_index;
    py::list acts;
    for (const auto& a : r.actuators) {
        py::dict x;
        x["name"] = a.name;
        x["type"] = a.type;
        x["joint"] = a.joint;
        x["axis"] = a.axis;
        x["gear"] = a.gear;
        x["kp"] = a.kp;
        x["kv"] = a.kv;
        x["ctrllimited"] = a.ctrllimited;
        x["ctrlrange"] = py::make_tuple(a.ctrl_lower, a.ctrl_upper);
        acts.append(x);
    }
    d["actuators"] = acts;
    d["timestep"] = r.timestep;
    d["warnings"] = r.warnings;
    return d;
}

}  // namespace
#endif

void bind_import(py::module_& m) {
#if WEFT_XML_IMPORT
    py::register_exception<ImportError>(m, "ModelImportError", PyExc_ValueError);  // C++ ImportError -> this type
    m.def("parse_urdf", [](const std::string& path, ModelBuilder& b, const py::dict& kw) {
        return result_of(parse_urdf(path, b, options_of(kw)));
    });
    m.def("parse_mjcf", [](const std::string& path, ModelBuilder& b, const py::dict& kw) {
        return result_of(parse_mjcf(path, b, options_of(kw)));
    });
    m.attr("has_xml_import") = true;
#else
    m.attr("has_xml_import") = false;
#endif
}

}  // namespace weft::python
