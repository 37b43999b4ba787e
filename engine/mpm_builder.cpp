// engine/mpm_builder.cpp: ModelBuilder's MLS-MPM part: filling volumes with particles of a
// material, and the model's MPM arrays at finalize().
//
// Particles sit at the cell centres of a regular lattice of spacing h = dx / particles_per_cell
// aligned with the grid (the lattice cell whose centre lies inside the shape gets a particle), so
// a box whose corners are on grid lines is filled exactly: particles_per_cell^3 per grid cell, each
// with volume h^3 and mass density h^3. Lamé parameters come from E and nu:
// mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu) (1 - 2 nu)). Sand's Drucker-Prager slope is
// alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)) (Klár et al. 2016, eq. 27).
#include <cmath>

#include "engine/model_builder.h"

namespace weft::engine {

const std::vector<std::string>& mpm_material_names() {
    static const std::vector<std::string> names = {"fixed_corotated", "neo_hookean", "fluid", "sand", "snow"};
    return names;
}

const std::vector<std::string>& mpm_boundary_names() {
    static const std::vector<std::string> names = {"none", "sticky", "slip", "separate"};
    return names;
}

namespace {

void check_finite(const char* what, double v) {
    if (!std::isfinite(v)) throw BuildError(std::string("add_mpm_volume: ") + what + " must be finite, got " + std::to_string(v));
}

void check_positive(const char* what, double v) {
    check_finite(what, v);
    if (!(v > 0)) throw BuildError(std::string("add_mpm_volume: ") + what + " must be > 0, got " + std::to_string(v));
}

}  // namespace

int ModelBuilder::add_mpm_volume(const MpmVolumeDef& d) {
    const MpmGridDef& g = mpm_grid;
    if (!(g.dx > 0))
        throw BuildError("add_mpm_volume: set the MPM grid first (ModelBuilder::mpm_grid.dx is " + std::to_string(g.dx) + ")");
    if (d.particles_per_cell < 1 || d.particles_per_cell > 4)
        throw BuildError("add_mpm_volume: particles_per_cell must be 1 to 4, got " + std::to_string(d.particles_per_cell));
    check_positive("density", d.density);
    for (int k = 0; k < 3; ++k) check_finite("vel", d.vel[k]);
    std::array<float, 5> params{0, 0, 0, 0, 0};
    if (d.material == MpmMaterial::Fluid) {
        check_positive("bulk_modulus", d.bulk_modulus);
        params[1] = d.bulk_modulus;
    } else {
        check_positive("E", d.E);
        check_finite("nu", d.nu);
        if (!(d.nu >= 0 && d.nu < 0.5)) throw BuildError("add_mpm_volume: nu must be in [0, 0.5), got " + std::to_string(d.nu));
        params[0] = float(d.E / (2.0 * (1.0 + d.nu)));
        params[1] = float(d.E * d.nu / ((1.0 + d.nu) * (1.0 - 2.0 * d.nu)));
    }
    if (d.material == MpmMaterial::Sand) {
        if (!(d.friction_angle > 0 && d.friction_angle < 90))
            throw BuildError("add_mpm_volume: friction_angle must be in (0, 90) degrees, got " +
                             std::to_string(d.friction_angle));
        double s = std::sin(double(d.friction_angle) * M_PI / 180.0);
        params[2] = float(std::sqrt(2.0 / 3.0) * 2.0 * s / (3.0 - s));
    }
    if (d.material == MpmMaterial::Snow) {
        if (!(d.theta_c >= 0 && d.theta_c < 1))
            throw BuildError("add_mpm_volume: theta_c must be in [0, 1), got " + std::to_string(d.theta_c));
        if (!(d.theta_s >= 0) || !std::isfinite(d.theta_s))
            throw BuildError("add_mpm_volume: theta_s must be >= 0, got " + std::to_string(d.theta_s));
        check_finite("hardening", d.hardening);
        if (!(d.hardening >= 0)) throw BuildError("add_mpm_volume: hardening must be >= 0, got " + std::to_string(d.hardening));
        params[2] = d.theta_c;
        params[3] = d.theta_s;
        params[4] = d.hardening;
    }

    Eigen::Vector3f lo, hi;
    if (d.shape == MpmVolumeDef::Shape::Box) {
        for (int k = 0; k < 3; ++k) {
            check_finite("lo", d.lo[k]);
            check_finite("hi", d.hi[k]);
        }
        if (!(d.hi.array() > d.lo.array()).all()) throw BuildError("add_mpm_volume: the box needs hi > lo on every axis");
        lo = d.lo;
        hi = d.hi;
    } else {
        for (int k = 0; k < 3; ++k) check_finite("center", d.center[k]);
        check_positive("radius", d.radius);
        lo = d.center.array() - d.radius;
        hi = d.center.array() + d.radius;
    }
    // The walls' nodes (and the stencil of a particle, one cell on each side) must stay inside the grid.
    const int margin = std::max(g.boundary_cells, 1);
    for (int k = 0; k < 3; ++k) {
        float dlo = g.lo[k] + float(margin) * g.dx, dhi = g.lo[k] + float(g.cells[size_t(k)] - margin) * g.dx;
        if (lo[k] < dlo - 1e-6f * g.dx || hi[k] > dhi + 1e-6f * g.dx)
            throw BuildError("add_mpm_volume: the volume spans [" + std::to_string(lo[k]) + ", " + std::to_string(hi[k]) +
                             "] along axis " + "xyz"[k] + "; the grid's interior is [" + std::to_string(dlo) + ", " +
                             std::to_string(dhi) + "] (" + std::to_string(margin) + " cells inside the domain)");
    }

    const double h = double(g.dx) / d.particles_per_cell;
    std::array<long, 3> first{}, count{};
    for (int k = 0; k < 3; ++k) {
        first[size_t(k)] = long(std::ceil((double(lo[k]) - g.lo[k]) / h - 0.5 - 1e-6));
        long last = long(std::floor((double(hi[k]) - g.lo[k]) / h - 0.5 + 1e-6));
        count[size_t(k)] = std::max(0L, last - first[size_t(k)] + 1);
    }
    const float vol = float(h * h * h);
    const float radius = float(0.5 * h);
    int added = 0;
    for (long i = 0; i < count[0]; ++i)
        for (long j = 0; j < count[1]; ++j)
            for (long k = 0; k < count[2]; ++k) {
                Eigen::Vector3d p =
                    g.lo.cast<double>() +
                    h * Eigen::Vector3d(double(first[0] + i) + 0.5, double(first[1] + j) + 0.5, double(first[2] + k) + 0.5);
                if (d.shape == MpmVolumeDef::Shape::Sphere && (p - d.center.cast<double>()).norm() > double(d.radius)) continue;
                add_particle(p.cast<float>(), d.vel, d.density * vol, radius);
                mpm_material.resize(particle_q.size() - 1, -1);
                mpm_params.resize(particle_q.size() - 1, std::array<float, 5>{0, 0, 0, 0, 0});
                mpm_volume.resize(particle_q.size() - 1, 0.0f);
                mpm_material.push_back(int(d.material));
                mpm_params.push_back(params);
                mpm_volume.push_back(vol);
                ++added;
            }
    if (added == 0) throw BuildError("add_mpm_volume: the volume holds no particle (it is smaller than the particle spacing)");
    return added;
}

void ModelBuilder::finalize_mpm(Model& m) const {
    if (mpm_material.empty()) return;
    const MpmGridDef& g = mpm_grid;
    for (int k = 0; k < 3; ++k)
        if (g.cells[size_t(k)] < 4)
            throw BuildError("finalize: the MPM grid needs at least 4 cells along each axis, got " +
                             std::to_string(g.cells[size_t(k)]) + " along " + "xyz"[k]);
    const size_t np = particle_q.size();
    std::vector<int> material = mpm_material;
    std::vector<std::array<float, 5>> params = mpm_params;
    std::vector<float> volume = mpm_volume;
    material.resize(np, -1);
    params.resize(np, std::array<float, 5>{0, 0, 0, 0, 0});
    volume.resize(np, 0.0f);
    std::vector<float> flat;
    for (const auto& p : params) flat.insert(flat.end(), p.begin(), p.end());
    m.mpm_particle_count = int(std::count_if(material.begin(), material.end(), [](int x) { return x >= 0; }));
    m.mpm_cells = g.cells;
    m.mpm_lo = {g.lo.x(), g.lo.y(), g.lo.z()};
    m.mpm_dx = g.dx;
    m.mpm_boundary = int(g.boundary);
    m.mpm_floor_boundary = g.floor;
    m.mpm_boundary_cells = g.boundary_cells;
    const int64_t n = int64_t(np);
    m.mpm_material = Array::empty(compiler::int32_type(), {n}, m.device);
    m.mpm_material.copy_from_host(material.data(), material.size() * sizeof(int));
    m.mpm_params = Array::empty(compiler::float32_type(), {n, 5}, m.device, m.requires_grad);
    m.mpm_params.copy_from_host(flat.data(), flat.size() * sizeof(float));
    m.mpm_volume = Array::empty(compiler::float32_type(), {n}, m.device, m.requires_grad);
    m.mpm_volume.copy_from_host(volume.data(), volume.size() * sizeof(float));
}

}  // namespace weft::engine
