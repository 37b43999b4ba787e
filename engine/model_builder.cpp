// engine/model_builder.cpp: host-side construction of a Model (rest shapes in double precision),
// and finalize(), which lays out the force slots and uploads every array to the device.
#include "engine/model_builder.h"

#include "engine/build_checks.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace weft::engine {

namespace {

using Vec3d = Eigen::Vector3d;

// The dihedral angle of kernels/bending.py (atan2 form), in double precision.
double dihedral_angle(const Vec3d& x1, const Vec3d& x2, const Vec3d& x3, const Vec3d& x4) {
    Vec3d n1 = (x3 - x1).cross(x4 - x1);
    Vec3d n2 = (x4 - x2).cross(x3 - x2);
    Vec3d e = (x4 - x3).normalized();
    return std::atan2(n2.cross(n1).dot(e), n1.dot(n2));
}

}  // namespace

using build_checks::num;
using build_checks::require_finite;
using build_checks::require_nonnegative;

ModelBuilder::ModelBuilder(float g, Vec3 up_vector) : gravity(up_vector.normalized() * g) {}

void ModelBuilder::check_particle(const char* what, int i) const {
    if (i < 0 || i >= particle_count())
        throw BuildError(std::string(what) + ": particle index " + std::to_string(i) + " is out of range (the model has " +
                         std::to_string(particle_count()) + " particles)");
}

int ModelBuilder::add_particle(const Vec3& pos, const Vec3& vel, float mass, float radius, uint32_t flags) {
    require_finite("add_particle", "pos", pos);
    require_finite("add_particle", "vel", vel);
    require_finite("add_particle", "mass", mass);
    if (!(mass >= 0.0f)) throw BuildError("add_particle: mass must be >= 0, got " + num(mass));
    require_finite("add_particle", "radius", radius);
    if (radius < 0.0f) radius = default_particle_radius;
    particle_q.push_back(pos);
    particle_qd.push_back(vel);
    particle_mass.push_back(mass);
    particle_radius.push_back(radius);
    particle_flags.push_back(flags);
    return particle_count() - 1;
}

int ModelBuilder::add_spring(int i, int j, float ke, float kd, float rest_length) {
    check_particle("add_spring", i);
    check_particle("add_spring", j);
    if (i == j) throw BuildError("add_spring: both ends are particle " + std::to_string(i));
    require_nonnegative("add_spring", "ke", ke);
    require_nonnegative("add_spring", "kd", kd);
    require_finite("add_spring", "rest_length", rest_length);
    spring_indices.push_back(i);
    spring_indices.push_back(j);
    spring_rest_length.push_back(rest_length >= 0.0f ? rest_length : (particle_q[i] - particle_q[j]).norm());
    spring_stiffness.push_back(ke);
    spring_damping.push_back(kd);
    return int(spring_rest_length.size()) - 1;
}

float ModelBuilder::add_triangle(int i, int j, int k, float ke, float ka, float kd, float drag, float lift) {
    for (int p : {i, j, k}) check_particle("add_triangle", p);
    for (auto [name, v] :
         {std::pair<const char*, float>{"tri_ke", ke}, {"tri_ka", ka}, {"tri_kd", kd}, {"tri_drag", drag}, {"tri_lift", lift}})
        require_finite("add_triangle", name, v);
    Vec3d p = particle_q[i].cast<double>(), q = particle_q[j].cast<double>(), r = particle_q[k].cast<double>();
    Vec3d qp = q - p, rp = r - p;
    Vec3d n = qp.cross(rp);
    if (n.norm() < 1e-12)
        throw BuildError("add_triangle: triangle (" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) +
                         ") is degenerate (zero area)");
    n.normalize();
    Vec3d e1 = qp.normalized(), e2 = n.cross(e1).normalized();
    Eigen::Matrix2d D;  // rest shape in the triangle's own frame: columns are the edges
    D << e1.dot(qp), e1.dot(rp), e2.dot(qp), e2.dot(rp);
    double area = D.determinant() / 2.0;
    tri_indices.push_back({i, j, k});
    tri_poses.push_back(D.inverse().cast<float>());
    tri_materials.push_back(
        {ke < 0 ? default_tri_ke : ke, ka < 0 ? default_tri_ka : ka, kd < 0 ? default_tri_kd : kd, drag, lift});
    tri_areas.push_back(float(area));
    return float(area);
}

