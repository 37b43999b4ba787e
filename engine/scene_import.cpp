// engine/scene_import.cpp: the [[urdf]] and [[mjcf]] entries of scene files (docs/scene-format.md),
// listed in engine/scene_blocks.def. Each entry imports one file (engine/urdf_import.h,
// engine/mjcf_import.h) into the scene's builder with parse_urdf / parse_mjcf's keywords:
//
//   [[mjcf]]
//   file = "pendulum_chain.xml"        # relative to the scene file
//   pos = [0, 2, 0]                    # xform: position, rot_axis / rot_angle (degrees)
//   floating = false
//   stiffness = 0.0                    # every ImportOptions keyword, with Warp's defaults
//
// An import's error becomes the scene's error at the entry's 'file' key; its warnings join
// Scene::warnings(). Without tinyxml2 an entry is an error that says so.
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES

#include <filesystem>

#if WEFT_XML_IMPORT
#include "engine/mjcf_import.h"
#include "engine/urdf_import.h"
#include "engine/xml_reader.h"
#endif

namespace weft::engine {

namespace {

#if WEFT_XML_IMPORT
ImportOptions read_import_options(TableReader& r, bool mjcf) {
    ImportOptions o;
    o.xform.p = r.vec3("pos", Vec3::Zero());
    o.xform.q = r.rotation();
    o.floating = r.boolean("floating", o.floating);
    o.base_joint = r.string("base_joint", "", {"", "px", "py", "pz", "rx", "ry", "rz"});
    auto num = [&](const char* key, float& v) { v = float(r.number(key, v, 0.0)); };
    num("density", o.density);
    num("stiffness", o.stiffness);
    num("damping", o.damping);
    num("armature", o.armature);
    num("contact_ke", o.contact_ke);
    num("contact_kd", o.contact_kd);
    num("contact_kf", o.contact_kf);
    num("contact_ka", o.contact_ka);
    num("contact_mu", o.contact_mu);
    num("contact_restitution", o.contact_restitution);
    num("contact_thickness", o.contact_thickness);
    num("limit_ke", o.limit_ke);
    num("limit_kd", o.limit_kd);
    num("static_link_mass", o.static_link_mass);
    o.joint_limit_lower = float(r.number("joint_limit_lower", o.joint_limit_lower));
    o.joint_limit_upper = float(r.number("joint_limit_upper", o.joint_limit_upper));
    o.scale = float(r.number("scale", o.scale, 0.0, INFINITY, true));
    o.parse_visuals_as_colliders = r.boolean("parse_visuals_as_colliders", o.parse_visuals_as_colliders);
    o.ignore_inertial_definitions = r.boolean("ignore_inertial_definitions", o.ignore_inertial_definitions);
    o.ensure_nonstatic_links = r.boolean("ensure_nonstatic_links", o.ensure_nonstatic_links);
    o.enable_self_collisions = r.boolean("enable_self_collisions", !mjcf) ? 1 : 0;
    if (mjcf) {
        num("armature_scale", o.armature_scale);
        o.up_axis = r.string("up_axis", o.up_axis, {"X", "Y", "Z"});
        o.parse_meshes = r.boolean("parse_meshes", o.parse_meshes);
    }
    return o;
}
#endif

void read_entries(TableReader& root, Scene& s, const char* block) {
    const bool mjcf = std::string(block) == "mjcf";
    for_each_entry(root, block, [&](TableReader& r) {
#if WEFT_XML_IMPORT
        std::string file = r.string("file", "");
        if (file.empty()) r.fail(r.table().source(), "missing key 'file' in [[" + std::string(block) + "]]");
        std::filesystem::path p(file);
        if (p.is_relative()) p = std::filesystem::path(s.path).parent_path() / p;
        ImportOptions o = read_import_options(r, mjcf);
        ImportResult res;
        try {
            res = mjcf ? parse_mjcf(p.string(), s.builder, o) : parse_urdf(p.string(), s.builder, o);
        } catch (const ImportError& e) { r.fail_at("file", e.what()); } catch (const BuildError& e) {
            r.fail_at("file", e.what());
        }
        for (const std::string& w : res.warnings) s.import_warnings.push_back(w);
        if (res.timestep > 0 && std::abs(res.timestep - s.dt()) > 1e-9f * res.timestep)
            s.import_warnings.push_back(
                r.where("file") + ": warning: the MJCF's <option timestep=\"" + format_number(res.timestep) +
                "\"> is not used: the scene's step is 1 / (fps substeps) = " + format_number(s.dt()) + " s");
#else
        (void)s;
        (void)mjcf;
        r.fail(r.table().source(), "[[" + std::string(block) +
                                       "]] needs URDF/MJCF import, which this build does not have (tinyxml2 was not found)");
#endif
    });
}

}  // namespace

void read_import_blocks(TableReader& root, Scene& s) {
    read_entries(root, s, "urdf");
    read_entries(root, s, "mjcf");
}

}  // namespace weft::engine

#endif
