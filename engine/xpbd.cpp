// engine/xpbd.cpp: the launch sequence described in xpbd.h.
#include "engine/xpbd.h"

#include "engine/integrator_registry.h"
#include "engine/launch_args.h"
#include "engine/particle_grid.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"

namespace weft::engine {

namespace {

IntegratorInfo make_info() {
    IntegratorInfo i;
    i.name = "xpbd";
    i.summary =
        "extended position-based dynamics: distance, membrane, bending, volume and contact constraints; rigid bodies' "
        "joints and contacts";
    i.kernels = {{"particles", "integrate_particles"},
                 {"hash_grid", "build_grid"},
                 {"hash_grid", "sort_grid_buckets"},
                 {"xpbd", "solve_particle_contacts_xpbd"},
                 {"xpbd", "solve_springs_xpbd"},
                 {"xpbd", "solve_triangles_xpbd"},
                 {"xpbd", "solve_bending_xpbd"},
                 {"xpbd", "solve_tetrahedra_xpbd"},
                 {"xpbd", "apply_deltas"},
                 {"xpbd_bodies", "eval_body_actions"},
                 {"xpbd_bodies", "integrate_bodies"},
                 {"xpbd_joints", "solve_joints"},
                 {"xpbd_joints", "sum_body_joints"},
                 {"broad_phase", "build_shape_grid"},
                 {"broad_phase", "find_body_candidates"},
                 {"xpbd_contacts", "find_contact_slots"},
                 {"xpbd_contacts", "solve_contact_slots"},
                 {"xpbd_contacts", "sum_contact_slots"},
                 {"xpbd_bodies", "apply_body_deltas"},
                 {"xpbd_restitution", "solve_restitution_slots"},
                 {"xpbd_restitution", "apply_restitution_slots"}};
    i.caps = IntegratorCaps_GraphCapture | IntegratorCaps_Differentiable;
    i.state_reads = {"particle_q", "particle_qd", "body_q", "body_qd"};
    i.state_writes = {"particle_q", "particle_qd", "body_q", "body_qd", "grid_bucket_count", "grid_bucket_particles"};
    using T = OptionSpec::Type;
    i.options = {
        {"iterations", T::Integer, 2, 1, 1000, false, "constraint iterations per step"},
        {"relaxation", T::Number, 0.9, 0.0, 2.0, true,
         "scale of the particles' summed element corrections (Warp's soft_body_relaxation)"},
        {"contact_relaxation", T::Number, 0.9, 0.0, 2.0, true,
         "scale of the particles' contact corrections (Warp's soft_contact_relaxation)"},
        {"joint_linear_relaxation", T::Number, 0.7, 0.0, 2.0, true, "scale of the joints' positional corrections"},
        {"joint_angular_relaxation", T::Number, 0.4, 0.0, 2.0, true, "scale of the joints' rotational corrections"},
        {"rigid_contact_relaxation", T::Number, 0.8, 0.0, 2.0, true, "scale of the bodies' normal contact corrections"},
        {"rigid_contact_con_weighting", T::Integer, 1, 0, 1, false,
         "1: a body's contact corrections are divided by its number of closed contacts"},
        {"angular_damping", T::Number, 0.0, 0.0, 1e3, false,
         "1/s, bodies' angular velocity scaled by (1 - angular_damping dt) in the prediction"},
        {"enable_restitution", T::Integer, 0, 0, 1, false, "1: a velocity pass gives closed contacts the shapes' restitution"},
        {"rigid_contact_margin", T::Number, 0.1, 0.0, 1e3, false,
         "m, bodies' contacts are found this far apart at the step's start"},
    };
    return i;
}

}  // namespace

IntegratorEntry xpbd_entry() {
    return {make_info(), [](const IntegratorOptions& o) { return std::make_unique<XPBDIntegrator>(o); }};
}

const IntegratorInfo& XPBDIntegrator::info() const {
    static const IntegratorInfo i = make_info();
    return i;
}

XPBDIntegrator::XPBDIntegrator(int iterations_, float relaxation_) : iterations(iterations_), relaxation(relaxation_) {
    if (iterations < 1) throw runtime::RuntimeError("XPBDIntegrator: iterations must be >= 1, got " + std::to_string(iterations));
}

XPBDIntegrator::XPBDIntegrator(const IntegratorOptions& o)
    : XPBDIntegrator(o.integer("iterations"), float(o.number("relaxation"))) {
    contact_relaxation = float(o.number("contact_relaxation"));
    joint_linear_relaxation = float(o.number("joint_linear_relaxation"));
    joint_angular_relaxation = float(o.number("joint_angular_relaxation"));
    rigid_contact_relaxation = float(o.number("rigid_contact_relaxation"));
    rigid_contact_con_weighting = o.integer("rigid_contact_con_weighting") != 0;
    angular_damping = float(o.number("angular_damping"));
    enable_restitution = o.integer("enable_restitution") != 0;
    rigid_contact_margin = float(o.number("rigid_contact_margin"));
}

void XPBDIntegrator::simulate(const Model& m, const State& in, State& out, float dt, const Control* control) {
    using namespace args;
    check_step(m, in, out, dt, control);
    if (m.body_count > 0) simulate_bodies(m, in, out, dt, control);
    if (m.particle_count == 0) return;
    runtime::LaunchOptions o;
    o.device = m.device;
    const int64_t n = m.particle_count;
    const auto& L = m.term_layout;
    auto v3t = vec3_type();
    bool grad = m.requires_grad;
    auto fresh = [&](int64_t size, bool g) { return Array::zeros(v3t, {size}, m.device, g); };
    if (!grad && (!scratch_[0].valid() || scratch_[0].size() != n || scratch_[0].device() != m.device)) {
        for (auto& s : scratch_) s = fresh(n, false);
        deltas_ = fresh(std::max(L.count, 1), false);
    }
    if (!zero_force_.valid() || zero_force_.size() != n || zero_force_.device() != m.device) zero_force_ = fresh(n, false);

    // predict: the external force (or none) and gravity
    bool ext = control && control->particle_f.valid();
    Array xp = grad ? fresh(n, true) : scratch_[0];
    Array vp = grad ? fresh(n, true) : scratch_[1];
    static const runtime::Kernel integrate = solver_kernel("particles", "integrate_particles");
    runtime::launch(integrate, {n},
                    {{"x", a(in.particle_q)},
                     {"v", a(in.particle_qd)},
                     {"f", a(ext ? control->particle_f : zero_force_)},
                     {"w", a(m.particle_inv_mass)},
                     {"particle_flags", a(m.particle_flags)},
                     {"gravity", v3(m.gravity)},
                     {"dt", f(dt)},
                     {"v_max", f(m.particle_max_velocity)},
                     {"x_new", a(xp)},
                     {"v_new", a(vp)}},
                    o);
    if (m.particle_contact) build_particle_grid(m, xp, out.grid_bucket_count, out.grid_bucket_particles);
    const Array& grid_count = m.particle_contact ? out.grid_bucket_count : m.particle_term_start;
    const Array& grid_particles = m.particle_contact ? out.grid_bucket_particles : m.particle_term_start;

    static const runtime::Kernel contacts = solver_kernel("xpbd", "solve_particle_contacts_xpbd");
    static const runtime::Kernel springs = solver_kernel("xpbd", "solve_springs_xpbd");
    static const runtime::Kernel triangles = solver_kernel("xpbd", "solve_triangles_xpbd");
    static const runtime::Kernel bending = solver_kernel("xpbd", "solve_bending_xpbd");
    static const runtime::Kernel tets = solver_kernel("xpbd", "solve_tetrahedra_xpbd");
    static const runtime::Kernel apply = solver_kernel("xpbd", "apply_deltas");
    Array x = xp;
    for (int it = 0; it < iterations; ++it) {
        Array deltas = grad ? fresh(std::max(L.count, 1), true) : deltas_;
        runtime::NamedArgs contacts_args{{"x", a(x)},
                                         {"x_orig", a(in.particle_q)},
                                         {"w", a(m.particle_inv_mass)},
                                         {"particle_radius", a(m.particle_radius)},
                                         {"particle_flags", a(m.particle_flags)},
                                         {"ground", i(m.ground ? 1 : 0)},
                                         {"ground_plane", v4(m.ground_plane)},
                                         {"soft_mu", f(m.soft_contact_mu)}};
        add_shape_args(contacts_args, m);
        contacts_args.add("particle_world", a(m.particle_world))
            .add("world_shape_start", a(m.world_shape_start))
            .add("world_shape_list", a(m.world_shape_list))
            .add("num_worlds", i(m.num_worlds));
        add_grid_args(contacts_args, m, grid_count, grid_particles);
        contacts_args.add("particle_mu", f(m.particle_mu));
        contacts_args.add("deltas", a(deltas));
        runtime::launch(contacts, {n}, std::move(contacts_args), o);
        if (m.spring_count > 0)
            runtime::launch(springs, {m.spring_count},
                            {{"x", a(x)},
                             {"x_orig", a(in.particle_q)},
                             {"w", a(m.particle_inv_mass)},
                             {"spring_indices", a(m.spring_indices)},
                             {"spring_rest_length", a(m.spring_rest_length)},
                             {"spring_stiffness", a(m.spring_stiffness)},
                             {"spring_damping", a(m.spring_damping)},
                             {"dt", f(dt)},
                             {"offset", i(L.spring)},
                             {"deltas", a(deltas)}},
                            o);
        if (m.tri_count > 0)
            runtime::launch(triangles, {m.tri_count},
                            {{"x", a(x)},
                             {"w", a(m.particle_inv_mass)},
                             {"tri_indices", a(m.tri_indices)},
                             {"tri_poses", a(m.tri_poses)},
                             {"tri_materials", a(m.tri_materials)},
                             {"dt", f(dt)},
                             {"offset", i(L.tri)},
                             {"deltas", a(deltas)}},
                            o);
        if (m.edge_count > 0)
            runtime::launch(bending, {m.edge_count},
                            {{"x", a(x)},
                             {"w", a(m.particle_inv_mass)},
                             {"edge_indices", a(m.edge_indices)},
                             {"edge_rest_angle", a(m.edge_rest_angle)},
                             {"edge_bending_properties", a(m.edge_bending_properties)},
                             {"dt", f(dt)},
                             {"offset", i(L.edge)},
                             {"deltas", a(deltas)}},
                            o);
        if (m.tet_count > 0)
            runtime::launch(tets, {m.tet_count},
                            {{"x", a(x)},
                             {"w", a(m.particle_inv_mass)},
                             {"tet_indices", a(m.tet_indices)},
                             {"tet_poses", a(m.tet_poses)},
                             {"tet_materials", a(m.tet_materials)},
                             {"dt", f(dt)},
                             {"offset", i(L.tet)},
                             {"deltas", a(deltas)}},
                            o);
        bool last = it + 1 == iterations;
        // scratch: 0 prediction x, 1 prediction v (read by every iteration), 2/3 x ping-pong, 4 v of
        // intermediate iterations (never read)
        Array xn = last ? out.particle_q : (grad ? fresh(n, true) : scratch_[2 + (it % 2)]);
        Array vn = last ? out.particle_qd : (grad ? fresh(n, true) : scratch_[4]);
        runtime::launch(apply, {n},
                        {{"x_orig", a(in.particle_q)},
                         {"x_pred", a(x)},
                         {"v_pred", a(vp)},
                         {"particle_flags", a(m.particle_flags)},
                         {"deltas", a(deltas)},
                         {"term_start", a(m.particle_term_start)},
                         {"term_index", a(m.particle_term_index)},
                         {"relaxation", f(relaxation)},
                         {"contact_relaxation", f(contact_relaxation)},
                         {"dt", f(dt)},
                         {"x_new", a(xn)},
                         {"v_new", a(vn)}},
                        o);
        x = xn;
    }
}

}  // namespace weft::engine
