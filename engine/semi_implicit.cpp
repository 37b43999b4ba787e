// engine/semi_implicit.cpp: the launch sequence described in semi_implicit.h.
#include "engine/semi_implicit.h"

#include "engine/integrator_registry.h"
#include "engine/launch_args.h"
#include "engine/particle_grid.h"
#include "engine/rigid_forces.h"
#include "engine/solver_kernels.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::engine {

namespace {

IntegratorInfo make_info() {
    IntegratorInfo i;
    i.name = "semi_implicit";
    i.summary = "semi-implicit Euler: springs, triangle FEM, bending, neo-Hookean tetrahedra, penalty contact";
    i.kernels = {{"hash_grid", "build_grid"},
                 {"hash_grid", "sort_grid_buckets"},
                 {"contact", "eval_particle_terms"},
                 {"triangles", "eval_triangles"},
                 {"bending", "eval_bending"},
                 {"tetrahedra", "eval_tetrahedra"},
                 {"springs", "accumulate_forces_with_springs"},
                 {"particles", "accumulate_forces"},
                 {"particles", "integrate_particles"},
                 {"rigid", "eval_body_particle_contacts"},
                 {"broad_phase", "build_shape_grid"},
                 {"broad_phase", "find_body_candidates"},
                 {"rigid", "eval_body_forces"},
                 {"rigid", "integrate_bodies"}};
    i.caps = IntegratorCaps_GraphCapture | IntegratorCaps_Differentiable | IntegratorCaps_Explicit;
    i.state_reads = {"particle_q", "particle_qd", "body_q", "body_qd"};
    i.state_writes = {"particle_q", "particle_qd", "particle_f",        "body_q",
                      "body_qd",    "body_f",      "grid_bucket_count", "grid_bucket_particles"};
    i.options = {{"angular_damping", OptionSpec::Type::Number, 0.05, 0.0, 1e3, false,
                  "1/s, rigid bodies' angular velocity is scaled by (1 - angular_damping dt) each step (Warp's default)"}};
    return i;
}

}  // namespace

IntegratorEntry semi_implicit_entry() {
    return {make_info(), [](const IntegratorOptions& o) {
                auto it = std::make_unique<SemiImplicitIntegrator>();
                it->angular_damping = float(o.number("angular_damping"));
                return it;
            }};
}

const IntegratorInfo& SemiImplicitIntegrator::info() const {
    static const IntegratorInfo i = make_info();
    return i;
}