int ModelBuilder::add_edge(int i, int j, int k, int l, float rest, float ke, float kd) {
    for (int p : {i, j, k, l}) check_particle("add_edge", p);
    require_finite("add_edge", "edge_ke", ke);
    require_finite("add_edge", "edge_kd", kd);
    if (std::isinf(rest)) throw BuildError("add_edge: rest must be a finite angle (or NaN: the current one), got " + num(rest));
    if (std::isnan(rest))
        rest = float(dihedral_angle(particle_q[i].cast<double>(), particle_q[j].cast<double>(), particle_q[k].cast<double>(),
                                    particle_q[l].cast<double>()));
    edge_indices.push_back({i, j, k, l});
    edge_rest_angle.push_back(rest);
    edge_bending_properties.push_back({ke < 0 ? default_edge_ke : ke, kd < 0 ? default_edge_kd : kd});
    return int(edge_rest_angle.size()) - 1;
}

float ModelBuilder::add_tetrahedron(int i, int j, int k, int l, float k_mu, float k_lambda, float k_damp) {
    for (int p : {i, j, k, l}) check_particle("add_tetrahedron", p);
    require_finite("add_tetrahedron", "k_mu", k_mu);
    require_finite("add_tetrahedron", "k_lambda", k_lambda);
    require_finite("add_tetrahedron", "k_damp", k_damp);
    if (!(k_lambda > 0.0f)) throw BuildError("add_tetrahedron: k_lambda must be > 0, got " + num(k_lambda));
    auto shape = [&](int a, int b, int c, int d) {
        Eigen::Matrix3d Dm;
        Vec3d x0 = particle_q[a].cast<double>();
        Dm.col(0) = particle_q[b].cast<double>() - x0;
        Dm.col(1) = particle_q[c].cast<double>() - x0;
        Dm.col(2) = particle_q[d].cast<double>() - x0;
        return Dm;
    };
    Eigen::Matrix3d Dm = shape(i, j, k, l);
    double volume = Dm.determinant() / 6.0;
    if (std::abs(volume) < kMinTetVolume)
        throw BuildError("add_tetrahedron: tetrahedron (" + std::to_string(i) + ", " + std::to_string(j) + ", " +
                         std::to_string(k) + ", " + std::to_string(l) + ") is degenerate (zero volume)");
    if (volume < 0) {  // inverted: swap two vertices so that the rest volume is positive
        std::swap(j, k);
        Dm = shape(i, j, k, l);
        volume = -volume;
    }
    tet_indices.push_back({i, j, k, l});
    tet_poses.push_back(Dm.inverse().cast<float>());
    tet_materials.push_back({k_mu, k_lambda, k_damp});
    return float(volume);
}

