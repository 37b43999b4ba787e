// engine/mpm_defs.h: what an MLS-MPM model is built from (engine/mpm.h simulates it): the dense
// background grid of the domain box and its walls, and volumes of particles of one material.
//
//   ModelBuilder b;
//   b.mpm_grid = {{0, 0, 0}, 0.02f, {50, 50, 50}, MpmBoundary::Separate};   // 1 m box, 2 cm cells
//   MpmVolumeDef v;                                                        // a 20 cm sand cube
//   v.lo = {0.4f, 0.1f, 0.4f}; v.hi = {0.6f, 0.3f, 0.6f}; v.material = MpmMaterial::Sand;
//   b.add_mpm_volume(v);                                                   // 2 x 2 x 2 particles per cell
//
// Each particle carries its material and parameters (Model::mpm_material, mpm_params), so one
// model mixes materials. The numbers of the enums are those of kernels/mpm.py.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace weft::engine {

enum class MpmMaterial : int { FixedCorotated = 0, NeoHookean = 1, Fluid = 2, Sand = 3, Snow = 4 };
// What the grid does with the velocity of nodes within boundary_cells of a wall of the domain box.
enum class MpmBoundary : int {
    None = 0,      // no walls: particles must stay inside the domain (the stencil is clamped at its edges)
    Sticky = 1,    // the node's velocity is set to zero
    Slip = 2,      // the velocity's component normal to the wall is zeroed
    Separate = 3,  // the normal component is zeroed only while it points into the wall
};

// Names of the materials and boundaries as scene files and Python spell them.
const std::vector<std::string>& mpm_material_names();  // "fixed_corotated", "neo_hookean", "fluid", "sand", "snow"
const std::vector<std::string>& mpm_boundary_names();  // "none", "sticky", "slip", "separate"

struct MpmGridDef {
    Eigen::Vector3f lo = Eigen::Vector3f::Zero();  // m, the domain's lower corner (node 0, 0, 0)
    float dx = 0.0f;                               // m, cell side; 0 = no MPM grid
    std::array<int, 3> cells{0, 0, 0};             // cells along x, y, z (nodes: cells + 1); each >= 4
    MpmBoundary boundary = MpmBoundary::Separate;  // walls of the domain box
    int floor = -1;                                // MpmBoundary of the floor (the -y wall); -1 = `boundary`
    int boundary_cells = 3;                        // nodes within this many cells of a wall are wall nodes
};

struct MpmVolumeDef {
    enum class Shape { Box, Sphere };
    Shape shape = Shape::Box;
    Eigen::Vector3f lo = Eigen::Vector3f::Zero(), hi = Eigen::Vector3f::Zero();  // m, Box: its corners
    Eigen::Vector3f center = Eigen::Vector3f::Zero();                            // m, Sphere: its centre
    float radius = 0.0f;                                                         // m, Sphere: its radius
    Eigen::Vector3f vel = Eigen::Vector3f::Zero();                               // m/s, initial velocity
    MpmMaterial material = MpmMaterial::FixedCorotated;
    float density = 1000.0f;       // kg/m^3
    float E = 1.0e4f;              // Pa, Young's modulus (elastic, sand, snow)
    float nu = 0.3f;               // Poisson's ratio, 0 <= nu < 0.5
    float bulk_modulus = 1.0e4f;   // Pa, fluid: pressure K J (J - 1)
    float friction_angle = 30.0f;  // degrees, sand
    float theta_c = 2.5e-2f;       // snow: critical compression (Stomakhin et al.'s value)
    float theta_s = 7.5e-3f;       // snow: critical stretch
    float hardening = 10.0f;       // snow: xi
    int particles_per_cell = 2;    // particles along each axis of a grid cell (1 to 4); spacing dx / this
};

}  // namespace weft::engine