void SemiImplicitIntegrator::simulate(const Model& m, const State& in, State& out, float dt, const Control* control) {
    using namespace args;
    using runtime::NamedArgs;
    check_step(m, in, out, dt, control);
    if (m.particle_count == 0 && m.body_count == 0) return;
    runtime::LaunchOptions o;
    o.device = m.device;
    const int64_t n = m.particle_count;
    const int64_t slots = std::max(m.term_layout.count, 1);
    // The integrator's scratch (slots, and below their gradients) outlives any CUDA graph capture
    // of its first step: memory outside the capture (runtime/capture_check.h).
    if (!force_terms_.valid() || force_terms_.size() != slots || force_terms_.device() != m.device) {
        force_terms_ = runtime::zeros_outside_capture(vec3_type(), {slots}, m.device);
        force_terms_grad_ = force_grad_ = Array();
    }

    // Under a Tape the launches are not recorded one by one: the step becomes one record (below).
    runtime::Recorder* recorder = runtime::active_recorder();
    auto* tape = dynamic_cast<tape::Tape*>(recorder);
    struct Launch {
        runtime::Kernel kernel;
        std::vector<int64_t> dim;
        std::vector<runtime::LaunchArg> args;
    };
    std::vector<Launch> launches;
    runtime::ScopedRecorder scope(tape ? nullptr : recorder);
    auto launch = [&](const runtime::Kernel& k, std::vector<int64_t> dim, NamedArgs named) {
        std::vector<runtime::LaunchArg> args = std::move(named).bind(k);
        runtime::launch(k, dim, args, o);
        if (tape) launches.push_back({k, std::move(dim), std::move(args)});
    };

    if (m.particle_count > 0) {
        // The hash grid of this step's contacts lives in state_out (built from state_in's positions).
        if (m.particle_contact) build_particle_grid(m, in.particle_q, out.grid_bucket_count, out.grid_bucket_particles);
        bool ext = control && control->particle_f.valid();
        const Array& grid_count = m.particle_contact ? out.grid_bucket_count : m.particle_term_start;
        const Array& grid_particles = m.particle_contact ? out.grid_bucket_particles : m.particle_term_start;
        static const runtime::Kernel particle_terms = solver_kernel("contact", "eval_particle_terms");
        runtime::NamedArgs particle_terms_args{{"x", a(in.particle_q)},
                                               {"v", a(in.particle_qd)},
                                               {"particle_radius", a(m.particle_radius)},
                                               {"particle_flags", a(m.particle_flags)},
                                               {"external_f", a(ext ? control->particle_f : m.particle_q)},
                                               {"has_external_f", i(ext ? 1 : 0)},
                                               {"drag", f(m.particle_drag)},
                                               {"ground", i(m.ground ? 1 : 0)},
                                               {"ground_plane", v4(m.ground_plane)},
                                               {"soft_ke", f(m.soft_contact_ke)},
                                               {"soft_kd", f(m.soft_contact_kd)},
                                               {"soft_kf", f(m.soft_contact_kf)},
                                               {"soft_mu", f(m.soft_contact_mu)}};
        add_shape_args(particle_terms_args, m);
        particle_terms_args.add("shape_bound", a(m.shape_bound));
        particle_terms_args.add("shape_materials", a(m.shape_materials));
        particle_terms_args.add("shape_material_share", a(m.shape_material_share));
        particle_terms_args.add("particle_world", a(m.particle_world))
            .add("world_shape_start", a(m.world_shape_start))
            .add("world_shape_list", a(m.world_shape_list))
            .add("num_worlds", i(m.num_worlds))
            .add("body_q", a(m.body_count > 0 ? in.body_q : m.body_q))
            .add("body_qd", a(m.body_count > 0 ? in.body_qd : m.body_qd))
            .add("body_com", a(m.body_com));
        add_grid_args(particle_terms_args, m, grid_count, grid_particles);
        particle_terms_args.add("particle_ke", f(m.particle_ke));
        particle_terms_args.add("particle_kd", f(m.particle_kd));
        particle_terms_args.add("particle_kf", f(m.particle_kf));
        particle_terms_args.add("particle_mu", f(m.particle_mu));
        particle_terms_args.add("force_terms", a(force_terms_));
        launch(particle_terms, {n}, std::move(particle_terms_args));
        const auto& L = m.term_layout;
        // Springs are summed per particle by the accumulation below (kernels/springs.py).
        if (m.tri_count > 0) {
            static const runtime::Kernel k = solver_kernel("triangles", "eval_triangles");
            launch(k, {m.tri_count},
                   {{"x", a(in.particle_q)},
                    {"v", a(in.particle_qd)},
                    {"tri_indices", a(m.tri_indices)},
                    {"tri_poses", a(m.tri_poses)},
                    {"tri_activations", a(m.tri_activations)},
                    {"tri_materials", a(m.tri_materials)},
                    {"offset", i(L.tri)},
                    {"force_terms", a(force_terms_)}});
        }
        if (m.edge_count > 0) {
            static const runtime::Kernel k = solver_kernel("bending", "eval_bending");
            launch(k, {m.edge_count},
                   {{"x", a(in.particle_q)},
                    {"v", a(in.particle_qd)},
                    {"edge_indices", a(m.edge_indices)},
                    {"edge_rest_angle", a(m.edge_rest_angle)},
                    {"edge_bending_properties", a(m.edge_bending_properties)},
                    {"offset", i(L.edge)},
                    {"force_terms", a(force_terms_)}});
        }
        if (m.tet_count > 0) {
            static const runtime::Kernel k = solver_kernel("tetrahedra", "eval_tetrahedra");
            launch(k, {m.tet_count},
                   {{"x", a(in.particle_q)},
                    {"v", a(in.particle_qd)},
                    {"tet_indices", a(m.tet_indices)},
                    {"tet_poses", a(m.tet_poses)},
                    {"tet_activations", a(m.tet_activations)},
                    {"tet_materials", a(m.tet_materials)},
                    {"offset", i(L.tet)},
                    {"force_terms", a(force_terms_)}});
        }
        if (m.spring_count > 0) {
            // The column-by-column (ELL) lists where the model has them, else the CSR lists.
            const bool ell = m.particle_spring_width > 0;
            static const runtime::Kernel k = solver_kernel("springs", "accumulate_forces_with_springs");
            launch(k, {n},
                   {{"force_terms", a(force_terms_)},
                    {"term_start", a(m.particle_term_start)},
                    {"term_index", a(m.particle_term_index)},
                    {"x", a(in.particle_q)},
                    {"v", a(in.particle_qd)},
                    {"spring_start", a(m.particle_spring_start)},
                    {"column_major", i(ell ? 1 : 0)},
                    {"spring_list", a(ell ? m.particle_spring_ell_list : m.particle_spring_list)},
                    {"spring_other", a(ell ? m.particle_spring_ell_other : m.particle_spring_other)},
                    {"spring_rest_length", a(m.spring_rest_length)},
                    {"spring_stiffness", a(m.spring_stiffness)},
                    {"spring_damping", a(m.spring_damping)},
                    {"particle_f", a(out.particle_f)}});
        } else {
            static const runtime::Kernel k = solver_kernel("particles", "accumulate_forces");
            launch(k, {n},
                   {{"force_terms", a(force_terms_)},
                    {"term_start", a(m.particle_term_start)},
                    {"term_index", a(m.particle_term_index)},
                    {"particle_f", a(out.particle_f)}});
        }
        static const runtime::Kernel integrate = solver_kernel("particles", "integrate_particles");
        launch(integrate, {n},
               {{"x", a(in.particle_q)},
                {"v", a(in.particle_qd)},
                {"f", a(out.particle_f)},
                {"w", a(m.particle_inv_mass)},
                {"particle_flags", a(m.particle_flags)},
                {"gravity", v3(m.gravity)},
                {"dt", f(dt)},
                {"v_max", f(m.particle_max_velocity)},
                {"x_new", a(out.particle_q)},
                {"v_new", a(out.particle_qd)}});
    }
    if (m.body_count > 0) {
        refuse_distance_joints(m, "semi_implicit");
        // Rigid bodies (kernels/rigid.py): every contact wrench on a body summed by its own thread,
        // then Warp's semi-implicit Euler step of the bodies.
        // The particles' pushes on body shapes, summed per chunk of pairs (kernels/rigid.py).
        const int chunks = m.particle_count > 0 ? m.particle_body_chunks : 0;
        if (chunks > 0) {
            const int64_t slots_b = int64_t(m.body_count) * chunks;
            if (!body_particle_wrench_.valid() || body_particle_wrench_.size() != slots_b ||
                body_particle_wrench_.device() != m.device) {
                body_particle_wrench_ = runtime::zeros_outside_capture(spatial_vector_type(), {slots_b}, m.device);
                body_particle_wrench_grad_ = Array();
            }
            static const runtime::Kernel reactions = solver_kernel("rigid", "eval_body_particle_contacts");
            runtime::NamedArgs reaction_args{{"particle_q", a(in.particle_q)},
                                             {"particle_qd", a(in.particle_qd)},
                                             {"particle_radius", a(m.particle_radius)},
                                             {"particle_flags", a(m.particle_flags)},
                                             {"particle_count", i(m.particle_count)},
                                             {"body_q", a(in.body_q)},
                                             {"body_qd", a(in.body_qd)},
                                             {"body_com", a(m.body_com)},
                                             {"body_shape_start", a(m.body_shape_start)},
                                             {"body_shape_list", a(m.body_shape_list)}};
            reaction_args.add("shape_transform", a(m.shape_transform))
                .add("shape_geo_type", a(m.shape_geo_type))
                .add("shape_geo_scale", a(m.shape_geo_scale))
                .add("shape_geo_thickness", a(m.shape_geo_thickness))
                .add("shape_sdf_values", a(m.shape_sdf_values))
                .add("shape_sdf_dims", a(m.shape_sdf_dims))
                .add("shape_sdf_origin", a(m.shape_sdf_origin))
                .add("shape_sdf_cell", a(m.shape_sdf_cell))
                .add("shape_bound", a(m.shape_bound))
                .add("shape_materials", a(m.shape_materials))
                .add("shape_material_share", a(m.shape_material_share))
                .add("shape_world", a(m.shape_world))
                .add("world_particle_start", a(m.world_particle_start))
                .add("world_particle_list", a(m.world_particle_list))
                .add("num_worlds", i(m.num_worlds))
                .add("soft_ke", f(m.soft_contact_ke))
                .add("soft_kd", f(m.soft_contact_kd))
                .add("soft_kf", f(m.soft_contact_kf))
                .add("soft_mu", f(m.soft_contact_mu))
                .add("pairs_per_chunk", i(m.particle_pairs_per_chunk))
                .add("particle_chunks", i(chunks))
                .add("body_particle_wrench", a(body_particle_wrench_));
            launch(reactions, {slots_b}, std::move(reaction_args));
        }
        static const runtime::Kernel forces = solver_kernel("rigid", "eval_body_forces");
        body_candidates_.build(m, in.body_q, 0.0f, tape != nullptr);
        launch(forces, {m.body_count},
               body_force_args(m, in.body_q, in.body_qd, control, body_particle_wrench_, chunks, true, body_candidates_,
                               out.body_f));
        static const runtime::Kernel integrate_b = solver_kernel("rigid", "integrate_bodies");
        launch(integrate_b, {m.body_count},
               {{"body_q", a(in.body_q)},
                {"body_qd", a(in.body_qd)},
                {"body_f", a(out.body_f)},
                {"body_com", a(m.body_com)},
                {"body_inertia", a(m.body_inertia)},
                {"body_inv_mass", a(m.body_inv_mass)},
                {"body_inv_inertia", a(m.body_inv_inertia)},
                {"gravity", v3(m.gravity)},
                {"angular_damping", f(angular_damping)},
                {"dt", f(dt)},
                {"body_q_new", a(out.body_q)},
                {"body_qd_new", a(out.body_qd)}});
    }
    if (!tape) return;

    // The record: what the launches read and write, less the slots (the integrator's own).
    std::vector<tape::Access> accesses;
    for (const Launch& l : launches)
        for (tape::Access& x : tape::launch_accesses(l.kernel, l.args))
            if (x.array.data() != force_terms_.data() &&
                !(body_particle_wrench_.valid() && x.array.data() == body_particle_wrench_.data()))
                accesses.push_back(std::move(x));
    if (m.particle_contact) {
        accesses.push_back({out.grid_bucket_count, "hash grid counts", false, true});
        accesses.push_back({out.grid_bucket_particles, "hash grid buckets", false, true});
    }
    if (m.body_count > 0)  // (the lists of this step; a model without bodies built none)
        for (const Array& x : body_candidates_.written()) accesses.push_back({x, "body broad phase", false, true});
    if (!force_terms_grad_.valid()) force_terms_grad_ = runtime::zeros_outside_capture(vec3_type(), {slots}, m.device);
    if (!force_grad_.valid() || force_grad_.size() != n) force_grad_ = runtime::zeros_outside_capture(vec3_type(), {n}, m.device);
    if (m.body_count > 0 &&
        (!body_force_grad_.valid() || body_force_grad_.size() != m.body_count || body_force_grad_.device() != m.device))
        body_force_grad_ = runtime::zeros_outside_capture(spatial_vector_type(), {m.body_count}, m.device);
    const bool reactions = m.body_count > 0 && m.particle_count > 0 && m.particle_body_chunks > 0;
    if (reactions && (!body_particle_wrench_grad_.valid() || body_particle_wrench_grad_.size() != body_particle_wrench_.size()))
        body_particle_wrench_grad_ =
            runtime::zeros_outside_capture(spatial_vector_type(), {body_particle_wrench_.size()}, m.device);
    // The backward pass: the adjoints newest first; gradients of the slots and of particle_f go
    // to the scratch gradients (zeroed first), every other gradient to its array's grad().
    tape->record_func(
        "semi-implicit step",
        [launches, o, terms = force_terms_, terms_grad = force_terms_grad_, f = out.particle_f, f_grad = force_grad_,
         bf = out.body_f, bf_grad = body_force_grad_, pw = reactions ? body_particle_wrench_ : Array(),
         pw_grad = reactions ? body_particle_wrench_grad_ : Array()]() mutable {
            terms_grad.zero_unrecorded();
            f_grad.zero_unrecorded();
            if (bf_grad.valid()) bf_grad.zero_unrecorded();
            if (pw_grad.valid()) pw_grad.zero_unrecorded();
            for (auto l = launches.rbegin(); l != launches.rend(); ++l) {
                runtime::LaunchOptions b = o;
                b.adjoint = true;
                b.record_tape = false;
                b.adj_args.assign(l->args.size(), Array());
                for (size_t i = 0; i < l->args.size(); ++i) {
                    if (l->args[i].kind != runtime::LaunchArg::ArrayArg) continue;
                    if (l->args[i].array.data() == terms.data())
                        b.adj_args[i] = terms_grad;
                    else if (l->args[i].array.data() == f.data())
                        b.adj_args[i] = f_grad;
                    else if (bf.valid() && l->args[i].array.data() == bf.data())
                        b.adj_args[i] = bf_grad;
                    else if (pw.valid() && l->args[i].array.data() == pw.data())
                        b.adj_args[i] = pw_grad;
                }
                b.adjoint_status = tape::deferred_adjoint_status(l->kernel, b.device);
                runtime::launch(l->kernel, l->dim, l->args, b);
            }
        },
        std::move(accesses));
}

}  // namespace weft::engine