void ModelBuilder::add_cloth_grid(const ClothGridDef& d) {
    if (d.dim_x < 1 || d.dim_y < 1) throw BuildError("add_cloth_grid: dim_x and dim_y must be >= 1");
    int start = particle_count();
    size_t start_tri = tri_indices.size();
    // Room for the new particles and triangles at once (growing a million-element vector one
    // element at a time copied and faulted in its memory again and again).
    const size_t new_particles = particle_q.size() + size_t(d.dim_x + 1) * size_t(d.dim_y + 1);
    particle_q.reserve(new_particles);
    particle_qd.reserve(new_particles);
    particle_mass.reserve(new_particles);
    particle_radius.reserve(new_particles);
    particle_flags.reserve(new_particles);
    const size_t new_tris = 2 * size_t(d.dim_x) * size_t(d.dim_y);
    tri_indices.reserve(tri_indices.size() + new_tris);
    tri_poses.reserve(tri_poses.size() + new_tris);
    tri_materials.reserve(tri_materials.size() + new_tris);
    tri_areas.reserve(tri_areas.size() + new_tris);
    auto index = [&](int x, int y) { return start + y * (d.dim_x + 1) + x; };
    for (int y = 0; y <= d.dim_y; ++y) {
        for (int x = 0; x <= d.dim_x; ++x) {
            Vec3 g(x * d.cell_x, y * d.cell_y, 0.0f);
            float m = d.mass;
            if ((x == 0 && d.fix_left) || (x == d.dim_x && d.fix_right) || (y == 0 && d.fix_bottom) ||
                (y == d.dim_y && d.fix_top))
                m = 0.0f;
            add_particle(d.rot * g + d.pos, d.vel, m, d.particle_radius);
            if (x > 0 && y > 0) {
                std::array<int, 3> t1, t2;
                if (d.reverse_winding) {
                    t1 = {index(x - 1, y - 1), index(x, y - 1), index(x, y)};
                    t2 = {index(x - 1, y - 1), index(x, y), index(x - 1, y)};
                } else {
                    t1 = {index(x - 1, y - 1), index(x, y - 1), index(x - 1, y)};
                    t2 = {index(x, y - 1), index(x, y), index(x - 1, y)};
                }
                add_triangle(t1[0], t1[1], t1[2], d.tri_ke, d.tri_ka, d.tri_kd, d.tri_drag, d.tri_lift);
                add_triangle(t2[0], t2[1], t2[2], d.tri_ke, d.tri_ka, d.tri_kd, d.tri_drag, d.tri_lift);
            }
        }
    }
    // Edge adjacency of the new triangles: interior edges get a bending element (o0, o1, v0, v1), in
    // the order of their (lower, higher) vertex pair. An edge's first triangle (in triangle order)
    // gives v0, v1 and o0, its last other one o1. One sorted vector of the triangles' edges rather
    // than a map: a 1023 x 1023 cloth has 3 M edges, and a node each was most of its build time.
    struct HalfEdge {
        int lo, hi, v0, v1, o;
    };
    std::vector<HalfEdge> half;
    half.reserve(3 * (tri_indices.size() - start_tri));
    for (size_t t = start_tri; t < tri_indices.size(); ++t) {
        const auto& tri = tri_indices[t];
        for (int e = 0; e < 3; ++e) {
            const int a = tri[e], b = tri[(e + 1) % 3];
            half.push_back({std::min(a, b), std::max(a, b), a, b, tri[(e + 2) % 3]});
        }
    }
    std::stable_sort(half.begin(), half.end(),
                     [](const HalfEdge& x, const HalfEdge& y) { return x.lo < y.lo || (x.lo == y.lo && x.hi < y.hi); });
    struct EdgeInfo {
        int v0, v1, o0 = -1, o1 = -1;
    };
    std::vector<EdgeInfo> edges;
    edges.reserve(half.size() / 2 + d.dim_x + d.dim_y + 2);
    for (size_t k = 0; k < half.size(); ++k) {
        if (k > 0 && half[k].lo == half[k - 1].lo && half[k].hi == half[k - 1].hi)
            edges.back().o1 = half[k].o;
        else
            edges.push_back({half[k].v0, half[k].v1, half[k].o, -1});
    }
    std::vector<std::pair<int, int>> springs;
    auto spring = [&](int a, int b) { springs.push_back({std::min(a, b), std::max(a, b)}); };
    for (const EdgeInfo& e : edges) {
        if (e.o1 >= 0) add_edge(e.o0, e.o1, e.v0, e.v1, NAN, d.edge_ke, d.edge_kd);
        if (d.add_springs) {
            spring(e.v0, e.v1);
            if (e.o0 >= 0) {
                spring(e.o0, e.v0);
                spring(e.o0, e.v1);
            }
            if (e.o1 >= 0) {
                spring(e.o1, e.v0);
                spring(e.o1, e.v1);
            }
            if (e.o0 >= 0 && e.o1 >= 0) spring(e.o0, e.o1);
        }
    }
    std::sort(springs.begin(), springs.end());
    springs.erase(std::unique(springs.begin(), springs.end()), springs.end());
    for (auto [a, b] : springs) add_spring(a, b, d.spring_ke, d.spring_kd);
}

