// engine/smoke_grid.cpp: validation and upload of the smoke grid (smoke_grid.h), and its multigrid
// hierarchy: each coarser level halves every axis longer than one cell (rounding up), and a coarse
// cell is solid only when all of its children are.
#include "engine/smoke_grid.h"

#include <cmath>

#include "engine/model.h"
#include "engine/model_builder.h"

namespace weft::engine {

const std::vector<std::string>& smoke_solver_names() {
    static const std::vector<std::string> n = {"jacobi", "gauss_seidel", "mgpcg"};
    return n;
}
const std::vector<std::string>& smoke_advection_names() {
    static const std::vector<std::string> n = {"semi_lagrangian", "maccormack", "conservative"};
    return n;
}

namespace {

void check_finite(float v, const std::string& what) {
    if (!std::isfinite(v)) throw BuildError("smoke: " + what + " must be finite, got " + std::to_string(v));
}

bool inside(const SmokeRegion& r, float x, float y, float z) {
    float dx = x - r.center[0], dy = y - r.center[1], dz = z - r.center[2];
    if (r.shape == SmokeShape_Sphere) return dx * dx + dy * dy + dz * dz <= r.size[0] * r.size[0];
    return std::fabs(dx) <= r.size[0] && std::fabs(dy) <= r.size[1] && std::fabs(dz) <= r.size[2];
}

void check_region(const SmokeRegion& r, const std::string& what) {
    for (int k = 0; k < 3; ++k) {
        check_finite(r.center[size_t(k)], what + " center");
        check_finite(r.size[size_t(k)], what + " size");
        check_finite(r.velocity[size_t(k)], what + " velocity");
    }
    check_finite(r.rate, what + " rate");
    if (r.shape == SmokeShape_Sphere && !(r.size[0] > 0))
        throw BuildError("smoke: " + what + " radius must be > 0, got " + std::to_string(r.size[0]));
    if (r.shape == SmokeShape_Box && !(r.size[0] > 0 && r.size[1] > 0 && r.size[2] > 0))
        throw BuildError("smoke: " + what + " half extents must all be > 0");
}

Array upload_floats(const std::vector<float>& host, int64_t size, const std::string& what, const runtime::Device& device,
                    bool grad) {
    Array a = Array::zeros(compiler::float32_type(), {size}, device, grad);
    if (host.empty()) return a;
    if (int64_t(host.size()) != size)
        throw BuildError("smoke: initial " + what + " has " + std::to_string(host.size()) + " values, the grid needs " +
                         std::to_string(size));
    a.copy_from_host(host.data(), host.size() * sizeof(float));
    return a;
}

}  // namespace

SmokeGrid build_smoke_grid(const SmokeDef& d, const runtime::Device& device, bool requires_grad) {
    SmokeGrid g;
    const auto& r = d.resolution;
    if (r[0] == 0 && r[1] == 0 && r[2] == 0) return g;
    if (r[0] < 1 || r[1] < 1 || r[2] < 1)
        throw BuildError("smoke: resolution must be >= 1 cell on every axis, got (" + std::to_string(r[0]) + ", " +
                         std::to_string(r[1]) + ", " + std::to_string(r[2]) + ")");
    if (int64_t(r[0]) * r[1] * r[2] > (int64_t(1) << 28)) throw BuildError("smoke: resolution has more than 2^28 cells");
    if (!(d.cell_size > 0) || !std::isfinite(d.cell_size))
        throw BuildError("smoke: cell_size must be > 0, got " + std::to_string(d.cell_size));
    if (d.iterations < 1) throw BuildError("smoke: iterations must be >= 1, got " + std::to_string(d.iterations));
    if (!(d.tolerance > 0) || !std::isfinite(d.tolerance))
        throw BuildError("smoke: tolerance must be > 0, got " + std::to_string(d.tolerance));
    if (!(d.viscosity >= 0)) throw BuildError("smoke: viscosity must be >= 0, got " + std::to_string(d.viscosity));
    if (!(d.vorticity >= 0)) throw BuildError("smoke: vorticity must be >= 0, got " + std::to_string(d.vorticity));
    check_finite(d.buoyancy, "buoyancy");
    check_finite(d.viscosity, "viscosity");
    check_finite(d.vorticity, "vorticity");
    for (int k = 0; k < 3; ++k) check_finite(d.origin[size_t(k)], "origin");
    for (size_t k = 0; k < d.sources.size(); ++k) check_region(d.sources[k], "source " + std::to_string(k));
    for (size_t k = 0; k < d.obstacles.size(); ++k) check_region(d.obstacles[k], "obstacle " + std::to_string(k));

    g.nx = r[0], g.ny = r[1], g.nz = r[2];
    g.h = d.cell_size;
    g.origin = d.origin;
    g.solver = d.solver;
    g.iterations = d.iterations;
    g.tolerance = d.tolerance;
    g.buoyancy = d.buoyancy;
    g.vorticity = d.vorticity;
    g.viscosity = d.viscosity;
    g.advection = d.advection;

    // sources: 12 floats each (kernels/smoke.py, in_region)
    std::vector<float> src;
    for (const SmokeRegion& s : d.sources) {
        src.insert(src.end(), {float(s.shape), s.center[0], s.center[1], s.center[2], s.size[0], s.size[1], s.size[2],
                               s.velocity[0], s.velocity[1], s.velocity[2], s.rate, s.has_velocity ? 1.0f : 0.0f});
        g.source_velocity = g.source_velocity || s.has_velocity;
    }
    g.source_count = int(d.sources.size());
    if (src.empty()) src.assign(12, 0.0f);
    g.sources = Array::empty(compiler::float32_type(), {int64_t(src.size())}, device);
    g.sources.copy_from_host(src.data(), src.size() * sizeof(float));

    // the solid mask and its coarser levels
    std::vector<int> solid(size_t(g.cells()), 0);
    int fluid = 0;
    for (int k = 0; k < g.nz; ++k)
        for (int j = 0; j < g.ny; ++j)
            for (int i = 0; i < g.nx; ++i) {
                float x = g.origin[0] + (float(i) + 0.5f) * g.h, y = g.origin[1] + (float(j) + 0.5f) * g.h,
                      z = g.origin[2] + (float(k) + 0.5f) * g.h;
                int s = 0;
                for (const SmokeRegion& o : d.obstacles) s |= inside(o, x, y, z) ? 1 : 0;
                solid[size_t((int64_t(k) * g.ny + j) * g.nx + i)] = s;
                fluid += 1 - s;
            }
    if (fluid == 0) throw BuildError("smoke: the obstacles fill every cell of the grid");
    int nx = g.nx, ny = g.ny, nz = g.nz;
    for (;;) {
        SmokeLevel lv;
        lv.nx = nx, lv.ny = ny, lv.nz = nz;
        lv.fluid = 0;
        for (int s : solid) lv.fluid += 1 - s;
        lv.solid = Array::empty(compiler::int32_type(), {int64_t(solid.size())}, device);
        lv.solid.copy_from_host(solid.data(), solid.size() * sizeof(int));
        g.levels.push_back(lv);
        if (std::max({nx, ny, nz}) <= 4) break;
        int cx = nx > 1 ? (nx + 1) / 2 : 1, cy = ny > 1 ? (ny + 1) / 2 : 1, cz = nz > 1 ? (nz + 1) / 2 : 1;
        std::vector<int> coarse(size_t(int64_t(cx) * cy * cz), 1);
        for (int k = 0; k < nz; ++k)
            for (int j = 0; j < ny; ++j)
                for (int i = 0; i < nx; ++i)
                    if (!solid[size_t((int64_t(k) * ny + j) * nx + i)])
                        coarse[size_t((int64_t(k / 2) * cy + j / 2) * cx + i / 2)] = 0;
        solid.swap(coarse);
        nx = cx, ny = cy, nz = cz;
    }
    g.solid = g.levels[0].solid;

    g.density = upload_floats(d.density, g.cells(), "density", device, requires_grad);
    g.u = upload_floats(d.u, g.u_size(), "u", device, requires_grad);
    g.v = upload_floats(d.v, g.v_size(), "v", device, requires_grad);
    g.w = upload_floats(d.w, g.w_size(), "w", device, requires_grad);
    return g;
}

void init_smoke_state(const Model& m, State& s, bool grad) {
    if (!m.smoke.valid()) return;
    for (auto [dst, src] : {std::pair{&s.smoke_density, &m.smoke.density}, std::pair{&s.smoke_u, &m.smoke.u},
                            std::pair{&s.smoke_v, &m.smoke.v}, std::pair{&s.smoke_w, &m.smoke.w}}) {
        *dst = Array::empty(src->dtype(), src->shape(), src->device(), grad);
        dst->assign(*src);
    }
}

}  // namespace weft::engine
