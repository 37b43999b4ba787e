// engine/mpm.cpp: the launch sequence described in mpm.h.
#include "engine/mpm.h"

#include "engine/integrator_registry.h"
#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/named_args.h"
#include "runtime/recorder.h"

namespace weft::engine {

namespace {

IntegratorInfo make_info() {
    IntegratorInfo i;
    i.name = "mpm";
    i.summary = "MLS-MPM on a dense grid: elastic (fixed corotated, neo-Hookean), fluid, sand and snow particles";
    i.kernels = {{"mpm", "p2g"}, {"mpm", "grid_update"}, {"mpm", "g2p"}};
    i.caps = IntegratorCaps_GraphCapture | IntegratorCaps_Differentiable;
    i.state_reads = {"particle_q", "particle_qd", "mpm_F", "mpm_C", "mpm_Jp"};
    i.state_writes = {"particle_q", "particle_qd", "mpm_F", "mpm_C", "mpm_Jp"};
    return i;
}

}  // namespace

IntegratorEntry mpm_entry() {
    return {make_info(), [](const IntegratorOptions& o) { return std::make_unique<MpmIntegrator>(o); }};
}

const IntegratorInfo& MpmIntegrator::info() const {
    static const IntegratorInfo i = make_info();
    return i;
}

int64_t mpm_node_count(const Model& m) { return int64_t(m.mpm_cells[0] + 1) * (m.mpm_cells[1] + 1) * (m.mpm_cells[2] + 1); }

void MpmIntegrator::simulate(const Model& m, const State& in, State& out, float dt, const Control* control) {
    using namespace args;
    check_step(m, in, out, dt, control);
    if (m.mpm_particle_count == 0 || m.mpm_particle_count != m.particle_count)
        throw runtime::RuntimeError(
            "simulate: the mpm integrator needs a model whose particles are all MPM particles "
            "(ModelBuilder::add_mpm_volume, [[mpm.volume]]); this one has " +
            std::to_string(m.particle_count) + " particles, " + std::to_string(m.mpm_particle_count) + " of them MPM particles");
    for (auto [count, what] : {std::pair{m.spring_count, "springs"},
                               {m.tri_count, "triangles"},
                               {m.tet_count, "tetrahedra"},
                               {m.edge_count, "bending edges"},
                               {m.body_count, "rigid bodies"}})
        if (count > 0)
            throw runtime::RuntimeError("simulate: the mpm integrator simulates MPM particles only; the model has " +
                                        std::to_string(count) + " " + what);
    runtime::LaunchOptions o;
    o.device = m.device;
    const int64_t n = m.particle_count;
    const int64_t nodes = mpm_node_count(m);
    // Fresh grids per step where a backward pass may need this step's grid (see mpm.h).
    const bool fresh = m.requires_grad || runtime::active_recorder() != nullptr;
    Array mv, mass, gv;
    if (fresh) {
        mv = Array::zeros(vec3_type(), {nodes}, m.device, m.requires_grad);
        mass = Array::zeros(compiler::float32_type(), {nodes}, m.device, m.requires_grad);
        gv = Array::zeros(vec3_type(), {nodes}, m.device, m.requires_grad);
    } else {
        if (!grid_mv_.valid() || grid_mv_.size() != nodes || grid_mv_.device() != m.device) {
            grid_mv_ = Array::zeros(vec3_type(), {nodes}, m.device);
            grid_m_ = Array::zeros(compiler::float32_type(), {nodes}, m.device);
            grid_v_ = Array::zeros(vec3_type(), {nodes}, m.device);
        } else {
            grid_mv_.zero();
            grid_m_.zero();
        }
        mv = grid_mv_;
        mass = grid_m_;
        gv = grid_v_;
    }
    if (!zero_force_.valid() || zero_force_.size() != n || zero_force_.device() != m.device)
        zero_force_ = Array::zeros(vec3_type(), {n}, m.device);
    const bool ext = control && control->particle_f.valid();
    const std::array<float, 3> lo = m.mpm_lo;
    const int nx = m.mpm_cells[0], ny = m.mpm_cells[1], nz = m.mpm_cells[2];

    static const runtime::Kernel p2g = solver_kernel("mpm", "p2g");
    static const runtime::Kernel grid_update = solver_kernel("mpm", "grid_update");
    static const runtime::Kernel g2p = solver_kernel("mpm", "g2p");
    runtime::launch(p2g, {n},
                    {{"x", a(in.particle_q)},
                     {"v", a(in.particle_qd)},
                     {"C", a(in.mpm_C)},
                     {"F", a(in.mpm_F)},
                     {"Jp", a(in.mpm_Jp)},
                     {"external_f", a(ext ? control->particle_f : zero_force_)},
                     {"particle_mass", a(m.particle_mass)},
                     {"mpm_volume", a(m.mpm_volume)},
                     {"mpm_material", a(m.mpm_material)},
                     {"mpm_params", a(m.mpm_params)},
                     {"lo", v3(lo)},
                     {"dx", f(m.mpm_dx)},
                     {"nx", i(nx)},
                     {"ny", i(ny)},
                     {"nz", i(nz)},
                     {"dt", f(dt)},
                     {"F_new", a(out.mpm_F)},
                     {"Jp_new", a(out.mpm_Jp)},
                     {"grid_mv", a(mv)},
                     {"grid_m", a(mass)}},
                    o);
    runtime::NamedArgs grid_args;
    grid_args.add("grid_mv", a(mv))
        .add("grid_m", a(mass))
        .add("gravity", v3(m.gravity))
        .add("dt", f(dt))
        .add("lo", v3(lo))
        .add("dx", f(m.mpm_dx))
        .add("nx", i(nx))
        .add("ny", i(ny))
        .add("nz", i(nz))
        .add("boundary", i(m.mpm_boundary))
        .add("floor_boundary", i(m.mpm_floor_boundary < 0 ? m.mpm_boundary : m.mpm_floor_boundary))
        .add("boundary_cells", i(m.mpm_boundary_cells));
    add_shape_args(grid_args, m);
    grid_args.add("shape_materials", a(m.shape_materials))
        .add("ground", i(m.ground ? 1 : 0))
        .add("ground_plane", v4(m.ground_plane))
        .add("ground_mu", f(m.ground_mu))
        .add("grid_v", a(gv));
    runtime::launch(grid_update, {nodes}, grid_args, o);
    runtime::launch(g2p, {n},
                    {{"x", a(in.particle_q)},
                     {"grid_v", a(gv)},
                     {"lo", v3(lo)},
                     {"dx", f(m.mpm_dx)},
                     {"nx", i(nx)},
                     {"ny", i(ny)},
                     {"nz", i(nz)},
                     {"dt", f(dt)},
                     {"x_new", a(out.particle_q)},
                     {"v_new", a(out.particle_qd)},
                     {"C_new", a(out.mpm_C)}},
                    o);
}

}  // namespace weft::engine
