// engine/semi_implicit.cpp: the launch sequence described in semi_implicit.h.
#include "engine/semi_implicit.h"

#include "engine/launch_args.h"
#include "engine/particle_grid.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"

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

    if (m.particle_contact) build_particle_grid(m, in.particle_q, in.grid_bucket_count, in.grid_bucket_particles);
    bool ext = control && control->particle_f.valid();
    const Array& grid_count = m.particle_contact ? in.grid_bucket_count : m.particle_term_start;
    const Array& grid_particles = m.particle_contact ? in.grid_bucket_particles : m.particle_term_start;
    static const runtime::Kernel particle_terms = solver_kernel("contact", "eval_particle_terms");
    runtime::launch(particle_terms, {n},
                    {a(in.particle_q), a(in.particle_qd), a(m.particle_radius), a(m.particle_flags),
                     a(ext ? control->particle_f : m.particle_q), i(ext ? 1 : 0), f(m.particle_drag), i(m.ground ? 1 : 0),
                     v4(m.ground_plane), f(m.soft_contact_ke), f(m.soft_contact_kd), f(m.soft_contact_kf),
                     f(m.soft_contact_mu), a(m.shape_transform), a(m.shape_geo_type), a(m.shape_geo_scale),
                     a(m.shape_geo_thickness), i(m.shape_count), a(m.shape_sdf_values), a(m.shape_sdf_dims),
                     a(m.shape_sdf_origin), a(m.shape_sdf_cell), i(m.particle_contact ? 1 : 0),
                     f(m.particle_contact ? 1.0 / m.particle_grid_cell : 0.0), i(m.particle_grid_buckets),
                     i(m.particle_grid_capacity), a(grid_count), a(grid_particles), f(m.particle_ke), f(m.particle_kd),
                     f(m.particle_kf), f(m.particle_mu), a(in.force_terms)},
                    o);
    const auto& L = m.term_layout;
    // Springs are summed per particle by the accumulation below (kernels/springs.py).
    if (m.tri_count > 0) {
        static const runtime::Kernel k = solver_kernel("triangles", "eval_triangles");
        runtime::launch(k, {m.tri_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.tri_indices), a(m.tri_poses), a(m.tri_activations),
                         a(m.tri_materials), i(L.tri), a(in.force_terms)},
                        o);
    }
    if (m.edge_count > 0) {
        static const runtime::Kernel k = solver_kernel("bending", "eval_bending");
        runtime::launch(k, {m.edge_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.edge_indices), a(m.edge_rest_angle),
                         a(m.edge_bending_properties), i(L.edge), a(in.force_terms)},
                        o);
    }
    if (m.tet_count > 0) {
        static const runtime::Kernel k = solver_kernel("tetrahedra", "eval_tetrahedra");
        runtime::launch(k, {m.tet_count},
                        {a(in.particle_q), a(in.particle_qd), a(m.tet_indices), a(m.tet_poses), a(m.tet_activations),
                         a(m.tet_materials), i(L.tet), a(in.force_terms)},
                        o);
    }
    if (m.spring_count > 0 && m.particle_spring_width > 0) {
        static const runtime::Kernel k = solver_kernel("springs", "accumulate_forces_with_springs_ell");
        runtime::launch(k, {n},
                        {a(in.force_terms), a(m.particle_term_start), a(m.particle_term_index), a(in.particle_q),
                         a(in.particle_qd), a(m.particle_spring_start), i(m.particle_spring_width),
                         a(m.particle_spring_ell_list), a(m.particle_spring_ell_other), a(m.spring_rest_length),
                         a(m.spring_stiffness), a(m.spring_damping), a(in.particle_f)},
                        o);
    } else if (m.spring_count > 0) {
        static const runtime::Kernel k = solver_kernel("springs", "accumulate_forces_with_springs");
        runtime::launch(k, {n},
                        {a(in.force_terms), a(m.particle_term_start), a(m.particle_term_index), a(in.particle_q),
                         a(in.particle_qd), a(m.particle_spring_start), a(m.particle_spring_list), a(m.particle_spring_other),
                         a(m.spring_rest_length), a(m.spring_stiffness), a(m.spring_damping), a(in.particle_f)},
                        o);
    } else {
        static const runtime::Kernel k = solver_kernel("particles", "accumulate_forces");
        runtime::launch(k, {n}, {a(in.force_terms), a(m.particle_term_start), a(m.particle_term_index), a(in.particle_f)}, o);
    }
    static const runtime::Kernel integrate = solver_kernel("particles", "integrate_particles");
    runtime::launch(integrate, {n},
                    {a(in.particle_q), a(in.particle_qd), a(in.particle_f), a(m.particle_inv_mass), a(m.particle_flags),
                     v3(m.gravity), f(dt), f(m.particle_max_velocity), a(out.particle_q), a(out.particle_qd)},
                    o);
}

}  // namespace weft::engine
