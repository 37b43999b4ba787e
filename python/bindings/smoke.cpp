// python/bindings/smoke.cpp: the Eulerian smoke family (engine/smoke_grid.h, engine/smoke.h) on the
// classes bind_engine made: ModelBuilder's grid, sources, obstacles and initial fields, the Model's
// grid description, the State's fields, and the smoke integrator's last projection. The Python API
// (wp.sim.ModelBuilder.set_smoke_grid(...), wp.sim.SmokeIntegrator) is python/weft/sim_voxels.py.
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

#include "engine/model_builder.h"
#include "engine/smoke.h"
#include "python/bindings/bindings.h"

namespace py = pybind11;
using namespace weft::engine;

namespace weft::python {
namespace {

using V3 = std::array<float, 3>;

// The index of `name` in `names`, or a BuildError naming the argument and the choices.
int choice(const char* call, const char* arg, const std::string& name, const std::vector<std::string>& names) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return int(it - names.begin());
    std::string all;
    for (const std::string& n : names) all += (all.empty() ? "'" : ", '") + n + "'";
    throw BuildError(std::string(call) + ": " + arg + " must be one of " + all + ", got '" + name + "'");
}

SmokeRegion region(const char* call, const std::string& shape, const V3& center, const V3& size) {
    SmokeRegion g;
    g.shape = SmokeShape(choice(call, "shape", shape, {"sphere", "box"}));
    g.center = center;
    g.size = size;
    return g;
}

}  // namespace

void bind_smoke(py::module_& m) {
    auto builder = py::reinterpret_borrow<py::class_<ModelBuilder>>(m.attr("ModelBuilder"));
    builder
        .def(
            "set_smoke_grid",
            [](ModelBuilder& s, const std::array<int, 3>& resolution, float cell_size, const V3& origin,
               const std::string& solver, int iterations, float tolerance, float buoyancy, float vorticity, float viscosity,
               const std::string& advection) {
                const char* c = "set_smoke_grid";
                SmokeDef& d = s.smoke;
                d.resolution = resolution;
                d.cell_size = cell_size;
                d.origin = origin;
                d.solver = SmokeSolver(choice(c, "solver", solver, smoke_solver_names()));
                d.iterations = iterations;
                d.tolerance = tolerance;
                d.buoyancy = buoyancy;
                d.vorticity = vorticity;
                d.viscosity = viscosity;
                d.advection = SmokeAdvection(choice(c, "advection", advection, smoke_advection_names()));
            },
            py::arg("resolution"), py::arg("cell_size"), py::arg("origin"), py::arg("solver"), py::arg("iterations"),
            py::arg("tolerance"), py::arg("buoyancy"), py::arg("vorticity"), py::arg("viscosity"), py::arg("advection"),
            "The smoke grid (engine/smoke_grid.h); finalize() validates it and names a bad field")
        .def(
            "add_smoke_source",
            [](ModelBuilder& s, const std::string& shape, const V3& center, const V3& size, float rate,
               std::optional<V3> velocity) {
                SmokeRegion g = region("add_smoke_source", shape, center, size);
                g.rate = rate;
                if (velocity) g.velocity = *velocity, g.has_velocity = true;
                s.smoke.sources.push_back(g);
                return int(s.smoke.sources.size()) - 1;
            },
            py::arg("shape"), py::arg("center"), py::arg("size"), py::arg("rate"), py::arg("velocity"),
            "A density source (and inflow when velocity is given); size: (radius, 0, 0) or half extents")
        .def(
            "add_smoke_obstacle",
            [](ModelBuilder& s, const std::string& shape, const V3& center, const V3& size) {
                s.smoke.obstacles.push_back(region("add_smoke_obstacle", shape, center, size));
                return int(s.smoke.obstacles.size()) - 1;
            },
            py::arg("shape"), py::arg("center"), py::arg("size"), "A static solid: the cells whose centres it holds")
        .def(
            "set_smoke_fields",
            [](ModelBuilder& s, std::optional<std::vector<float>> density, std::optional<std::vector<float>> u,
               std::optional<std::vector<float>> v, std::optional<std::vector<float>> w) {
                if (density) s.smoke.density = std::move(*density);
                if (u) s.smoke.u = std::move(*u);
                if (v) s.smoke.v = std::move(*v);
                if (w) s.smoke.w = std::move(*w);
            },
            py::arg("density"), py::arg("u"), py::arg("v"), py::arg("w"),
            "Initial fields, flat and x fastest (None keeps the current one); finalize() checks their sizes")
        .def_property_readonly("smoke_resolution", [](const ModelBuilder& s) { return s.smoke.resolution; });

    auto model = py::reinterpret_borrow<py::class_<Model>>(m.attr("Model"));
    model
        .def_property_readonly("smoke_resolution",
                               [](const Model& x) {
                                   return std::array<int, 3>{x.smoke.nx, x.smoke.ny, x.smoke.nz};
                               })
        .def_property_readonly("smoke_cell_size", [](const Model& x) { return x.smoke.h; })
        .def_property_readonly("smoke_origin", [](const Model& x) { return x.smoke.origin; });

    auto state = py::reinterpret_borrow<py::class_<State>>(m.attr("State"));
    for (auto [name, member] :
         std::initializer_list<std::pair<const char*, Array State::*>>{{"smoke_density", &State::smoke_density},
                                                                       {"smoke_u", &State::smoke_u},
                                                                       {"smoke_v", &State::smoke_v},
                                                                       {"smoke_w", &State::smoke_w}})
        state.def_property(
            name, [member = member](const State& c) { return c.*member; },
            [member = member](State& c, const Array& a) { c.*member = a; });

    m.def(
        "smoke_last_solve",
        [](const Integrator& it) {
            auto* smoke = dynamic_cast<const SmokeIntegrator*>(&it);
            if (!smoke) throw py::type_error("last_solve: '" + it.info().name + "' is not the smoke integrator");
            const SmokeSolveStats& st = smoke->last_solve();
            py::dict d;
            d["iterations"] = st.iterations;
            d["residual"] = st.residual;
            d["divergence_in"] = st.divergence_in;
            d["divergence_out"] = st.divergence_out;
            d["relative_divergence"] = st.relative_divergence();
            d["viscosity_substeps"] = smoke->last_viscosity_substeps();
            return d;
        },
        py::arg("integrator"), "The smoke integrator's last projection (engine/smoke_projection.h SmokeSolveStats)");
}

}  // namespace weft::python