void ModelBuilder::add_soft_grid(const SoftGridDef& d) {
    if (d.dim_x < 1 || d.dim_y < 1 || d.dim_z < 1) throw BuildError("add_soft_grid: dim_x, dim_y and dim_z must be >= 1");
    // The smallest of a cell's five tetrahedra is a corner one, a sixth of the cell: checked here,
    // before any particle is added, so the error names the cell size rather than particle indices.
    const double corner = double(d.cell_x) * d.cell_y * d.cell_z / 6.0;
    if (!(std::abs(corner) >= kMinTetVolume))
        throw BuildError("add_soft_grid: cells of " + num(d.cell_x) + " x " + num(d.cell_y) + " x " + num(d.cell_z) +
                         " m are too small: their tetrahedra have a volume of " + num(corner) + " m^3, below the " +
                         num(kMinTetVolume) + " m^3 taken as degenerate");
    int start = particle_count();
    float mass = d.cell_x * d.cell_y * d.cell_z * d.density;
    for (int z = 0; z <= d.dim_z; ++z)
        for (int y = 0; y <= d.dim_y; ++y)
            for (int x = 0; x <= d.dim_x; ++x) {
                float m = mass;
                if ((d.fix_left && x == 0) || (d.fix_right && x == d.dim_x) || (d.fix_top && y == d.dim_y) ||
                    (d.fix_bottom && y == 0))
                    m = 0.0f;
                add_particle(d.rot * Vec3(x * d.cell_x, y * d.cell_y, z * d.cell_z) + d.pos, d.vel, m, d.particle_radius);
            }
    auto gi = [&](int x, int y, int z) { return start + (d.dim_x + 1) * (d.dim_y + 1) * z + (d.dim_x + 1) * y + x; };
    auto tet = [&](int a, int b, int c, int e) { add_tetrahedron(a, b, c, e, d.k_mu, d.k_lambda, d.k_damp); };
    for (int z = 0; z < d.dim_z; ++z)
        for (int y = 0; y < d.dim_y; ++y)
            for (int x = 0; x < d.dim_x; ++x) {
                int v0 = gi(x, y, z), v1 = gi(x + 1, y, z), v2 = gi(x + 1, y, z + 1), v3 = gi(x, y, z + 1);
                int v4 = gi(x, y + 1, z), v5 = gi(x + 1, y + 1, z), v6 = gi(x + 1, y + 1, z + 1), v7 = gi(x, y + 1, z + 1);
                if (((x & 1) ^ (y & 1) ^ (z & 1)) != 0) {
                    tet(v0, v1, v4, v3);
                    tet(v2, v3, v6, v1);
                    tet(v5, v4, v1, v6);
                    tet(v7, v6, v3, v4);
                    tet(v4, v1, v6, v3);
                } else {
                    tet(v1, v2, v5, v0);
                    tet(v3, v0, v7, v2);
                    tet(v4, v7, v0, v5);
                    tet(v6, v5, v2, v7);
                    tet(v5, v2, v7, v0);
                }
            }
}

