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
    const bool ell = m.particle_spring_width > 0;
    const auto& L = m.term_layout;
    static const runtime::Kernel step = solver_kernel("step", "step_particles");
    runtime::launch(step, {n},
                    {a(in.particle_q), a(in.particle_qd), a(m.particle_radius), a(m.particle_flags),
                     a(ext ? control->particle_f : m.particle_q), i(ext ? 1 : 0), f(m.particle_drag), i(m.ground ? 1 : 0),
                     v4(m.ground_plane), f(m.soft_contact_ke), f(m.soft_contact_kd), f(m.soft_contact_kf),
                     f(m.soft_contact_mu), a(m.shape_transform), a(m.shape_geo_type), a(m.shape_geo_scale),
                     a(m.shape_geo_thickness), i(m.shape_count), a(m.shape_sdf_values), a(m.shape_sdf_dims),
                     a(m.shape_sdf_origin), a(m.shape_sdf_cell), i(m.particle_contact ? 1 : 0),
                     f(m.particle_contact ? 1.0 / m.particle_grid_cell : 0.0), i(m.particle_grid_buckets),
                     i(m.particle_grid_capacity), a(grid_count), a(grid_particles), f(m.particle_ke), f(m.particle_kd),
                     f(m.particle_kf), f(m.particle_mu),
                     // springs: ELL lists when the model has them, else CSR
                     a(m.particle_spring_start), a(m.particle_spring_list), a(m.particle_spring_other),
                     i(ell ? m.particle_spring_width : 0), a(ell ? m.particle_spring_ell_list : m.particle_spring_list),
                     a(ell ? m.particle_spring_ell_other : m.particle_spring_other), a(m.spring_rest_length),
                     a(m.spring_stiffness), a(m.spring_damping),
                     // triangles, bending edges, tetrahedra
                     a(m.particle_term_start), a(m.particle_term_index), i(L.tri), i(L.edge), i(L.tet), a(m.tri_indices),
                     a(m.tri_poses), a(m.tri_activations), a(m.tri_materials), a(m.edge_indices), a(m.edge_rest_angle),
                     a(m.edge_bending_properties), a(m.tet_indices), a(m.tet_poses), a(m.tet_activations),
                     a(m.tet_materials),
                     // integration
                     a(m.particle_inv_mass), v3(m.gravity), f(dt), f(m.particle_max_velocity), a(in.particle_f),
                     a(out.particle_q), a(out.particle_qd)},
                    o);
}

}  // namespace weft::engine
