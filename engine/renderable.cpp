// engine/renderable.cpp: see renderable.h.
#include "engine/renderable.h"

#include "support/closest_name.h"
#include "runtime/errors.h"

namespace weft::engine {

std::vector<Renderable> model_renderables(const Model& m) {
    std::vector<Renderable> out;
    if (m.particle_count > 0) {
        Renderable r;
        r.kind = RenderableKind::Particles;
        r.name = "particles";
        r.positions = "particle_q";
        r.count = m.particle_count;
        r.radius = m.particle_radius;
        out.push_back(r);
    }
    // Triangles (cloth) and the soft bodies' skin: each a surface over the particles.
    auto surface = [&](const char* name, int count, const Array& indices) {
        if (count == 0) return;
        Renderable r;
        r.kind = RenderableKind::Surface;
        r.name = name;
        r.positions = "particle_q";
        r.count = count;
        r.indices = indices;
        out.push_back(r);
    };
    surface("triangles", m.tri_count, m.tri_indices);
    surface("soft-body surface", m.tet_surface_count, m.tet_surface_indices);
    if (m.spring_count > 0) {
        Renderable r;
        r.kind = RenderableKind::Lines;
        r.name = "springs";
        r.positions = "particle_q";
        r.count = m.spring_count;
        r.indices = m.spring_indices;
        out.push_back(r);
    }
    if (m.shape_count > 0) {
        Renderable r;
        r.kind = RenderableKind::Shapes;
        r.name = "shapes";
        r.count = m.shape_count;
        r.positions = m.body_count > 0 ? "body_q" : "";
        r.transform = m.shape_transform;
        r.body = m.shape_body;
        r.geo_type = m.shape_geo_type;
        r.geo_scale = m.shape_geo_scale;
        out.push_back(r);
    }
    if (m.joint_count > 0) {
        // Each joint's frame as its parent sees it and as its child sees it: the two coincide while
        // the joint holds, and drift apart by the attachment spring's stretch.
        for (bool parent : {true, false}) {
            Renderable r;
            r.kind = RenderableKind::Frames;
            r.name = parent ? "joint parent frames" : "joint child frames";
            r.positions = "body_q";
            r.count = m.joint_count;
            r.transform = parent ? m.joint_X_p : m.joint_X_c;
            r.body = parent ? m.joint_parent : m.joint_child;
            out.push_back(r);
        }
    }
    if (m.smoke.valid()) {
        Renderable r;
        r.kind = RenderableKind::Volume;
        r.name = "smoke density";
        r.positions = "smoke_density";
        r.count = int(m.smoke.cells());
        r.dims = {m.smoke.nx, m.smoke.ny, m.smoke.nz};
        r.origin = m.smoke.origin;
        r.cell = m.smoke.h;
        out.push_back(r);
    }
    return out;
}

const std::vector<std::string>& state_array_names() {
    static const std::vector<std::string> names = {"particle_q",
                                                   "particle_qd",
                                                   "particle_f",
                                                   "body_q",
                                                   "body_qd",
                                                   "body_f",
                                                   "joint_q",
                                                   "joint_qd",
                                                   "grid_bucket_count",
                                                   "grid_bucket_particles",
                                                   "smoke_density",
                                                   "smoke_u",
                                                   "smoke_v",
                                                   "smoke_w",
                                                   "mpm_F",
                                                   "mpm_C",
                                                   "mpm_Jp"};
    return names;
}

const Array& state_array(const State& s, const std::string& name) {
    if (name == "particle_q") return s.particle_q;
    if (name == "particle_qd") return s.particle_qd;
    if (name == "particle_f") return s.particle_f;
    if (name == "body_q") return s.body_q;
    if (name == "body_qd") return s.body_qd;
    if (name == "body_f") return s.body_f;
    if (name == "joint_q") return s.joint_q;
    if (name == "joint_qd") return s.joint_qd;
    if (name == "grid_bucket_count") return s.grid_bucket_count;
    if (name == "grid_bucket_particles") return s.grid_bucket_particles;
    if (name == "smoke_density") return s.smoke_density;
    if (name == "smoke_u") return s.smoke_u;
    if (name == "smoke_v") return s.smoke_v;
    if (name == "smoke_w") return s.smoke_w;
    if (name == "mpm_F") return s.mpm_F;
    if (name == "mpm_C") return s.mpm_C;
    if (name == "mpm_Jp") return s.mpm_Jp;
    std::string near = support::closest_name(name, state_array_names());
    throw runtime::RuntimeError("State has no array '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

}  // namespace weft::engine
