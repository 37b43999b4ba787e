// engine/rigid_forces.cpp: see rigid_forces.h.
#include "engine/rigid_forces.h"

#include "engine/launch_args.h"
#include "runtime/errors.h"

namespace weft::engine {

runtime::NamedArgs body_force_args(const Model& m, const Array& body_q, const Array& body_qd, const Control* control,
                                   const Array& particle_wrench, int particle_chunks, bool joint_wrenches,
                                   const BodyCandidates& candidates, const Array& body_f) {
    using namespace args;
    const bool body_ext = control && control->body_f.valid();
    runtime::NamedArgs body_args{{"body_q", a(body_q)},
                                 {"body_qd", a(body_qd)},
                                 {"body_com", a(m.body_com)},
                                 {"body_shape_start", a(m.body_shape_start)},
                                 {"body_shape_list", a(m.body_shape_list)}};
    add_shape_args(body_args, m);
    add_shape_filter_args(body_args, m);
    add_shape_point_args(body_args, m);
    body_args.add("shape_materials", a(m.shape_materials))
        .add("ground", i(m.ground ? 1 : 0))
        .add("ground_plane", v4(m.ground_plane))
        .add("ground_ke", f(m.ground_ke))
        .add("ground_kd", f(m.ground_kd))
        .add("ground_kf", f(m.ground_kf))
        .add("ground_mu", f(m.ground_mu))
        .add("external_f", a(body_ext ? control->body_f : body_qd))
        .add("has_external_f", i(body_ext ? 1 : 0))
        .add("shape_world", a(m.shape_world))
        .add("body_world", a(m.body_world))
        .add("world_shape_start", a(m.world_shape_start))
        .add("world_shape_list", a(m.world_shape_list))
        .add("num_worlds", i(m.num_worlds));
    add_body_joint_args(body_args, m);
    add_joint_frame_args(body_args, m);
    add_joint_drive_args(body_args, m, joint_act(m, control));
    body_args.add("joint_limit_ke", a(m.joint_limit_ke))
        .add("joint_limit_kd", a(m.joint_limit_kd))
        .add("joint_collision_filter", a(m.joint_collision_filter))
        .add("joint_attach_ke", f(m.joint_attach_ke))
        .add("joint_attach_kd", f(m.joint_attach_kd))
        .add("joint_wrenches", i(joint_wrenches ? 1 : 0))
        .add("body_particle_wrench", a(particle_chunks > 0 ? particle_wrench : body_qd))
        .add("particle_chunks", i(particle_chunks));
    candidates.add_args(body_args, m);
    body_args.add("body_f", a(body_f));
    return body_args;
}

void refuse_distance_joints(const Model& m, const char* integrator) {
    if (m.distance_joint >= 0)
        throw runtime::RuntimeError(std::string("simulate: joint ") + std::to_string(m.distance_joint) +
                                    " is a distance joint, which the " + integrator +
                                    " integrator does not simulate (only xpbd does, as in Warp)");
}

}  // namespace weft::engine
