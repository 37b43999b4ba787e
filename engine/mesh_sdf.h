// engine/mesh_sdf.h: triangle meshes of static collision shapes and their signed distance fields.
//
//   Mesh mesh{vertices, indices};                        // Warp's wp.sim.Mesh(vertices, indices)
//   MeshDistance exact(mesh);                            // exact queries (float64)
//   double d = exact.signed_distance({0.1, 0.2, 0.3});
//   SdfGrid g = build_sdf_grid(mesh, 64, 0.05);          // sampled for the contact kernels
//
// The contact kernels (kernels/geometry.py, mesh_sdf) interpolate a grid of signed distances
// trilinearly instead of searching the triangles, so a contact costs eight reads whatever the
// mesh, and the distance and the normal are continuous functions of the position that the Tape
// can differentiate. The grid is built once, on the host, by finalize():
//
//    margin                                 cubic cells, `resolution` of them along the
//   <------>+--+--+--+--+--+--+--+          longest side of the padded box; a node holds
//           |  |  |/\|  |  |  |  |          the exact distance to the nearest triangle
//           +--+--/--\--+--+--+--+          (closest point on a triangle, Ericson, Real-Time
//           |  | /|  |\ |  |  |  |          Collision Detection 5.1.5, through an AABB tree),
//           +--+/-+--+-\+--+--+--+          signed by the angle-weighted pseudo-normal of the
//           |  /__|__|__\  |  |  |          nearest feature (face, edge or vertex; Baerentzen
//           +--+--+--+--+--+--+--+          and Aanaes 2005): negative inside.
//
// The sign is exact for a closed mesh whose triangles are wound counter-clockwise seen from outside
// (the OBJ convention). For an open mesh (a terrain, a single quad) it says on which side of the
// nearest triangle a point lies: "inside" is behind the triangles' front faces.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <vector>

namespace weft::engine {

struct Mesh {
    std::vector<Eigen::Vector3f> vertices;  // m, in the shape's frame (before the shape's scale)
    std::vector<int> indices;               // 3 per triangle, counter-clockwise seen from outside
};

// A regular grid of signed distances. Node (i, j, k) lies at origin + cell (i, j, k) and is stored
// at values[(k dim[1] + j) dim[0] + i].
struct SdfGrid {
    Eigen::Vector3d origin = Eigen::Vector3d::Zero();  // m, node (0, 0, 0) in the shape frame
    double cell = 0.0;                                 // m, node spacing (the same along every axis)
    std::array<int, 3> dim{0, 0, 0};                   // nodes along x, y, z (each >= 2)
    std::vector<float> values;                         // m, signed distance of each node
    std::vector<Eigen::Vector3f> gradients;            // of each node: central differences of the values
                                                       //   (one-sided on the grid's faces), not normalised

    size_t index(int i, int j, int k) const { return size_t((k * dim[1] + j) * dim[0] + i); }
    float at(int i, int j, int k) const { return values[index(i, j, k)]; }
};

// Exact signed distances to a mesh in float64 (the mesh's vertices converted to double, scaled
// by `scale`). Triangles of zero area are left out; the mesh must have at least one other
// (ModelBuilder::add_shape_mesh checks).
class MeshDistance {
public:
    explicit MeshDistance(const Mesh& mesh, const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

    // Signed distance from p to the mesh (negative inside). `hint` (in/out, optional): a triangle
    // to start from, for example the previous query's; it only makes the search faster.
    double signed_distance(const Eigen::Vector3d& p, int* hint = nullptr) const;
    Eigen::AlignedBox3d bounds() const { return bounds_; }
    int triangle_count() const { return int(tris_.size()); }

private:
    struct Node {
        Eigen::AlignedBox3d box;
        int left = -1, right = -1;  // children (both -1 for a leaf)
        int first = 0, count = 0;   // a leaf's triangles: order_[first .. first + count - 1]
    };
    int build(int first, int count);
    // squared distance from p to triangle t, its closest point and the pseudo-normal of the
    // closest feature
    double closest(int t, const Eigen::Vector3d& p, Eigen::Vector3d& point, Eigen::Vector3d& normal) const;

    std::vector<Eigen::Vector3d> x_;                           // vertices
    std::vector<std::array<int, 3>> tris_;                     // triangles of nonzero area
    std::vector<Eigen::Vector3d> face_normal_;                 // unit, per triangle
    std::vector<std::array<Eigen::Vector3d, 3>> edge_normal_;  // per triangle edge ab, bc, ca: sum of the faces' normals
    std::vector<Eigen::Vector3d> vertex_normal_;               // angle-weighted sum of the faces' normals
    std::vector<int> order_;                                   // triangle indices, grouped by leaf
    std::vector<Node> nodes_;                                  // nodes_[0] is the root
    Eigen::AlignedBox3d bounds_;
};

// The grid of signed distances around `mesh` (scaled by `scale`): the mesh's bounds grown by
// `margin` (m, >= 0) on every side, `resolution` cells along the longest side (>= 2). The kernels
// interpolate the values and, for the contact normal, the node gradients: an interpolated
// gradient field is continuous, where the gradient of the interpolated values jumps at every cell
// face (a force that jumps as a particle crosses a face is one the Tape's derivative cannot see).
SdfGrid build_sdf_grid(const Mesh& mesh, int resolution, double margin, const Eigen::Vector3d& scale = Eigen::Vector3d::Ones());

}  // namespace weft::engine
