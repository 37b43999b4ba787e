// engine/smoke_grid.h: the Eulerian smoke grid of a model (docs/smoke.md): what the builder
// describes (SmokeDef, ModelBuilder::smoke) and what finalize() uploads (SmokeGrid, Model::smoke).
//
// [SECTION] Enums       the pressure solver and the advection scheme
// [SECTION] SmokeDef    the builder's description: resolution, cell size, parameters, sources, obstacles
// [SECTION] SmokeGrid   the model's grid: sizes, parameters, the solid mask and its multigrid levels
//
//   ModelBuilder b;
//   b.smoke.resolution = {64, 128, 1};               // nz = 1: a 2-D grid
//   b.smoke.cell_size = 0.01f;
//   b.smoke.sources.push_back({SmokeShape_Sphere, {0.32f, 0.1f, 0.005f}, {0.05f, 0, 0}, {0, 1, 0}, 10.0f, true});
//   Model m = b.finalize("cpu");                      // m.smoke.nx == 64; state.smoke_density ...
//
// A MAC grid of nx x ny x nz cells of side h: density at cell centres, each velocity component on
// the faces normal to its axis (kernels/smoke.py draws the layout). The domain's walls are solid;
// obstacles mark cells solid (a cell whose centre an obstacle holds).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/array.h"

namespace weft::engine {

using runtime::Array;

struct Model;
struct State;

// [SECTION] Enums
enum SmokeSolver : int {
    SmokeSolver_Jacobi = 0,       // weighted Jacobi sweeps (weight 2/3), `iterations` of them
    SmokeSolver_GaussSeidel = 1,  // red-black Gauss-Seidel sweeps, `iterations` of them
    SmokeSolver_MGPCG = 2,        // conjugate gradients preconditioned by a multigrid V-cycle, to `tolerance`
};
enum SmokeAdvection : int {
    SmokeAdvection_SemiLagrangian = 0,  // RK2 back trace, trilinear interpolation
    SmokeAdvection_MacCormack = 1,      // semi-Lagrangian forward and back, corrected, clamped
    SmokeAdvection_Conservative = 2,    // density by upwind finite volumes (keeps its sum); velocity semi-Lagrangian
};
enum SmokeShape : int { SmokeShape_Sphere = 0, SmokeShape_Box = 1 };

// The names scene files use ("mgpcg", "maccormack"), in enum order.
const std::vector<std::string>& smoke_solver_names();
const std::vector<std::string>& smoke_advection_names();

// [SECTION] SmokeDef

// An inflow source or a static obstacle, in world coordinates (m).
struct SmokeRegion {
    SmokeShape shape = SmokeShape_Sphere;
    std::array<float, 3> center{0, 0, 0};    // m
    std::array<float, 3> size{0, 0, 0};      // sphere: radius in size[0]; box: half extents (m)
    std::array<float, 3> velocity{0, 0, 0};  // m/s: sources only, set on the faces inside when has_velocity
    float rate = 0.0f;                       // density per second added to the cells inside (sources only)
    bool has_velocity = false;
};

struct SmokeDef {
    std::array<int, 3> resolution{0, 0, 0};  // cells (nx, ny, nz); all 0 = no smoke grid; nz = 1 for 2-D
    float cell_size = 0.1f;                  // m, h
    std::array<float, 3> origin{0, 0, 0};    // m, the corner of cell (0, 0, 0)
    SmokeSolver solver = SmokeSolver_MGPCG;
    int iterations = 100;     // CG iterations at most (MGPCG) or sweeps (Jacobi, Gauss-Seidel)
    float tolerance = 1e-6f;  // MGPCG stops when |r| <= tolerance |b| (2-norms of the pressure system)
    float buoyancy = 1.0f;    // m/s^2 per unit density, against gravity
    float vorticity = 0.0f;   // vorticity confinement epsilon (0 = off)
    float viscosity = 0.0f;   // m^2/s, kinematic; explicit, substepped below its stability limit
    SmokeAdvection advection = SmokeAdvection_SemiLagrangian;
    std::vector<SmokeRegion> sources;
    std::vector<SmokeRegion> obstacles;
    // Initial fields (flat, x fastest); empty = zero. Sizes nx ny nz, (nx+1) ny nz, nx (ny+1) nz, nx ny (nz+1).
    std::vector<float> density, u, v, w;
};

// [SECTION] SmokeGrid
struct SmokeLevel {
    int nx = 0, ny = 0, nz = 0;
    Array solid;    // int32 (nx ny nz): 1 = solid
    int fluid = 0;  // fluid cells
};

struct SmokeGrid {
    int nx = 0, ny = 0, nz = 0;  // 0: the model has no smoke grid
    float h = 0.1f;
    std::array<float, 3> origin{0, 0, 0};
    SmokeSolver solver = SmokeSolver_MGPCG;
    int iterations = 100;
    float tolerance = 1e-6f;
    float buoyancy = 1.0f;
    float vorticity = 0.0f;
    float viscosity = 0.0f;
    SmokeAdvection advection = SmokeAdvection_SemiLagrangian;
    int source_count = 0;
    bool source_velocity = false;    // some source sets velocities
    Array sources;                   // float (12 max(source_count, 1)): shape, centre, size, velocity, rate, has_velocity
    Array solid;                     // int32 (cells): 1 = solid (an obstacle holds its centre)
    std::vector<SmokeLevel> levels;  // multigrid: levels[0] is this grid; each next one halves every axis longer than 1
    Array density, u, v, w;          // initial fields (float; differentiable under requires_grad)

    bool valid() const { return nx > 0; }
    int64_t cells() const { return int64_t(nx) * ny * nz; }
    int64_t u_size() const { return int64_t(nx + 1) * ny * nz; }
    int64_t v_size() const { return int64_t(nx) * (ny + 1) * nz; }
    int64_t w_size() const { return int64_t(nx) * ny * (nz + 1); }
};

// Validates `def` (BuildError naming the field) and uploads it; an all-zero resolution gives an
// empty grid.
SmokeGrid build_smoke_grid(const SmokeDef& def, const runtime::Device& device, bool requires_grad);

// Gives `s` the model's smoke fields (copies of the initial ones), with gradients when `grad`.
void init_smoke_state(const Model& m, State& s, bool grad);

}  // namespace weft::engine
