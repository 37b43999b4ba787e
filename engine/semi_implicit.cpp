// engine/semi_implicit.cpp: the launch sequence described in semi_implicit.h.
#include "engine/semi_implicit.h"

#include "engine/launch_args.h"
#include "engine/particle_grid.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::engine {

void SemiImplicitIntegrator::simulate(const Model& m, State& in, State& out, float dt, const Control* control) {
    using namespace args;
    if (in.particle_count != m.particle_count || out.particle_count != m.particle_count)
        throw runtime::RuntimeError("simulate: the states do not belong to this model (" + std::to_string(in.particle_count) +
                                    " and " + std::to_string(out.particle_count) + " particles, the model has " +
                                    std::to_string(m.particle_count) + ")");
    if (!(dt > 0.0f)) throw runtime::RuntimeError("simulate: dt must be > 0, got " + std::to_string(dt));
    if (m.particle_count == 0) return;
    runtime::LaunchOptions o;
    o.device = m.device;
    const int64_t n = m.particle_count;
    const int64_t slots = std::max(m.term_layout.count, 1);
    if (!force_terms_.valid() || force_terms_.size() != slots || force_terms_.device() != m.device) {
        force_terms_ = Array::zeros(vec3_type(), {slots}, m.device);
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
    auto launch = [&](const runtime::Kernel& k, std::vector<int64_t> dim, std::vector<runtime::LaunchArg> args) {
        runtime::launch(k, dim, args, o);
        if (tape) launches.push_back({k, std::move(dim), std::move(args)});
    };

    if (m.particle_contact) build_particle_grid(m, in.particle_q, in.grid_bucket_count, in.grid_bucket_particles);
    bool ext = control && control->particle_f.valid();
    const Array& grid_count = m.particle_contact ? in.grid_bucket_count : m.particle_term_start;
    const Array& grid_particles = m.particle_contact ? in.grid_bucket_particles : m.particle_term_start;
    static const runtime::Kernel particle_terms = solver_kernel("contact", "eval_particle_terms");
    launch(particle_terms, {n},
                    {a(in.particle_q), a(in.particle_qd), a(m.particle_radius), a(m.particle_flags),
                     a(ext ? control->particle_f : m.particle_q), i(ext ? 1 : 0), f(m.particle_drag), i(m.ground ? 1 : 0),
                     v4(m.ground_plane), f(m.soft_contact_ke), f(m.soft_contact_kd), f(m.soft_contact_kf),
                     f(m.soft_contact_mu), a(m.shape_transform), a(m.shape_geo_type), a(m.shape_geo_scale),
                     a(m.shape_geo_thickness), i(m.shape_count), a(m.shape_sdf_values), a(m.shape_sdf_dims),
                     a(m.shape_sdf_origin), a(m.shape_sdf_cell), i(m.particle_contact ? 1 : 0),
                     f(m.particle_contact ? 1.0 / m.particle_grid_cell : 0.0), i(m.particle_grid_buckets),
                     i(m.particle_grid_capacity), a(grid_count), a(grid_particles), f(m.particle_ke), f(m.particle_kd),
                     f(m.particle_kf), f(m.particle_mu), a(force_terms_)});
    const auto& L = m.term_layout;
    // Springs are summed per particle by the accumulation below (kernels/springs.py).
    if (m.tri_count > 0) {
        static const runtime::Kernel k = solver_kernel("triangles", "eval_triangles");
        launch(k, {m.tri_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.tri_indices), a(m.tri_poses), a(m.tri_activations),
                         a(m.tri_materials), i(L.tri), a(force_terms_)});
    }
    if (m.edge_count > 0) {
        static const runtime::Kernel k = solver_kernel("bending", "eval_bending");
        launch(k, {m.edge_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.edge_indices), a(m.edge_rest_angle),
                         a(m.edge_bending_properties), i(L.edge), a(force_terms_)});
    }
    if (m.tet_count > 0) {
        static const runtime::Kernel k = solver_kernel("tetrahedra", "eval_tetrahedra");
        launch(k, {m.tet_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.tet_indices), a(m.tet_poses), a(m.tet_activations),
                         a(m.tet_materials), i(L.tet), a(force_terms_)});
    }
    if (m.spring_count > 0) {
        // The column-by-column (ELL) lists where the model has them, else the CSR lists.
        const bool ell = m.particle_spring_width > 0;
        static const runtime::Kernel k = solver_kernel("springs", "accumulate_forces_with_springs");
        launch(k, {n},
                        {a(force_terms_), a(m.particle_term_start), a(m.particle_term_index), a(in.particle_q),
                         a(in.particle_qd), a(m.particle_spring_start), i(ell ? 1 : 0),
                         a(ell ? m.particle_spring_ell_list : m.particle_spring_list),
                         a(ell ? m.particle_spring_ell_other : m.particle_spring_other), a(m.spring_rest_length),
                         a(m.spring_stiffness), a(m.spring_damping), a(in.particle_f)});
    } else {
        static const runtime::Kernel k = solver_kernel("particles", "accumulate_forces");
        launch(k, {n}, {a(force_terms_), a(m.particle_term_start), a(m.particle_term_index), a(in.particle_f)});
    }
    static const runtime::Kernel integrate = solver_kernel("particles", "integrate_particles");
    launch(integrate, {n},
                    {a(in.particle_q), a(in.particle_qd), a(in.particle_f), a(m.particle_inv_mass), a(m.particle_flags),
                     v3(m.gravity), f(dt), f(m.particle_max_velocity), a(out.particle_q), a(out.particle_qd)});
    if (!tape) return;

    // The record: what the launches read and write, less the slots (the integrator's own).
    std::vector<tape::Access> accesses;
    for (const Launch& l : launches)
        for (tape::Access& x : tape::launch_accesses(l.kernel, l.args))
            if (x.array.data() != force_terms_.data()) accesses.push_back(std::move(x));
    if (m.particle_contact) {
        accesses.push_back({in.grid_bucket_count, "hash grid counts", false, true});
        accesses.push_back({in.grid_bucket_particles, "hash grid buckets", false, true});
    }
    if (!force_terms_grad_.valid()) force_terms_grad_ = Array::zeros(vec3_type(), {slots}, m.device);
    if (!force_grad_.valid() || force_grad_.size() != n) force_grad_ = Array::zeros(vec3_type(), {n}, m.device);
    // The backward pass: the adjoints newest first; gradients of the slots and of particle_f go
    // to the scratch gradients (zeroed first), every other gradient to its array's grad().
    tape->record_func(
        "semi-implicit step",
        [launches, o, terms = force_terms_, terms_grad = force_terms_grad_, f = in.particle_f, f_grad = force_grad_]() mutable {
            terms_grad.zero_unrecorded();
            f_grad.zero_unrecorded();
            for (auto l = launches.rbegin(); l != launches.rend(); ++l) {
                runtime::LaunchOptions b = o;
                b.adjoint = true;
                b.record_tape = false;
                b.adj_args.assign(l->args.size(), Array());
                for (size_t i = 0; i < l->args.size(); ++i) {
                    if (l->args[i].kind != runtime::LaunchArg::ArrayArg) continue;
                    if (l->args[i].array.data() == terms.data()) b.adj_args[i] = terms_grad;
                    else if (l->args[i].array.data() == f.data()) b.adj_args[i] = f_grad;
                }
                b.adjoint_status = tape::deferred_adjoint_status(l->kernel, b.device);
                runtime::launch(l->kernel, l->dim, l->args, b);
            }
        },
        std::move(accesses));
}

}  // namespace weft::engine
