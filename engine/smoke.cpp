// engine/smoke.cpp: the launch sequence described in smoke.h.
#include "engine/smoke.h"

#include <cmath>

#include "engine/integrator_registry.h"
#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::engine {

using namespace args;

namespace {

// The largest explicit viscosity step nu dt / h^2 per substep (the 3-D limit is 1/6).
constexpr double kViscosityLimit = 0.125;

IntegratorInfo make_info() {
    IntegratorInfo i;
    i.name = "smoke";
    i.summary = "Eulerian smoke on a MAC grid: advection, buoyancy, vorticity confinement, viscosity, MGPCG projection";
    for (const char* k : {"apply_density_sources",
                          "apply_velocity_sources",
                          "advect",
                          "maccormack_correct",
                          "advect_conservative",
                          "vorticity",
                          "confinement_force",
                          "add_forces",
                          "diffuse",
                          "divergence_rhs",
                          "jacobi",
                          "gauss_seidel",
                          "residual",
                          "laplacian",
                          "restrict_sum",
                          "prolong_add",
                          "subtract_gradient",
                          "dot_partial",
                          "sum_partials",
                          "remove_mean",
                          "cg_update",
                          "cg_direction",
                          "advect_particles"})
        i.kernels.push_back({"smoke", k});
    i.caps = IntegratorCaps_Differentiable;
    i.state_reads = {"smoke_density", "smoke_u", "smoke_v", "smoke_w", "particle_q"};
    i.state_writes = {"smoke_density", "smoke_u", "smoke_v", "smoke_w", "particle_q", "particle_qd"};
    return i;
}

const runtime::Kernel& K(const char* name) {
    static std::map<std::string, runtime::Kernel> cache;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, solver_kernel("smoke", name)).first;
    return it->second;
}

void check_field(const Array& a, int64_t size, const Model& m, const std::string& name) {
    if (!a.valid() || a.size() != size || compiler::type_name(a.dtype()) != "float32" || !(a.device() == m.device))
        throw runtime::RuntimeError("simulate: " + name + " is " + (a.valid() ? a.describe() : std::string("empty")) +
                                    "; the model needs array(float32, shape=(" + std::to_string(size) +
                                    ",), device=" + m.device.str() + ")");
}

// A face field's samples (sx, sy, sz) and offsets in cell units (kernels/smoke.py).
struct Layout {
    int sx, sy, sz;
    std::array<float, 3> offset;
};
Layout layout(const SmokeGrid& g, int axis) {  // axis 3: cell centres
    Layout l{g.nx + (axis == 0), g.ny + (axis == 1), g.nz + (axis == 2), {0.5f, 0.5f, 0.5f}};
    if (axis < 3) l.offset[size_t(axis)] = 0.0f;
    return l;
}

}  // namespace

IntegratorEntry smoke_entry() {
    return {make_info(), [](const IntegratorOptions& o) { return std::make_unique<SmokeIntegrator>(o); }};
}

const IntegratorInfo& SmokeIntegrator::info() const {
    static const IntegratorInfo i = make_info();
    return i;
}

Array SmokeIntegrator::field(const std::string& key, int64_t size, bool grad, const runtime::Device& device, bool vec3) {
    auto type = vec3 ? vec3_type() : compiler::float32_type();
    if (grad) return Array::zeros(type, {size}, device, true);
    Array& a = scratch_[key];
    if (!a.valid() || a.size() != size || !(a.device() == device)) a = Array::zeros(type, {size}, device);
    return a;
}