void ModelBuilder::add_spring_grid(const SpringGridDef& d) {
    if (d.dim_x < 2 || d.dim_z < 2) throw BuildError("add_spring_grid: dim_x and dim_z must be >= 2");
    int start = particle_count();
    auto index = [&](int x, int z) { return start + z * d.dim_x + x; };
    for (int z = 0; z < d.dim_z; ++z)
        for (int x = 0; x < d.dim_x; ++x) {
            bool fixed = d.fix_corners && z == 0 && (x == 0 || x == d.dim_x - 1);
            add_particle(d.pos + Vec3(float(x) * d.spacing, 0.0f, float(z) * d.spacing), Vec3::Zero(), fixed ? 0.0f : d.mass,
                         d.particle_radius);
        }
    for (int z = 0; z < d.dim_z; ++z)
        for (int x = 0; x < d.dim_x; ++x) {
            if (x + 1 < d.dim_x) add_spring(index(x, z), index(x + 1, z), d.ke, d.kd);  // structural
            if (z + 1 < d.dim_z) add_spring(index(x, z), index(x, z + 1), d.ke, d.kd);
            if (x + 2 < d.dim_x) add_spring(index(x, z), index(x + 2, z), d.ke, d.kd);  // bending
            if (z + 2 < d.dim_z) add_spring(index(x, z), index(x, z + 2), d.ke, d.kd);
            if (x + 1 < d.dim_x && z + 1 < d.dim_z) {  // shear
                add_spring(index(x, z), index(x + 1, z + 1), d.ke, d.kd);
                add_spring(index(x + 1, z), index(x, z + 1), d.ke, d.kd);
            }
        }
}

int ModelBuilder::add_shape(int type, const Vec3& pos, const Quat& rot, const Vec3& scale, float thickness) {
    Quat q = rot.normalized();
    shape_transform.push_back({pos.x(), pos.y(), pos.z(), q.x(), q.y(), q.z(), q.w()});
    shape_geo_type.push_back(type);
    shape_body.push_back(-1);
    shape_material.push_back(
        {default_shape_ke, default_shape_kd, default_shape_kf, default_shape_ka, default_shape_mu, default_shape_restitution});
    shape_material_share.push_back(0.0f);  // static shapes of scenes: particles touch them with soft_contact_*
    shape_geo_scale.push_back(scale);
    shape_geo_thickness.push_back(thickness);
    shape_geo_src.emplace_back();
    shape_sdf_resolution.push_back(0);
    shape_sdf_margin.push_back(0.0f);
    return int(shape_geo_type.size()) - 1;
}

int ModelBuilder::add_shape_sphere(const Vec3& pos, float radius, const Quat& rot, float thickness) {
    if (!(radius > 0)) throw BuildError("add_shape_sphere: radius must be > 0, got " + num(radius));
    return add_shape(GEO_SPHERE, pos, rot, Vec3(radius, 0, 0), thickness);
}

int ModelBuilder::add_shape_box(const Vec3& pos, float hx, float hy, float hz, const Quat& rot, float thickness) {
    if (!(hx > 0 && hy > 0 && hz > 0)) throw BuildError("add_shape_box: half extents must be > 0");
    return add_shape(GEO_BOX, pos, rot, Vec3(hx, hy, hz), thickness);
}

int ModelBuilder::add_shape_capsule(const Vec3& pos, float radius, float half_height, const Quat& rot, float thickness) {
    if (!(radius > 0 && half_height >= 0)) throw BuildError("add_shape_capsule: radius must be > 0 and half_height >= 0");
    return add_shape(GEO_CAPSULE, pos, rot, Vec3(radius, half_height, 0), thickness);
}

int ModelBuilder::add_shape_cylinder(const Vec3& pos, float radius, float half_height, const Quat& rot, float thickness) {
    if (!(radius > 0 && half_height > 0)) throw BuildError("add_shape_cylinder: radius and half_height must be > 0");
    return add_shape(GEO_CYLINDER, pos, rot, Vec3(radius, half_height, 0), thickness);
}

int ModelBuilder::add_shape_cone(const Vec3& pos, float radius, float half_height, const Quat& rot, float thickness) {
    if (!(radius > 0 && half_height > 0)) throw BuildError("add_shape_cone: radius and half_height must be > 0");
    return add_shape(GEO_CONE, pos, rot, Vec3(radius, half_height, 0), thickness);
}

int ModelBuilder::add_shape_plane(const Eigen::Vector4f& plane, float thickness) {
    Vec3 n = plane.head<3>();
    if (n.norm() < 1e-6f) throw BuildError("add_shape_plane: the normal is zero");
    n.normalize();
    // The shape frame: local +y along n, origin on the plane.
    Quat q = Quat::FromTwoVectors(Vec3(0, 1, 0), n);
    return add_shape(GEO_PLANE, -n * (plane[3] / plane.head<3>().norm()), q, Vec3::Zero(), thickness);
}

