// engine/xpbd.cpp: the launch sequence described in xpbd.h.
#include "engine/xpbd.h"

#include "engine/launch_args.h"
#include "engine/particle_grid.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"

namespace weft::engine {

XPBDIntegrator::XPBDIntegrator(int iterations_, float relaxation_) : iterations(iterations_), relaxation(relaxation_) {
    if (iterations < 1) throw runtime::RuntimeError("XPBDIntegrator: iterations must be >= 1, got " + std::to_string(iterations));
}

void XPBDIntegrator::simulate(const Model& m, State& in, State& out, float dt, const Control* control) {
    using namespace args;
    if (in.particle_count != m.particle_count || out.particle_count != m.particle_count)
        throw runtime::RuntimeError("simulate: the states do not belong to this model");
    if (!(dt > 0.0f)) throw runtime::RuntimeError("simulate: dt must be > 0, got " + std::to_string(dt));
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

    // predict: the external force (or none) and gravity
    bool ext = control && control->particle_f.valid();
    Array xp = grad ? fresh(n, true) : scratch_[0];
    Array vp = grad ? fresh(n, true) : scratch_[1];
    if (!ext) in.particle_f.zero();
    static const runtime::Kernel integrate = solver_kernel("particles", "integrate_particles");
    runtime::launch(integrate, {n},
                    {a(in.particle_q), a(in.particle_qd), a(ext ? control->particle_f : in.particle_f), a(m.particle_inv_mass),
                     a(m.particle_flags), v3(m.gravity), f(dt), f(m.particle_max_velocity), a(xp), a(vp)},
                    o);
    if (m.particle_contact) build_particle_grid(m, xp, in.grid_bucket_count, in.grid_bucket_particles);
    const Array& grid_count = m.particle_contact ? in.grid_bucket_count : m.particle_term_start;
    const Array& grid_particles = m.particle_contact ? in.grid_bucket_particles : m.particle_term_start;

    static const runtime::Kernel contacts = solver_kernel("xpbd", "solve_particle_contacts_xpbd");
    static const runtime::Kernel springs = solver_kernel("xpbd", "solve_springs_xpbd");
    static const runtime::Kernel triangles = solver_kernel("xpbd", "solve_triangles_xpbd");
    static const runtime::Kernel bending = solver_kernel("xpbd", "solve_bending_xpbd");
    static const runtime::Kernel tets = solver_kernel("xpbd", "solve_tetrahedra_xpbd");
    static const runtime::Kernel apply = solver_kernel("xpbd", "apply_deltas");
    Array x = xp;
    for (int it = 0; it < iterations; ++it) {
        Array deltas = grad ? fresh(std::max(L.count, 1), true) : deltas_;
        runtime::launch(contacts, {n},
                        {a(x), a(in.particle_q), a(m.particle_inv_mass), a(m.particle_radius), a(m.particle_flags),
                         i(m.ground ? 1 : 0), v4(m.ground_plane), f(m.soft_contact_mu), a(m.shape_transform),
                         a(m.shape_geo_type), a(m.shape_geo_scale), a(m.shape_geo_thickness), i(m.shape_count),
                         a(m.shape_sdf_values), a(m.shape_sdf_dims), a(m.shape_sdf_origin), a(m.shape_sdf_cell),
                         i(m.particle_contact ? 1 : 0), f(m.particle_contact ? 1.0 / m.particle_grid_cell : 0.0),
                         i(m.particle_grid_buckets), i(m.particle_grid_capacity), a(grid_count), a(grid_particles),
                         f(m.particle_mu), a(deltas)},
                        o);
        if (m.spring_count > 0)
            runtime::launch(springs, {m.spring_count},
                            {a(x), a(in.particle_q), a(m.particle_inv_mass), a(m.spring_indices), a(m.spring_rest_length),
                             a(m.spring_stiffness), a(m.spring_damping), f(dt), i(L.spring), a(deltas)},
                            o);
        if (m.tri_count > 0)
            runtime::launch(triangles, {m.tri_count},
                            {a(x), a(m.particle_inv_mass), a(m.tri_indices), a(m.tri_poses), a(m.tri_materials), f(dt),
                             i(L.tri), a(deltas)},
                            o);
        if (m.edge_count > 0)
            runtime::launch(bending, {m.edge_count},
                            {a(x), a(m.particle_inv_mass), a(m.edge_indices), a(m.edge_rest_angle),
                             a(m.edge_bending_properties), f(dt), i(L.edge), a(deltas)},
                            o);
        if (m.tet_count > 0)
            runtime::launch(tets, {m.tet_count},
                            {a(x), a(m.particle_inv_mass), a(m.tet_indices), a(m.tet_poses), a(m.tet_materials), f(dt),
                             i(L.tet), a(deltas)},
                            o);
        bool last = it + 1 == iterations;
        // scratch: 0 prediction x, 1 prediction v (read by every iteration), 2/3 x ping-pong, 4 v of
        // intermediate iterations (never read)
        Array xn = last ? out.particle_q : (grad ? fresh(n, true) : scratch_[2 + (it % 2)]);
        Array vn = last ? out.particle_qd : (grad ? fresh(n, true) : scratch_[4]);
        runtime::launch(apply, {n},
                        {a(in.particle_q), a(x), a(vp), a(m.particle_flags), a(deltas), a(m.particle_term_start),
                         a(m.particle_term_index), f(relaxation), f(dt), a(xn), a(vn)},
                        o);
        x = xn;
    }
}

}  // namespace weft::engine
