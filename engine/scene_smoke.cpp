// engine/scene_smoke.cpp: the smoke blocks of scene files (docs/scene-format.md, docs/smoke.md),
// read through engine/scene_reader.h and listed in engine/scene_blocks.def:
//
//   [smoke]                  resolution (3 integers; z = 1 for 2-D), cell_size, origin, solver
//                            ("mgpcg" | "jacobi" | "gauss_seidel"), iterations, tolerance, buoyancy,
//                            vorticity, viscosity, advection ("semi_lagrangian" | "maccormack" |
//                            "conservative")
//     [[smoke.source]]       shape = "sphere" | "box"; center; radius or half_extents; rate
//                            (density per second); velocity (optional: set on the faces inside)
//     [[smoke.obstacle]]     shape = "sphere" | "box"; center; radius or half_extents
//
// A [smoke] table asks for solver = "smoke" in [simulation]: another solver would ignore it.
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES

namespace weft::engine {

namespace {

SmokeRegion read_region(TableReader& r, bool source) {
    SmokeRegion g;
    std::string shape = r.string("shape", "", {"sphere", "box"});
    if (shape.empty())
        r.fail(r.table().source(), std::string("missing key 'shape' in [[smoke.") + (source ? "source" : "obstacle") + "]]");
    Vec3 c = r.vec3("center", Vec3::Zero(), true);
    g.center = {c.x(), c.y(), c.z()};
    if (shape == "sphere") {
        g.shape = SmokeShape_Sphere;
        g.size[0] = float(r.required_number("radius", 0.0, INFINITY, true));
    } else {
        g.shape = SmokeShape_Box;
        Vec3 h = r.vec3("half_extents", Vec3::Zero(), true);
        if (!(h.x() > 0 && h.y() > 0 && h.z() > 0)) r.fail_at("half_extents", "'half_extents' must all be > 0");
        g.size = {h.x(), h.y(), h.z()};
    }
    if (source) {
        g.rate = float(r.number("rate", 1.0));
        if (r.has("velocity")) {
            Vec3 v = r.vec3("velocity");
            g.velocity = {v.x(), v.y(), v.z()};
            g.has_velocity = true;
        }
    }
    return g;
}

}  // namespace

void read_smoke_blocks(TableReader& root, Scene& s) {
    const toml::node* n = root.get("smoke");
    if (!n) return;
    if (!n->is_table()) root.fail(n->source(), "'smoke' must be a table, got " + std::string(toml_type_word(*n)));
    if (s.solver != "smoke")
        root.fail(n->source(), "a [smoke] table needs solver = \"smoke\" in [simulation] (the solver is '" + s.solver + "')");
    TableReader r(root.file(), *n->as_table(), "[smoke]");
    SmokeDef& d = s.builder.smoke;
    std::vector<double> res = r.numbers("resolution", 3, {}, true);
    for (int k = 0; k < 3; ++k) {
        double v = res[size_t(k)];
        if (!(v >= 1 && v <= 4096 && v == std::floor(v)))
            r.fail_at("resolution", "'resolution' must be 3 integers from 1 to 4096, got " + format_number(v));
        d.resolution[size_t(k)] = int(v);
    }
    check_memory(r, "resolution", s, {});  // 4096^3 cells would take 8 TiB in finalize()
    d.cell_size = float(r.number("cell_size", d.cell_size, 0.0, INFINITY, true));
    Vec3 o = r.vec3("origin", Vec3::Zero());
    d.origin = {o.x(), o.y(), o.z()};
    std::string solver = r.string("solver", smoke_solver_names()[size_t(d.solver)], smoke_solver_names());
    d.solver =
        SmokeSolver(std::find(smoke_solver_names().begin(), smoke_solver_names().end(), solver) - smoke_solver_names().begin());
    d.iterations = r.integer("iterations", d.iterations, 1, 1000000);
    d.tolerance = float(r.number("tolerance", d.tolerance, 0.0, 1.0, true));
    d.buoyancy = float(r.number("buoyancy", d.buoyancy));
    d.vorticity = float(r.number("vorticity", d.vorticity, 0.0));
    d.viscosity = float(r.number("viscosity", d.viscosity, 0.0));
    std::string adv = r.string("advection", smoke_advection_names()[size_t(d.advection)], smoke_advection_names());
    d.advection = SmokeAdvection(std::find(smoke_advection_names().begin(), smoke_advection_names().end(), adv) -
                                 smoke_advection_names().begin());
    for_each_entry(r, "source", [&](TableReader& e) { d.sources.push_back(read_region(e, true)); });
    for_each_entry(r, "obstacle", [&](TableReader& e) { d.obstacles.push_back(read_region(e, false)); });
    r.finish();
}

}  // namespace weft::engine

#endif