void ModelBuilder::check_mesh(const char* call, const Mesh& mesh, const Vec3& scale, int sdf_resolution) {
    const std::string what = std::string(call) + ": ";
    const int nv = int(mesh.vertices.size());
    if (mesh.indices.empty()) throw BuildError(what + "the mesh has no triangles");
    if (mesh.indices.size() % 3 != 0)
        throw BuildError(what + "the mesh has " + std::to_string(mesh.indices.size()) + " indices, not a multiple of 3");
    for (size_t k = 0; k < mesh.indices.size(); ++k)
        if (mesh.indices[k] < 0 || mesh.indices[k] >= nv)
            throw BuildError(what + "index " + std::to_string(mesh.indices[k]) + " (triangle " + std::to_string(k / 3) +
                             ") is out of range (the mesh has " + std::to_string(nv) + " vertices)");
    for (int v = 0; v < nv; ++v)
        if (!mesh.vertices[size_t(v)].allFinite()) throw BuildError(what + "vertex " + std::to_string(v) + " is not finite");
    if (!(scale.x() > 0 && scale.y() > 0 && scale.z() > 0 && scale.allFinite()))
        throw BuildError(what + "scale must be > 0 on every axis, got (" + num(scale.x()) + ", " + num(scale.y()) + ", " +
                         num(scale.z()) + ")");
    if (sdf_resolution < 4 || sdf_resolution > 512)
        throw BuildError(what + "sdf_resolution must be from 4 to 512, got " + std::to_string(sdf_resolution));
    if (MeshDistance(mesh, scale.cast<double>()).triangle_count() == 0)
        throw BuildError(what + "every triangle of the mesh has zero area");
}

int ModelBuilder::add_shape_mesh(const Vec3& pos, const Mesh& mesh, const Quat& rot, const Vec3& scale, float thickness,
                                 int sdf_resolution, float sdf_margin) {
    check_mesh("add_shape_mesh", mesh, scale, sdf_resolution);
    if (!(thickness >= 0)) throw BuildError("add_shape_mesh: thickness must be >= 0, got " + num(thickness));
    int s = add_shape(GEO_MESH, pos, rot, scale, thickness);
    shape_geo_src.back() = mesh;
    shape_sdf_resolution.back() = sdf_resolution;
    shape_sdf_margin.back() = sdf_margin;
    return s;
}

int ModelBuilder::add_shape_mesh(int body, const Vec3& pos, const Quat& rot, const Mesh& mesh, const Vec3& scale,
                                 const ShapeParams& p, int sdf_resolution, float sdf_margin) {
    check_mesh("add_shape_mesh", mesh, scale, sdf_resolution);
    int s = add_body_shape("add_shape_mesh", body, GEO_MESH, pos, rot, scale, p, &mesh);
    shape_geo_src.back() = mesh;
    shape_sdf_resolution.back() = sdf_resolution;
    shape_sdf_margin.back() = sdf_margin;
    return s;
}

int ModelBuilder::add_body(const Vec3& pos, const Quat& rot, const Vec3& com, const Eigen::Matrix3f& I_m, float m, float armature,
                           const std::string& name) {
    const char* c = "add_body";
    require_finite(c, "pos", pos);
    require_finite(c, "com", com);
    if (!rot.coeffs().allFinite() || rot.norm() < 1e-6f) throw BuildError("add_body: rot must be a finite, nonzero quaternion");
    if (!I_m.allFinite()) throw BuildError("add_body: I_m must be finite");
    if (!I_m.isApprox(I_m.transpose(), 1e-5f)) throw BuildError("add_body: I_m must be symmetric");
    require_nonnegative(c, "m", m);
    require_nonnegative(c, "armature", armature);
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(I_m.cast<double>());
    if (eig.eigenvalues().minCoeff() < -1e-9 * std::max(1.0, eig.eigenvalues().cwiseAbs().maxCoeff()))
        throw BuildError("add_body: I_m must be positive semi-definite, its smallest eigenvalue is " +
                         num(eig.eigenvalues().minCoeff()));
    Quat q = rot.normalized();
    body_q.push_back({pos.x(), pos.y(), pos.z(), q.x(), q.y(), q.z(), q.w()});
    body_qd.push_back({0, 0, 0, 0, 0, 0});
    MassProperties mp;
    mp.mass = m;
    mp.com = com.cast<double>();
    mp.inertia = I_m.cast<double>();
    body_mass.push_back(mp);
    body_armature.push_back(armature);
    body_name.push_back(name.empty() ? "body " + std::to_string(body_q.size() - 1) : name);
    return int(body_q.size()) - 1;
}