void SmokeIntegrator::simulate(const Model& m, const State& in, State& out, float dt, const Control* control) {
    check_step(m, in, out, dt, control);
    const SmokeGrid& g = m.smoke;
    if (!g.valid())
        throw runtime::RuntimeError(
            "simulate: the smoke integrator needs a smoke grid (ModelBuilder::smoke.resolution, or a [smoke] table in a scene)");
    check_field(in.smoke_density, g.cells(), m, "state_in.smoke_density");
    check_field(in.smoke_u, g.u_size(), m, "state_in.smoke_u");
    check_field(in.smoke_v, g.v_size(), m, "state_in.smoke_v");
    check_field(in.smoke_w, g.w_size(), m, "state_in.smoke_w");
    check_field(out.smoke_density, g.cells(), m, "state_out.smoke_density");
    check_field(out.smoke_u, g.u_size(), m, "state_out.smoke_u");
    check_field(out.smoke_v, g.v_size(), m, "state_out.smoke_v");
    check_field(out.smoke_w, g.w_size(), m, "state_out.smoke_w");

    runtime::LaunchOptions o;
    o.device = m.device;
    // New arrays per stage only while a Tape records (it replays them backwards); otherwise, and in
    // a checkpointed rollout's unrecorded forward pass (whose access collector would keep every
    // new array alive), the integrator's scratch.
    const bool grad = m.requires_grad && dynamic_cast<tape::Tape*>(runtime::active_recorder()) != nullptr;
    auto run = [&](const char* k, int64_t n, runtime::NamedArgs a) { runtime::launch(K(k), {n}, std::move(a), o); };
    const std::vector<int64_t> cells3 = {g.nx, g.ny, g.nz};
    const int64_t sizes[4] = {g.u_size(), g.v_size(), g.w_size(), g.cells()};
    const float dt_h = dt / g.h;
    auto v3a = [](const std::array<float, 3>& x) { return v3(x); };

    // fields[0..2]: u, v, w; fields[3]: density
    Array cur[4] = {in.smoke_u, in.smoke_v, in.smoke_w, in.smoke_density};

    // 1. sources
    if (g.source_count > 0) {
        Array d = field("src_d", g.cells(), grad, m.device);
        run("apply_density_sources", g.cells(),
            {{"d", a(cur[3])},
             {"nx", i(g.nx)},
             {"ny", i(g.ny)},
             {"origin", v3a(g.origin)},
             {"h", f(g.h)},
             {"sources", a(g.sources)},
             {"nsource", i(g.source_count)},
             {"dt", f(dt)},
             {"d_out", a(d)}});
        cur[3] = d;
        if (g.source_velocity)
            for (int axis = 0; axis < 3; ++axis) {
                Layout l = layout(g, axis);
                Array q = field("src_" + std::to_string(axis), sizes[axis], grad, m.device);
                run("apply_velocity_sources", sizes[axis],
                    {{"q", a(cur[axis])},
                     {"sx", i(l.sx)},
                     {"sy", i(l.sy)},
                     {"offset", v3a(l.offset)},
                     {"axis", i(axis)},
                     {"origin", v3a(g.origin)},
                     {"h", f(g.h)},
                     {"sources", a(g.sources)},
                     {"nsource", i(g.source_count)},
                     {"q_out", a(q)}});
                cur[axis] = q;
            }
    }

    // 2. advection, by the velocity after the sources
    const Array vel[3] = {cur[0], cur[1], cur[2]};
    auto advect = [&](int axis, const Array& q, float step, const Array& q_out) {
        Layout l = layout(g, axis);
        run("advect", sizes[axis],
            {{"q", a(q)},
             {"sx", i(l.sx)},
             {"sy", i(l.sy)},
             {"sz", i(l.sz)},
             {"offset", v3a(l.offset)},
             {"u", a(vel[0])},
             {"v", a(vel[1])},
             {"w", a(vel[2])},
             {"nx", i(g.nx)},
             {"ny", i(g.ny)},
             {"nz", i(g.nz)},
             {"dt_h", f(step)},
             {"q_out", a(q_out)}});
    };
    Array adv[4];
    for (int axis = 0; axis < 4; ++axis) {
        // the density is written straight into state_out when nothing follows it
        bool last = axis == 3;
        Array q_out = last ? out.smoke_density : field("adv_" + std::to_string(axis), sizes[axis], grad, m.device);
        if (last && g.advection == SmokeAdvection_Conservative) {
            runtime::launch(K("advect_conservative"), cells3,
                            {{"d", a(cur[3])},
                             {"u", a(vel[0])},
                             {"v", a(vel[1])},
                             {"w", a(vel[2])},
                             {"solid", a(g.solid)},
                             {"nx", i(g.nx)},
                             {"ny", i(g.ny)},
                             {"nz", i(g.nz)},
                             {"dt_h", f(dt_h)},
                             {"d_out", a(q_out)}},
                            o);
        } else if (g.advection == SmokeAdvection_MacCormack) {
            Array hat = field("hat_" + std::to_string(axis), sizes[axis], grad, m.device);
            Array back = field("back_" + std::to_string(axis), sizes[axis], grad, m.device);
            advect(axis, cur[axis], dt_h, hat);
            advect(axis, hat, -dt_h, back);
            Layout l = layout(g, axis);
            run("maccormack_correct", sizes[axis],
                {{"q", a(cur[axis])},
                 {"q_hat", a(hat)},
                 {"q_back", a(back)},
                 {"sx", i(l.sx)},
                 {"sy", i(l.sy)},
                 {"sz", i(l.sz)},
                 {"offset", v3a(l.offset)},
                 {"u", a(vel[0])},
                 {"v", a(vel[1])},
                 {"w", a(vel[2])},
                 {"nx", i(g.nx)},
                 {"ny", i(g.ny)},
                 {"nz", i(g.nz)},
                 {"dt_h", f(dt_h)},
                 {"q_out", a(q_out)}});
        } else {
            advect(axis, cur[axis], dt_h, q_out);
        }
        adv[axis] = q_out;
    }

    // 3. buoyancy (against gravity) and vorticity confinement, from the advected density
    Array u[3] = {adv[0], adv[1], adv[2]};
    const auto& gr = m.gravity;
    double gl = std::sqrt(double(gr[0]) * gr[0] + double(gr[1]) * gr[1] + double(gr[2]) * gr[2]);
    std::array<float, 3> up =
        gl > 0 ? std::array<float, 3>{float(-gr[0] / gl), float(-gr[1] / gl), float(-gr[2] / gl)} : std::array<float, 3>{0, 1, 0};
    std::array<float, 3> buoy = {up[0] * g.buoyancy, up[1] * g.buoyancy, up[2] * g.buoyancy};
    if (g.buoyancy != 0.0f || g.vorticity > 0.0f) {
        Array conf = field("conf", g.cells(), grad, m.device, true);
        if (g.vorticity > 0.0f) {
            Array omega = field("omega", g.cells(), grad, m.device, true);
            runtime::launch(K("vorticity"), cells3,
                            {{"u", a(u[0])},
                             {"v", a(u[1])},
                             {"w", a(u[2])},
                             {"nx", i(g.nx)},
                             {"ny", i(g.ny)},
                             {"nz", i(g.nz)},
                             {"h", f(g.h)},
                             {"omega", a(omega)}},
                            o);
            runtime::launch(K("confinement_force"), cells3,
                            {{"omega", a(omega)},
                             {"solid", a(g.solid)},
                             {"nx", i(g.nx)},
                             {"ny", i(g.ny)},
                             {"nz", i(g.nz)},
                             {"h", f(g.h)},
                             {"epsilon", f(g.vorticity)},
                             {"force", a(conf)}},
                            o);
        } else if (!grad) {
            conf.zero_unrecorded();
        }
        for (int axis = 0; axis < 3; ++axis) {
            Layout l = layout(g, axis);
            Array q = field("force_" + std::to_string(axis), sizes[axis], grad, m.device);
            run("add_forces", sizes[axis],
                {{"q", a(u[axis])},
                 {"sx", i(l.sx)},
                 {"sy", i(l.sy)},
                 {"axis", i(axis)},
                 {"density", a(adv[3])},
                 {"confinement", a(conf)},
                 {"nx", i(g.nx)},
                 {"ny", i(g.ny)},
                 {"nz", i(g.nz)},
                 {"buoyancy", v3a(buoy)},
                 {"dt", f(dt)},
                 {"q_out", a(q)}});
            u[axis] = q;
        }
    }

    // 4. viscosity: explicit, in substeps of at most kViscosityLimit
    viscosity_substeps_ = 0;
    if (g.viscosity > 0.0f) {
        double total = double(g.viscosity) * dt / (double(g.h) * g.h);
        int n = std::max(1, int(std::ceil(total / kViscosityLimit)));
        viscosity_substeps_ = n;
        for (int s = 0; s < n; ++s)
            for (int axis = 0; axis < 3; ++axis) {
                Layout l = layout(g, axis);
                Array q = field("visc_" + std::to_string(axis) + "_" + std::to_string(s % 2), sizes[axis], grad, m.device);
                run("diffuse", sizes[axis],
                    {{"q", a(u[axis])},
                     {"sx", i(l.sx)},
                     {"sy", i(l.sy)},
                     {"sz", i(l.sz)},
                     {"alpha", f(total / n)},
                     {"q_out", a(q)}});
                u[axis] = q;
            }
    }

    // 5. projection
    last_ = projection_.project(g, u[0], u[1], u[2], out.smoke_u, out.smoke_v, out.smoke_w);

    // 6. tracers
    if (m.particle_count > 0)
        run("advect_particles", m.particle_count,
            {{"x", a(in.particle_q)},
             {"u", a(out.smoke_u)},
             {"v", a(out.smoke_v)},
             {"w", a(out.smoke_w)},
             {"nx", i(g.nx)},
             {"ny", i(g.ny)},
             {"nz", i(g.nz)},
             {"origin", v3a(g.origin)},
             {"h", f(g.h)},
             {"dt", f(dt)},
             {"x_new", a(out.particle_q)},
             {"v_new", a(out.particle_qd)}});
}

}  // namespace weft::engine
