// engine/scene_mpm.cpp: the MLS-MPM blocks of scene files (docs/scene-format.md, docs/mpm.md),
// read through engine/scene_reader.h and listed in engine/scene_blocks.def:
//
//   [mpm]                  cells = [nx, ny, nz] (required), dx (m, required), lo ([0, 0, 0]),
//                          boundary ("separate" | "sticky" | "slip" | "none"), floor (the -y
//                          wall's, default: boundary's), boundary_cells (3)
//     [[mpm.volume]]       shape = "box" (lo, hi) | "sphere" (center, radius); material
//                          (required); density, vel, particles_per_cell; per material only its own
//                          parameters: E, nu (elastic, sand, snow), bulk_modulus (fluid),
//                          friction_angle (sand), theta_c, theta_s, hardening (snow)
//
// A key of another material is an unknown key (friction_angle in a fluid volume), so every key
// written in a volume means something for it. TOML cannot make `mpm` both a table ([mpm]) and an
// array of tables ([[mpm]]), so the volumes are an array inside the grid's table, as
// [[body.shape]] is inside [[body]]. The volumes need solver = "mpm" and the mpm solver needs them.
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES

namespace weft::engine {

namespace {

// At most how many particles the volume adds: particles_per_cell per cell along each axis of its
// bounds, clipped to the grid (add_mpm_volume rejects a volume outside the grid's interior).
double particle_bound(const MpmVolumeDef& d, const MpmGridDef& g) {
    Eigen::Vector3f lo = d.lo, hi = d.hi;
    if (d.shape == MpmVolumeDef::Shape::Sphere) {
        lo = d.center.array() - d.radius;
        hi = d.center.array() + d.radius;
    }
    const double h = double(g.dx) / d.particles_per_cell;
    double n = 1;
    for (int k = 0; k < 3; ++k) {
        double a = std::max(double(lo[k]), double(g.lo[k])),
               z = std::min(double(hi[k]), g.lo[k] + double(g.cells[size_t(k)]) * g.dx);
        n *= z > a ? std::floor((z - a) / h) + 1 : 1;
    }
    return n;
}

void read_volume(TableReader& r, Scene& s) {
    ModelBuilder& b = s.builder;
    MpmVolumeDef d;
    const std::string shape = r.string("shape", "box", {"box", "sphere"});
    if (shape == "box") {
        d.shape = MpmVolumeDef::Shape::Box;
        d.lo = r.vec3("lo", Vec3::Zero(), true);
        d.hi = r.vec3("hi", Vec3::Zero(), true);
        for (int k = 0; k < 3; ++k)
            if (!(d.hi[k] > d.lo[k])) r.fail_at("hi", "'hi' must be greater than 'lo' on every axis");
    } else {
        d.shape = MpmVolumeDef::Shape::Sphere;
        d.center = r.vec3("center", Vec3::Zero(), true);
        d.radius = float(r.required_number("radius", 0.0, INFINITY, true));
    }
    if (!r.has("material")) r.fail(r.table().source(), "missing key 'material' in [[mpm.volume]]");
    const std::string material = r.string("material", "", mpm_material_names());
    const auto& names = mpm_material_names();
    d.material = MpmMaterial(int(std::find(names.begin(), names.end(), material) - names.begin()));
    d.density = float(r.number("density", d.density, 0.0, INFINITY, true));
    d.vel = r.vec3("vel", Vec3::Zero());
    d.particles_per_cell = r.integer("particles_per_cell", d.particles_per_cell, 1, 4);
    if (d.material == MpmMaterial::Fluid) {
        d.bulk_modulus = float(r.number("bulk_modulus", d.bulk_modulus, 0.0, INFINITY, true));
    } else {
        d.E = float(r.number("E", d.E, 0.0, INFINITY, true));
        d.nu = float(r.number("nu", d.nu, 0.0, 0.499));
    }
    if (d.material == MpmMaterial::Sand) {
        d.friction_angle = float(r.number("friction_angle", d.friction_angle, 0.0, 89.0, true));
    }
    if (d.material == MpmMaterial::Snow) {
        d.theta_c = float(r.number("theta_c", d.theta_c, 0.0, 0.99));
        d.theta_s = float(r.number("theta_s", d.theta_s, 0.0));
        d.hardening = float(r.number("hardening", d.hardening, 0.0));
    }
    // Refused from its count before add_mpm_volume allocates: a volume filling a 1024^3 grid at 4
    // particles per cell and axis is 7e10 particles, which the builder added one by one until
    // memory ran out.
    check_memory(r, d.shape == MpmVolumeDef::Shape::Box ? "hi" : "radius", s, {particle_bound(d, b.mpm_grid)});
    try {
        b.add_mpm_volume(d);
    } catch (const BuildError& e) { r.fail(r.table().source(), e.what()); }
}

}  // namespace

void read_mpm_blocks(TableReader& root, Scene& s) {
    ModelBuilder& b = s.builder;
    const toml::node* n = root.get("mpm");
    if (!n) {
        if (s.solver == "mpm")
            root.fail(root.table().source(), "solver 'mpm' needs an [mpm] table with its grid and [[mpm.volume]] particles");
        return;
    }
    if (!n->is_table())
        root.fail(n->source(),
                  "'mpm' must be a table ([mpm], with [[mpm.volume]] entries), got " + std::string(toml_type_word(*n)));
    TableReader r(root.file(), *n->as_table(), "[mpm]");
    if (s.solver != "mpm") r.fail(n->source(), "[mpm] needs solver = \"mpm\" in [simulation], not '" + s.solver + "'");
    auto cells = r.numbers("cells", 3, {0, 0, 0}, true);
    for (int k = 0; k < 3; ++k) {
        if (cells[size_t(k)] != std::floor(cells[size_t(k)]) || cells[size_t(k)] < 4 || cells[size_t(k)] > 1024)
            r.fail_at("cells", "'cells' must be 3 integers from 4 to 1024, got " + format_number(cells[size_t(k)]));
        b.mpm_grid.cells[size_t(k)] = int(cells[size_t(k)]);
    }
    b.mpm_grid.dx = float(r.required_number("dx", 0.0, INFINITY, true));
    check_memory(r, "cells", s, {});  // the grid's nodes, before any volume
    b.mpm_grid.lo = r.vec3("lo", Vec3::Zero());
    const auto& boundaries = mpm_boundary_names();
    const std::string boundary = r.string("boundary", "separate", boundaries);
    b.mpm_grid.boundary = MpmBoundary(int(std::find(boundaries.begin(), boundaries.end(), boundary) - boundaries.begin()));
    if (r.has("floor"))
        b.mpm_grid.floor =
            int(std::find(boundaries.begin(), boundaries.end(), r.string("floor", "", boundaries)) - boundaries.begin());
    b.mpm_grid.boundary_cells = r.integer("boundary_cells", 3, 1, 16);
    for (int k = 0; k < 3; ++k)
        if (2 * b.mpm_grid.boundary_cells + 2 > b.mpm_grid.cells[size_t(k)])
            r.fail_at("boundary_cells", "'boundary_cells' = " + std::to_string(b.mpm_grid.boundary_cells) +
                                            " leaves no interior along " + "xyz"[k] + " (" +
                                            std::to_string(b.mpm_grid.cells[size_t(k)]) + " cells)");
    bool any = false;
    for_each_entry(r, "volume", [&](TableReader& vr) {
        any = true;
        read_volume(vr, s);
    });
    if (!any) r.fail(n->source(), "[mpm] needs at least one [[mpm.volume]]");
    r.finish();
}

}  // namespace weft::engine

#endif