void ModelBuilder::set_body_velocity(int body, const Vec3& angular, const Vec3& linear) {
    if (body < 0 || body >= body_count())
        throw BuildError("set_body_velocity: body index " + std::to_string(body) + " is out of range (the model has " +
                         std::to_string(body_count()) + " bodies)");
    require_finite("set_body_velocity", "angular", angular);
    require_finite("set_body_velocity", "linear", linear);
    body_qd[size_t(body)] = {angular.x(), angular.y(), angular.z(), linear.x(), linear.y(), linear.z()};
}

void ModelBuilder::set_shape_collision(int shape, int group, bool ground, bool shapes) {
    const int ns = int(shape_geo_type.size());
    if (shape < 0 || shape >= ns)
        throw BuildError("set_shape_collision: shape index " + std::to_string(shape) + " is out of range (the model has " +
                         std::to_string(ns) + " shapes)");
    if (group < -1) throw BuildError("set_shape_collision: collision_group must be >= -1, got " + std::to_string(group));
    if (shape_collision_group.size() < size_t(ns)) shape_collision_group.resize(size_t(ns), -1);
    if (shape_collision_flags.size() < size_t(ns)) shape_collision_flags.resize(size_t(ns), 3);
    shape_collision_group[size_t(shape)] = group;
    shape_collision_flags[size_t(shape)] = (ground ? 1 : 0) | (shapes ? 2 : 0);
}

void ModelBuilder::add_shape_collision_filter_pair(int a, int b) {
    const int ns = int(shape_geo_type.size());
    for (int s : {a, b})
        if (s < 0 || s >= ns)
            throw BuildError("add_shape_collision_filter_pair: shape index " + std::to_string(s) +
                             " is out of range (the model has " + std::to_string(ns) + " shapes)");
    if (a == b)
        throw BuildError("add_shape_collision_filter_pair: a shape cannot be filtered against itself (" + std::to_string(a) +
                         ")");
    shape_collision_filter_pairs.insert({std::min(a, b), std::max(a, b)});
}

int ModelBuilder::add_body_shape(const char* call, int body, int type, const Vec3& pos, const Quat& rot, const Vec3& scale,
                                 const ShapeParams& p, const Mesh* mesh) {
    if (body < -1 || body >= body_count())
        throw BuildError(std::string(call) + ": body " + std::to_string(body) + " is out of range (the model has " +
                         std::to_string(body_count()) + " bodies; -1 is static)");
    require_finite(call, "pos", pos);
    if (!rot.coeffs().allFinite() || rot.norm() < 1e-6f)
        throw BuildError(std::string(call) + ": rot must be a finite, nonzero quaternion");
    auto pick = [&](const char* name, float v, float dflt) {
        float x = std::isnan(v) ? dflt : v;
        require_nonnegative(call, name, x);
        return x;
    };
    const float density = pick("density", p.density, default_shape_density);
    const std::array<float, 6> mat = {
        pick("ke", p.ke, default_shape_ke), pick("kd", p.kd, default_shape_kd),
        pick("kf", p.kf, default_shape_kf), pick("ka", p.ka, default_shape_ka),
        pick("mu", p.mu, default_shape_mu), pick("restitution", p.restitution, default_shape_restitution)};
    const float thickness = pick("thickness", p.thickness, default_shape_thickness);
    // The shape's mass first: a mesh that bounds no solid is refused before anything is added.
    MassProperties part;
    if (body >= 0 && density > 0.0f) {
        try {
            part = mesh ? mesh_mass_properties(*mesh, scale.cast<double>(), density)
                        : shape_mass_properties(type, scale.cast<double>(), density);
        } catch (const std::invalid_argument& e) {
            throw BuildError(std::string(call) + ": " + e.what() + " (pass density=0 and give the body its mass with add_body)");
        }
    }
    int s = add_shape(type, pos, rot, scale, thickness);
    shape_body.back() = body;
    shape_material.back() = mat;
    shape_material_share.back() = 0.5f;  // Warp: particle contact averages the shape's material with soft_contact_*
    if (body >= 0 && density > 0.0f) {
        MassProperties& b = body_mass[size_t(body)];
        b = combine(b, part, pos.cast<double>(), rot.cast<double>().normalized());
    }
    return s;
}

