// engine/body_inertia.h: mass properties of solid shapes and their combination into a rigid
// body's mass, centre of mass and inertia tensor (Eigen, double precision).
//
//   MassProperties p = shape_mass_properties(GEO_BOX, {0.5, 0.25, 0.1}, 1000.0);  // kg, m, kg m^2
//   body = combine(body, p, shape_position, shape_rotation);                        // parallel axes
//
// The formulas (about the shape's centre, in its frame): sphere of radius r, m = 4/3 pi r^3 rho,
// I = 2/5 m r^2; box of half extents (hx, hy, hz), m = 8 hx hy hz rho, Ixx = m/3 (hy^2 + hz^2)
// ...; capsule of radius r and half height h along y (cylinder of height 2h and two hemispheres):
// the cylinder's m_c (r^2/4 + h^2/3) about x plus the hemispheres' m_s (2/5 r^2 + h^2 + 3/4 h r),
// and (m_c/2 + 2/5 m_s) r^2 about y: the same as Warp's compute_capsule_inertia; cylinder of
// radius r and half height h along y, m = 2 pi r^2 h rho, Ixx = m (r^2/4 + h^2/3), Iyy = m r^2/2;
// cone of base radius r at +h and apex at -h, m = 2/3 pi r^2 h rho, centre of mass at +h/2,
// Ixx = 3/20 m (r^2 + h^2), Iyy = 3/10 m r^2 about it (tests check all five against numerical
// integration). A closed triangle mesh: the volume integrals of the tetrahedra its triangles
// form with a reference point (the divergence theorem: exact for any closed, consistently wound
// mesh; mesh_mass_properties).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

#include "engine/mesh_sdf.h"

namespace weft::engine {

struct MassProperties {
    double mass = 0.0;                                  // kg
    Eigen::Vector3d com = Eigen::Vector3d::Zero();      // m, in the body (or shape) frame
    Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  // kg m^2, about com, same frame
};

// A solid shape of type `geo_type` (GEO_SPHERE, GEO_BOX, GEO_CAPSULE, GEO_CYLINDER, GEO_CONE) with
// geo_scale `scale` (model.h) and density `density` (kg/m^3), in its own frame: the centre of mass
// (the shape's origin but for the cone) and the inertia about it. Throws std::invalid_argument for
// another type.
MassProperties shape_mass_properties(int geo_type, const Eigen::Vector3d& scale, double density);

// A solid triangle mesh, its vertices scaled by `scale`, of density `density` (kg/m^3), in its own
// frame: mass rho V, centre of mass, and inertia about it. Each triangle (a, b, c) and the
// vertices' mean o form a tetrahedron of signed volume det[a-o, b-o, c-o]/6 and second moment
// det/120 (sum of v v^T over its corners + (sum of v)(sum of v)^T); the signed sums over a closed
// mesh are the solid's. Vertices at the same position are one vertex (OBJ and STL files repeat
// them). Throws std::invalid_argument, naming the vertices, for an edge with a triangle on one side
// only (an open mesh has no volume), an edge that two triangles wind the same way (inconsistent
// winding or more than two triangles), or a volume <= 0 (triangles wound clockwise seen from outside).
MassProperties mesh_mass_properties(const Mesh& mesh, const Eigen::Vector3d& scale, double density);

// For each vertex of `mesh`, the index of the first vertex at the same position (exact equality).
std::vector<int> welded_vertices(const Mesh& mesh);

// `body` with `part` added, the part placed at `pos`, rotated by `rot` in the body frame: the
// masses add, the centre of mass is their weighted mean, and both inertias are moved to it by the
// parallel axis theorem (the part's rotated first: R I R^T).
MassProperties combine(const MassProperties& body, const MassProperties& part, const Eigen::Vector3d& pos,
                       const Eigen::Quaterniond& rot);

}  // namespace weft::engine