int ModelBuilder::add_shape_sphere(int body, const Vec3& pos, const Quat& rot, float radius, const ShapeParams& p) {
    require_finite("add_shape_sphere", "radius", radius);
    if (!(radius > 0)) throw BuildError("add_shape_sphere: radius must be > 0, got " + num(radius));
    return add_body_shape("add_shape_sphere", body, GEO_SPHERE, pos, rot, Vec3(radius, 0, 0), p);
}

int ModelBuilder::add_shape_box(int body, const Vec3& pos, const Quat& rot, float hx, float hy, float hz, const ShapeParams& p) {
    for (float h : {hx, hy, hz}) require_finite("add_shape_box", "half extent", h);
    if (!(hx > 0 && hy > 0 && hz > 0))
        throw BuildError("add_shape_box: half extents must be > 0, got (" + num(hx) + ", " + num(hy) + ", " + num(hz) + ")");
    return add_body_shape("add_shape_box", body, GEO_BOX, pos, rot, Vec3(hx, hy, hz), p);
}

int ModelBuilder::add_shape_capsule(int body, const Vec3& pos, const Quat& rot, float radius, float half_height,
                                    const ShapeParams& p) {
    require_finite("add_shape_capsule", "radius", radius);
    require_finite("add_shape_capsule", "half_height", half_height);
    if (!(radius > 0 && half_height >= 0))
        throw BuildError("add_shape_capsule: radius must be > 0 and half_height >= 0, got " + num(radius) + " and " +
                         num(half_height));
    return add_body_shape("add_shape_capsule", body, GEO_CAPSULE, pos, rot, Vec3(radius, half_height, 0), p);
}

int ModelBuilder::add_shape_cylinder(int body, const Vec3& pos, const Quat& rot, float radius, float half_height,
                                     const ShapeParams& p) {
    require_finite("add_shape_cylinder", "radius", radius);
    require_finite("add_shape_cylinder", "half_height", half_height);
    if (!(radius > 0 && half_height > 0))
        throw BuildError("add_shape_cylinder: radius and half_height must be > 0, got " + num(radius) + " and " +
                         num(half_height));
    return add_body_shape("add_shape_cylinder", body, GEO_CYLINDER, pos, rot, Vec3(radius, half_height, 0), p);
}

int ModelBuilder::add_shape_cone(int body, const Vec3& pos, const Quat& rot, float radius, float half_height,
                                 const ShapeParams& p) {
    require_finite("add_shape_cone", "radius", radius);
    require_finite("add_shape_cone", "half_height", half_height);
    if (!(radius > 0 && half_height > 0))
        throw BuildError("add_shape_cone: radius and half_height must be > 0, got " + num(radius) + " and " + num(half_height));
    return add_body_shape("add_shape_cone", body, GEO_CONE, pos, rot, Vec3(radius, half_height, 0), p);
}

void ModelBuilder::set_ground_plane(const Vec3& normal, float offset) {
    Vec3 n = normal.normalized();
    ground_plane = {n.x(), n.y(), n.z(), -offset};
}

}  // namespace weft::engine
