// engine/finalize.cpp: ModelBuilder::finalize: the force-slot layout (which slots each particle
// sums, see kernels/particles.py), the hash-grid sizes, the mesh shapes' distance grids, and the
// upload of every array.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "engine/body_inertia.h"
#include "engine/model_builder.h"
#include "engine/topology.h"

namespace weft::engine {

namespace {

using compiler::ScalarKind;

struct Uploader {
    runtime::Device device;
    bool grad;

    template <class T>
    Array operator()(compiler::Type t, std::vector<int64_t> shape, const std::vector<T>& host, bool differentiable) const {
        Array a = Array::empty(t, shape, device, grad && differentiable);
        if (!host.empty()) a.copy_from_host(host.data(), host.size() * sizeof(T));
        return a;
    }
};

template <class T, size_t N>
std::vector<T> flatten(const std::vector<std::array<T, N>>& v) {
    std::vector<T> out;
    out.reserve(v.size() * N);
    for (const auto& a : v) out.insert(out.end(), a.begin(), a.end());
    return out;
}

// The largest reach of a contact point of a body's shape: its radius plus the shape's thickness
// and adhesion distance (kernels/rigid_common.py's shape_point; BOX_ROUNDING = 0.05 there).
double body_point_reach(const ModelBuilder& b) {
    double reach = 0.0;
    for (size_t s = 0; s < b.shape_geo_type.size(); ++s) {
        if (b.shape_body[s] < 0) continue;
        const Eigen::Vector3d g = b.shape_geo_scale[s].cast<double>();
        double r = 0.0;
        switch (b.shape_geo_type[s]) {
            case GEO_SPHERE:
            case GEO_CAPSULE: r = g.x(); break;
            case GEO_BOX: r = 0.05 * g.minCoeff(); break;
            case GEO_CYLINDER:
            case GEO_CONE: r = 0.05 * std::min(g.x(), g.y()); break;
            default: break;  // a mesh's vertices have radius 0
        }
        reach = std::max(reach, r + b.shape_geo_thickness[s] + std::max(0.0f, b.shape_material[s][3]));
    }
    return reach;
}

// Per shape: the radius of a sphere about its origin holding the shape, its contact points with
// their radii, and its thickness (-1 for planes: unbounded), read by the broad phase of body
// contact (kernels/rigid.py may_touch); and the contact points of meshes on bodies, their
// vertices (welded: each position once) with radius 0, in the shape frame and scaled. Every
// other shape's points are computed by kernels/rigid_common.py's shape_point.
std::vector<float> upload_shape_points(const ModelBuilder& b, Model& m, const Uploader& up) {
    std::vector<float> bound, points;
    std::vector<int> start{0};
    for (int s = 0; s < m.shape_count; ++s) {
        const Eigen::Vector3d g = b.shape_geo_scale[size_t(s)].cast<double>();
        const double t = b.shape_geo_thickness[size_t(s)];
        double r = -1.0;
        switch (b.shape_geo_type[size_t(s)]) {
            case GEO_SPHERE: r = g.x() + t; break;
            case GEO_BOX: r = g.norm() + t; break;
            case GEO_CAPSULE: r = g.x() + g.y() + t; break;
            case GEO_CYLINDER:
            case GEO_CONE: r = std::hypot(g.x(), g.y()) + t; break;
            case GEO_MESH: {
                const Mesh& mesh = b.shape_geo_src[size_t(s)];
                const std::vector<int> id = welded_vertices(mesh);
                std::vector<char> used(mesh.vertices.size(), 0);
                for (int v : mesh.indices) used[size_t(id[size_t(v)])] = 1;
                double far = 0.0;
                for (size_t v = 0; v < mesh.vertices.size(); ++v) {
                    if (!used[v]) continue;
                    const Eigen::Vector3d x = mesh.vertices[v].cast<double>().cwiseProduct(g);
                    far = std::max(far, x.norm());
                    if (b.shape_body[size_t(s)] >= 0)
                        points.insert(points.end(), {float(x.x()), float(x.y()), float(x.z()), 0.0f});
                }
                r = far + t;
                break;
            }
            default: break;
        }
        // Rounded up, so that the float bound still holds every point.
        bound.push_back(r < 0 ? -1.0f : std::nextafter(float(r), std::numeric_limits<float>::infinity()));
        start.push_back(int(points.size() / 4));
    }
    m.shape_point_count = start.back();
    if (bound.empty()) bound.push_back(-1.0f);
    if (points.empty()) points.assign(4, 0.0f);
    m.shape_bound = up(compiler::float32_type(), {int64_t(bound.size())}, bound, false);
    m.shape_point_start = up(compiler::int32_type(), {int64_t(start.size())}, start, false);
    m.shape_points = up(vec4_type(), {int64_t(points.size() / 4)}, points, false);
    return bound;
}

// The body broad phase (engine/broad_phase.h, kernels/broad_phase.py): the reach of every shape
// (its bound plus half its adhesion distance), the grid's cell from the body shapes' reaches, the
// shapes too large for it grouped by world, and each shape's position in its world's group. The
// cell is twice the largest reach of a body shape, or of 4x their median reach where one body shape
// is far larger than the rest (a large body then walks every candidate; the grid stays fine for
// the others). Turned on where a body would walk more than broad_phase_min_candidates shapes.
void setup_body_broad_phase(const ModelBuilder& b, Model& m, const Uploader& up, const std::vector<float>& bound,
                            const std::vector<int>& shape_worlds, const std::vector<int>& wstart, const std::vector<int>& wlist) {
    const int ns = m.shape_count, nw = m.num_worlds;
    std::vector<double> reach(size_t(ns), -1.0), body_reach;
    for (int s = 0; s < ns; ++s) {
        if (bound[size_t(s)] < 0.0f) continue;
        reach[size_t(s)] = double(bound[size_t(s)]) + 0.5 * std::abs(double(b.shape_material[size_t(s)][3]));
        if (b.shape_body[size_t(s)] >= 0) body_reach.push_back(reach[size_t(s)]);
    }
    m.body_broad_phase = false;
    m.shape_grid_buckets = 0;
    if (b.body_count() == 0 || body_reach.empty()) return;
    std::sort(body_reach.begin(), body_reach.end());
    const double median = body_reach[body_reach.size() / 2];
    const double largest = std::min(body_reach.back(), 4.0 * median);
    m.shape_grid_cell = std::nextafter(float(2.0 * largest), std::numeric_limits<float>::infinity());
    std::vector<int> large(size_t(std::max(ns, 1)), 0);
    int gridded = 0;
    std::vector<std::vector<int>> large_of(size_t(nw) + 1);
    for (int s = 0; s < ns; ++s) {
        if (reach[size_t(s)] >= 0.0 && reach[size_t(s)] <= largest) {
            ++gridded;
            continue;
        }
        large[size_t(s)] = 1;
        const int w = shape_worlds[size_t(s)];
        large_of[w >= 0 && w < nw ? size_t(w) : size_t(nw)].push_back(s);
    }
    std::vector<int> lstart(size_t(nw) + 2, 0), llist;
    for (int w = 0; w <= nw; ++w) {
        lstart[size_t(w)] = int(llist.size());
        llist.insert(llist.end(), large_of[size_t(w)].begin(), large_of[size_t(w)].end());
    }
    lstart[size_t(nw) + 1] = int(llist.size());
    if (llist.empty()) llist.push_back(0);
    std::vector<int> pos(size_t(std::max(ns, 1)), 0);
    for (int g = 0; g <= nw; ++g)
        for (int k = wstart[size_t(g)]; k < wstart[size_t(g) + 1]; ++k) pos[size_t(wlist[size_t(k)])] = k - wstart[size_t(g)];
    int buckets = 64;
    while (buckets < 2 * gridded && buckets < (1 << 26)) buckets *= 2;
    const compiler::Type i32 = compiler::int32_type();
    m.shape_grid_buckets = buckets;
    m.shape_large = up(i32, {int64_t(large.size())}, large, false);
    m.world_large_start = up(i32, {int64_t(lstart.size())}, lstart, false);
    m.world_large_list = up(i32, {int64_t(llist.size())}, llist, false);
    m.shape_world_pos = up(i32, {int64_t(pos.size())}, pos, false);
    m.body_broad_phase = m.max_shape_candidates > m.broad_phase_min_candidates;
}

// The signed distance grids of the mesh shapes, packed into one array (engine/mesh_sdf.h). The
// margin keeps every contact inside its grid: beyond the grid, kernels/geometry.py returns the
// distance to the grid's box plus the value on it, which the margin makes larger than any
// particle radius plus thickness, and than any body contact point's reach (body_point_reach).
// Equal mesh shapes (the copies of add_builder's worlds) share one grid.
void upload_mesh_sdfs(const ModelBuilder& b, Model& m, const Uploader& up) {
    std::vector<float> sdf, origin, cell;
    std::vector<int> dims;
    const double body_reach = body_point_reach(b);
    struct BuiltGrid {
        const Mesh* mesh;
        Eigen::Vector3d scale;
        int resolution;
        double margin;
        int shape;  // the shape whose grid it is
    };
    std::vector<BuiltGrid> built;
    for (int s = 0; s < m.shape_count; ++s) {
        if (b.shape_geo_type[size_t(s)] != GEO_MESH) {
            dims.insert(dims.end(), {0, 0, 0, 0});
            origin.insert(origin.end(), {0, 0, 0});
            cell.push_back(0.0f);
            continue;
        }
        const Mesh& mesh = b.shape_geo_src[size_t(s)];
        Eigen::Vector3d scale = b.shape_geo_scale[size_t(s)].cast<double>();
        Eigen::AlignedBox3d bounds = MeshDistance(mesh, scale).bounds();
        double margin = b.shape_sdf_margin[size_t(s)] >= 0 ? b.shape_sdf_margin[size_t(s)] : 0.1 * bounds.sizes().maxCoeff();
        margin = std::max(margin, 2.0 * (double(m.particle_max_radius) + b.shape_geo_thickness[size_t(s)]));
        margin = std::max(margin, 1.5 * (body_reach + b.shape_geo_thickness[size_t(s)]));
        // Copies of one mesh shape (add_builder's worlds) share one grid: the first shape with the
        // same mesh, scale, resolution and margin.
        const int res = b.shape_sdf_resolution[size_t(s)];
        auto same = std::find_if(built.begin(), built.end(), [&](const BuiltGrid& k) {
            return k.resolution == res && k.margin == margin && k.scale == scale && k.mesh->indices == mesh.indices &&
                   k.mesh->vertices == mesh.vertices;
        });
        if (same != built.end()) {
            const size_t f = size_t(same->shape);
            dims.insert(dims.end(), {dims[4 * f], dims[4 * f + 1], dims[4 * f + 2], dims[4 * f + 3]});
            origin.insert(origin.end(), {origin[3 * f], origin[3 * f + 1], origin[3 * f + 2]});
            cell.push_back(cell[f]);
            continue;
        }
        built.push_back({&mesh, scale, res, margin, s});
        SdfGrid g = build_sdf_grid(mesh, res, margin, scale);
        dims.insert(dims.end(), {int(sdf.size() / 4), g.dim[0], g.dim[1], g.dim[2]});
        origin.insert(origin.end(), {float(g.origin.x()), float(g.origin.y()), float(g.origin.z())});
        cell.push_back(float(g.cell));
        for (size_t n = 0; n < g.values.size(); ++n)
            sdf.insert(sdf.end(), {g.gradients[n].x(), g.gradients[n].y(), g.gradients[n].z(), g.values[n]});
    }
    m.shape_sdf_size = int(sdf.size() / 4);
    if (sdf.empty()) sdf.assign(4, 0.0f);
    m.shape_sdf_values = up(vec4_type(), {int64_t(sdf.size() / 4)}, sdf, false);
    m.shape_sdf_dims = up(compiler::int32_type(), {m.shape_count, 4}, dims, false);
    m.shape_sdf_origin = up(vec3_type(), {m.shape_count}, origin, false);
    m.shape_sdf_cell = up(compiler::float32_type(), {m.shape_count}, cell, false);
}

// Worlds (add_builder): body shapes of two worlds never touch (kernels/rigid.py), a particle meets
// the static and body shapes of its own world and the shared ones (kernels/contact.py,
// kernels/xpbd.py), and particle-particle contact finds the particles of its own world only
// (kernels/hash_grid.py hashes the world into the bucket). What that cannot serve is refused
// rather than simulated wrongly: particle contact between shared particles (world -1) and those of
// the worlds, which would need every world's buckets.
void check_worlds(const ModelBuilder& b) {
    if (b.num_worlds < 1 || !b.particle_contact) return;
    int shared = 0, in_worlds = 0;
    for (int i = 0; i < b.particle_count(); ++i)
        ++((size_t(i) < b.particle_world.size() ? b.particle_world[size_t(i)] : -1) < 0 ? shared : in_worlds);
    if (shared > 0 && in_worlds > 0)
        throw BuildError("finalize: particle-particle contact between " + std::to_string(shared) +
                         " particles of no world (added to the builder directly) and " + std::to_string(in_worlds) +
                         " particles of its worlds: that contact separates worlds and cannot also span them (turn "
                         "particle_contact off, or add the shared particles as a world of their own)");
}

// Element ids grouped by world (kernels/worlds.py): world w's elements are list[start[w] ..
// start[w+1]-1], the shared ones (world -1) start at start[num_worlds]; each group in index order.
// An empty list holds one 0 (a kernel needs an array).
void group_by_world(const std::vector<int>& world_of, int num_worlds, std::vector<int>& start, std::vector<int>& list) {
    std::vector<std::vector<int>> of_world(size_t(num_worlds) + 1);
    for (size_t e = 0; e < world_of.size(); ++e) {
        const int w = world_of[e];
        of_world[w >= 0 && w < num_worlds ? size_t(w) : size_t(num_worlds)].push_back(int(e));
    }
    start.assign(size_t(num_worlds) + 2, 0);
    list.clear();
    for (int w = 0; w <= num_worlds; ++w) {
        start[size_t(w)] = int(list.size());
        list.insert(list.end(), of_world[size_t(w)].begin(), of_world[size_t(w)].end());
    }
    start[size_t(num_worlds) + 1] = int(list.size());
    if (list.empty()) list = {0};
}

// The rigid bodies: poses, velocities, mass properties (inverses in double precision) and each
// body's shape list.
void upload_bodies(const ModelBuilder& b, Model& m, const Uploader& up) {
    const int nb = b.body_count();
    m.body_count = nb;
    std::vector<float> com, mass, inv_mass, inertia, inv_inertia;
    for (int k = 0; k < nb; ++k) {
        const MassProperties& p = b.body_mass[size_t(k)];
        Eigen::Matrix3d I = p.inertia + Eigen::Matrix3d::Identity() * b.body_armature[size_t(k)];
        Eigen::Matrix3d inv = Eigen::Matrix3d::Zero();
        if (p.mass > 0.0 && I.determinant() > 0.0) inv = I.inverse();
        if (p.mass > 0.0 && !(I.determinant() > 0.0))
            throw BuildError("finalize: " + b.body_name[size_t(k)] + " has mass " + std::to_string(p.mass) +
                             " kg but a singular inertia; give it a shape with a density, I_m or an armature");
        com.insert(com.end(), {float(p.com.x()), float(p.com.y()), float(p.com.z())});
        mass.push_back(float(p.mass));
        inv_mass.push_back(p.mass > 0.0 ? float(1.0 / p.mass) : 0.0f);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                inertia.push_back(float(I(r, c)));
                inv_inertia.push_back(float(inv(r, c)));
            }
    }
    auto f32 = compiler::float32_type();
    auto m33 = compiler::matrix_type(3, 3, ScalarKind::Float32);
    m.body_q = up(transform_type(), {nb}, flatten(b.body_q), true);
    m.body_qd = up(spatial_vector_type(), {nb}, flatten(b.body_qd), true);
    m.body_com = up(vec3_type(), {nb}, com, true);
    m.body_mass = up(f32, {nb}, mass, true);
    m.body_inv_mass = up(f32, {nb}, inv_mass, true);
    m.body_inertia = up(m33, {nb}, inertia, true);
    m.body_inv_inertia = up(m33, {nb}, inv_inertia, true);
    // Each body's shapes in index order: one pass over the shapes (a model of N copies has N times
    // the bodies and the shapes, so a loop over both would be quadratic in N).
    std::vector<std::vector<int>> of_body(static_cast<size_t>(nb));
    for (size_t s = 0; s < b.shape_body.size(); ++s)
        if (b.shape_body[s] >= 0) of_body[size_t(b.shape_body[s])].push_back(int(s));
    std::vector<int> start(size_t(nb) + 1, 0), list;
    for (int k = 0; k < nb; ++k) {
        start[size_t(k)] = int(list.size());
        list.insert(list.end(), of_body[size_t(k)].begin(), of_body[size_t(k)].end());
    }
    start[size_t(nb)] = int(list.size());
    if (list.empty()) list = {0};
    m.body_shape_start = up(compiler::int32_type(), {int64_t(nb) + 1}, start, false);
    m.body_shape_list = up(compiler::int32_type(), {int64_t(list.size())}, list, false);
}

// The joints: their frames, axes, drives and limits, and each body's list of the joints it is the
// parent or the child of (kernels/rigid.py sums those wrenches in the body's own thread).
void upload_joints(const ModelBuilder& b, Model& m, const Uploader& up) {
    const int nj = b.joint_count(), nb = b.body_count();
    m.joint_count = nj;
    for (int j = nj - 1; j >= 0; --j)
        if (b.joint_type[size_t(j)] == JOINT_DISTANCE) m.distance_joint = j;
    auto f32 = compiler::float32_type();
    auto i32 = compiler::int32_type();
    const int64_t n = std::max(nj, 1);  // a kernel parameter needs an array, even of no joints
    // An empty list becomes one element of `width` zeros (a transform's quaternion w = 1).
    auto pad = [&](auto v, size_t width = 1) {
        if (v.empty()) {
            v.resize(width);
            if (width == 7) v[6] = 1;
        }
        return v;
    };
    const int na = b.joint_axis_count();
    const int64_t n_axis = std::max(na, 1);
    m.joint_axis_count = na;
    std::vector<float> axis;
    for (const Vec3& a : b.joint_axis) axis.insert(axis.end(), {a.x(), a.y(), a.z()});
    std::vector<int> axis_start(b.joint_axis_start), axis_dim;
    axis_start.push_back(na);
    for (const auto& d : b.joint_axis_dim) axis_dim.insert(axis_dim.end(), {d[0], d[1]});
    m.joint_type = up(i32, {n}, pad(b.joint_type), false);
    m.joint_parent = up(i32, {n}, pad(b.joint_parent), false);
    m.joint_child = up(i32, {n}, pad(b.joint_child), false);
    m.joint_X_p = up(transform_type(), {n}, pad(flatten(b.joint_X_p), 7), false);
    m.joint_X_c = up(transform_type(), {n}, pad(flatten(b.joint_X_c), 7), false);
    m.joint_axis_start = up(i32, {int64_t(nj) + 1}, axis_start, false);
    m.joint_axis_dim = up(i32, {n, 2}, pad(axis_dim, 2), false);
    m.joint_axis = up(vec3_type(), {n_axis}, axis.empty() ? std::vector<float>(3, 0.0f) : axis, false);
    m.joint_mode = up(i32, {n_axis}, pad(b.joint_mode), false);
    m.joint_act = up(f32, {n_axis}, pad(b.joint_act), true);
    m.joint_target_ke = up(f32, {n_axis}, pad(b.joint_target_ke), true);
    m.joint_target_kd = up(f32, {n_axis}, pad(b.joint_target_kd), true);
    m.joint_limit_lower = up(f32, {n_axis}, pad(b.joint_limit_lower), true);
    m.joint_limit_upper = up(f32, {n_axis}, pad(b.joint_limit_upper), true);
    m.joint_limit_ke = up(f32, {n_axis}, pad(b.joint_limit_ke), true);
    m.joint_limit_kd = up(f32, {n_axis}, pad(b.joint_limit_kd), true);
    m.joint_collision_filter = up(i32, {n}, pad(b.joint_collision_filter), false);
    m.joint_linear_compliance = up(f32, {n}, pad(b.joint_linear_compliance), true);
    m.joint_angular_compliance = up(f32, {n}, pad(b.joint_angular_compliance), true);
    std::vector<std::vector<int>> of_body(static_cast<size_t>(nb));  // in joint order, as a loop over joints
    for (int j = 0; j < nj; ++j) {
        if (b.joint_type[size_t(j)] == JOINT_FREE) continue;
        if (b.joint_parent[size_t(j)] >= 0) of_body[size_t(b.joint_parent[size_t(j)])].push_back(j);
        of_body[size_t(b.joint_child[size_t(j)])].push_back(j);
    }
    std::vector<int> start(size_t(nb) + 1, 0), list;
    for (int k = 0; k < nb; ++k) {
        start[size_t(k)] = int(list.size());
        list.insert(list.end(), of_body[size_t(k)].begin(), of_body[size_t(k)].end());
    }
    start[size_t(nb)] = int(list.size());
    m.body_joint_start = up(i32, {int64_t(nb) + 1}, start, false);
    m.body_joint_list = up(i32, {int64_t(std::max<size_t>(list.size(), 1))}, pad(list), false);
    m.joint_attach_ke = b.joint_attach_ke;
    m.joint_attach_kd = b.joint_attach_kd;

    // Reduced coordinates: eval_fk walks each articulation's joints in order, so a joint's parent
    // body must have been placed by an earlier joint of the same articulation (or be a root).
    std::vector<int> arts = articulation_starts(b);
    std::vector<int> parent_joint(size_t(nb), -1);
    for (int j = 0; j < nj; ++j) parent_joint[size_t(b.joint_child[size_t(j)])] = j;
    for (size_t a = 0; a + 1 < arts.size(); ++a)
        for (int j = arts[a]; j < arts[a + 1]; ++j) {
            const int p = b.joint_parent[size_t(j)];
            const int pj = p >= 0 ? parent_joint[size_t(p)] : -1;
            if (pj >= 0 && (pj > j || pj < arts[a]))
                throw BuildError("finalize: joint '" + b.joint_name[size_t(j)] + "' has parent " + b.body_name[size_t(p)] +
                                 ", whose own joint '" + b.joint_name[size_t(pj)] +
                                 (pj > j ? "' comes later" : "' is in another articulation") +
                                 "; add a tree's joints parent first, in one articulation");
        }
    std::vector<int> qs(size_t(nj) + 1, 0), qds(size_t(nj) + 1, 0);
    for (int j = 0; j < nj; ++j) {
        const auto& d = b.joint_axis_dim[size_t(j)];
        const auto [nq, nqd] = joint_coordinate_counts(b.joint_type[size_t(j)], d[0] + d[1]);
        qs[size_t(j) + 1] = qs[size_t(j)] + nq;
        qds[size_t(j) + 1] = qds[size_t(j)] + nqd;
    }
    if (b.joint_q.size() != size_t(qs.back()) || b.joint_qd.size() != size_t(qds.back()))
        throw BuildError("finalize: joint_q has " + std::to_string(b.joint_q.size()) + " entries and joint_qd " +
                         std::to_string(b.joint_qd.size()) + "; the joints have " + std::to_string(qs.back()) + " and " +
                         std::to_string(qds.back()));
    for (size_t k = 0; k < b.joint_q.size(); ++k)
        if (!std::isfinite(b.joint_q[k])) throw BuildError("finalize: joint_q[" + std::to_string(k) + "] is not finite");
    for (size_t k = 0; k < b.joint_qd.size(); ++k)
        if (!std::isfinite(b.joint_qd[k])) throw BuildError("finalize: joint_qd[" + std::to_string(k) + "] is not finite");
    m.joint_coord_count = qs.back();
    m.joint_dof_count = qds.back();
    m.articulation_count = int(arts.size()) - 1;
    m.joint_q = up(f32, {std::max(qs.back(), 1)}, pad(b.joint_q), true);
    m.joint_qd = up(f32, {std::max(qds.back(), 1)}, pad(b.joint_qd), true);
    m.joint_q_start = up(i32, {int64_t(nj) + 1}, qs, false);
    m.joint_qd_start = up(i32, {int64_t(nj) + 1}, qds, false);
    m.articulation_start = up(i32, {int64_t(arts.size())}, arts, false);

    std::vector<float> armature;
    std::vector<int> dof_joint;
    for (int j = 0; j < nj; ++j)
        for (int k = qds[size_t(j)]; k < qds[size_t(j) + 1]; ++k) {
            armature.push_back(b.joint_armature[size_t(j)]);
            dof_joint.push_back(j);
        }
    std::vector<int> mass_start(arts.size(), 0);
    for (size_t a = 0; a + 1 < arts.size(); ++a) {
        const int dofs = qds[size_t(arts[a + 1])] - qds[size_t(arts[a])];
        mass_start[a + 1] = mass_start[a] + dofs * dofs;
    }
    m.joint_armature = up(f32, {std::max(qds.back(), 1)}, pad(armature), true);
    m.dof_joint = up(i32, {std::max(qds.back(), 1)}, pad(dof_joint), false);
    m.body_parent_joint = up(i32, {std::max(nb, 1)}, nb > 0 ? parent_joint : std::vector<int>{-1}, false);
    m.articulation_mass_start = up(i32, {int64_t(mass_start.size())}, mass_start, false);
    m.articulation_mass_size = mass_start.back();
}

}  // namespace

Model ModelBuilder::finalize(const std::string& device_name, bool requires_grad) const {
    Model m;
    m.device = runtime::parse_device(device_name);
    m.requires_grad = requires_grad;
    Uploader up{m.device, requires_grad};
    const int64_t np = particle_count();
    m.particle_count = int(np);
    m.spring_count = int(spring_rest_length.size());
    m.tri_count = int(tri_indices.size());
    m.edge_count = int(edge_indices.size());
    m.tet_count = int(tet_indices.size());
    m.shape_count = int(shape_geo_type.size());

    auto f32 = compiler::float32_type();
    auto i32 = compiler::int32_type();
    auto v3 = vec3_type();
    auto m22 = compiler::matrix_type(2, 2, ScalarKind::Float32);
    auto m33 = compiler::matrix_type(3, 3, ScalarKind::Float32);

    std::vector<float> q, qd, inv_mass;
    for (const auto& p : particle_q) q.insert(q.end(), {p.x(), p.y(), p.z()});
    for (const auto& v : particle_qd) qd.insert(qd.end(), {v.x(), v.y(), v.z()});
    for (float mass : particle_mass) inv_mass.push_back(mass > 0.0f ? 1.0f / mass : 0.0f);
    m.particle_q = up(v3, {np}, q, true);
    m.particle_qd = up(v3, {np}, qd, true);
    m.particle_mass = up(f32, {np}, particle_mass, true);
    m.particle_inv_mass = up(f32, {np}, inv_mass, true);
    m.particle_radius = up(f32, {np}, particle_radius, true);
    m.particle_flags = up(compiler::uint32_type(), {np}, particle_flags, false);
    m.particle_max_radius = particle_radius.empty() ? 0.0f : *std::max_element(particle_radius.begin(), particle_radius.end());
    m.particle_max_velocity = particle_max_velocity;
    m.particle_drag = particle_drag;

    m.particle_contact = particle_contact && np > 1;
    m.particle_ke = particle_ke;
    m.particle_kd = particle_kd;
    m.particle_kf = particle_kf;
    m.particle_mu = particle_mu;
    if (m.particle_contact) {
        if (!(m.particle_max_radius > 0.0f)) throw BuildError("finalize: particle contact needs particles with a radius > 0");
        m.particle_grid_cell = 2.0f * m.particle_max_radius;
        int buckets = 1024;
        while (buckets < np && buckets < (1 << 26)) buckets *= 2;
        m.particle_grid_buckets = buckets;
    }

    m.spring_indices = up(i32, {int64_t(spring_indices.size())}, spring_indices, false);
    m.spring_rest_length = up(f32, {m.spring_count}, spring_rest_length, true);
    m.spring_stiffness = up(f32, {m.spring_count}, spring_stiffness, true);
    m.spring_damping = up(f32, {m.spring_count}, spring_damping, true);

    std::vector<float> poses2;
    for (const auto& P : tri_poses) poses2.insert(poses2.end(), {P(0, 0), P(0, 1), P(1, 0), P(1, 1)});  // row-major
    m.tri_indices = up(i32, {m.tri_count, 3}, flatten(tri_indices), false);
    m.tri_poses = up(m22, {m.tri_count}, poses2, true);
    m.tri_activations = up(f32, {m.tri_count}, std::vector<float>(size_t(m.tri_count), 0.0f), true);
    m.tri_materials = up(f32, {m.tri_count, 5}, flatten(tri_materials), true);
    m.tri_areas = up(f32, {m.tri_count}, tri_areas, false);

    m.edge_indices = up(i32, {m.edge_count, 4}, flatten(edge_indices), false);
    m.edge_rest_angle = up(f32, {m.edge_count}, edge_rest_angle, true);
    m.edge_bending_properties = up(f32, {m.edge_count, 2}, flatten(edge_bending_properties), true);

    std::vector<float> poses3;
    for (const auto& P : tet_poses)
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) poses3.push_back(P(r, c));
    m.tet_indices = up(i32, {m.tet_count, 4}, flatten(tet_indices), false);
    m.tet_poses = up(m33, {m.tet_count}, poses3, true);
    m.tet_activations = up(f32, {m.tet_count}, std::vector<float>(size_t(m.tet_count), 0.0f), true);
    m.tet_materials = up(f32, {m.tet_count, 3}, flatten(tet_materials), true);
    std::vector<std::array<int32_t, 3>> skin = tet_surface_triangles(tet_indices, q);
    m.tet_surface_count = int(skin.size());
    m.tet_surface_indices = up(i32, {m.tet_surface_count, 3}, flatten(skin), false);

    std::vector<float> scale;
    for (const auto& s : shape_geo_scale) scale.insert(scale.end(), {s.x(), s.y(), s.z()});
    m.shape_transform = up(compiler::transform_type(ScalarKind::Float32), {m.shape_count}, flatten(shape_transform), false);
    m.shape_geo_type = up(i32, {m.shape_count}, shape_geo_type, false);
    m.shape_geo_scale = up(v3, {m.shape_count}, scale, false);
    m.shape_geo_thickness = up(f32, {m.shape_count}, shape_geo_thickness, false);
    m.shape_body = up(i32, {m.shape_count}, shape_body, false);
    m.shape_materials = up(f32, {m.shape_count, 6}, flatten(shape_material), false);
    check_worlds(*this);
    std::vector<int> shape_worlds = shape_world;
    shape_worlds.resize(size_t(m.shape_count), -1);
    m.num_worlds = num_worlds;
    m.shape_world = up(i32, {std::max(m.shape_count, 1)}, shape_worlds.empty() ? std::vector<int>{-1} : shape_worlds, false);
    std::vector<int> body_worlds = body_world;
    body_worlds.resize(size_t(body_count()), -1);
    m.body_world = up(i32, {std::max(body_count(), 1)}, body_worlds.empty() ? std::vector<int>{-1} : body_worlds, false);
    {
        // Copies of one model as worlds (add_builder) have the same bodies in the same order: a
        // warp of XPBD's contact slots that walks this order handles one body of 32 worlds, whose
        // contacts come and go together, rather than 32 different bodies.
        std::map<int, int> seen;  // bodies so far of each world
        std::vector<std::array<int, 3>> key;
        for (int b = 0; b < body_count(); ++b) key.push_back({seen[body_worlds[size_t(b)]]++, body_worlds[size_t(b)], b});
        std::sort(key.begin(), key.end());
        std::vector<int> order;
        for (const auto& k : key) order.push_back(k[2]);
        if (order.empty()) order.push_back(0);
        m.body_order = up(i32, {int64_t(order.size())}, order, false);
    }
    // Shapes and particles grouped by world, the shared ones (world -1) last (kernels/worlds.py).
    std::vector<int> wstart, wlist;
    group_by_world(shape_worlds, num_worlds, wstart, wlist);
    m.world_shape_start = up(i32, {int64_t(num_worlds) + 2}, wstart, false);
    m.world_shape_list = up(i32, {int64_t(wlist.size())}, wlist, false);
    m.max_shape_candidates = 0;
    for (int w = 0; w < num_worlds; ++w)
        m.max_shape_candidates =
            std::max(m.max_shape_candidates,
                     (wstart[size_t(w) + 1] - wstart[size_t(w)]) + (wstart[size_t(num_worlds) + 1] - wstart[size_t(num_worlds)]));
    if (std::count(body_worlds.begin(), body_worlds.end(), -1) > 0 && body_count() > 0) m.max_shape_candidates = m.shape_count;
    std::vector<int> particle_worlds = particle_world;
    particle_worlds.resize(size_t(np), -1);
    std::vector<int> pstart, plist;
    group_by_world(particle_worlds, num_worlds, pstart, plist);
    m.particle_world =
        up(i32, {std::max<int64_t>(np, 1)}, particle_worlds.empty() ? std::vector<int>{-1} : particle_worlds, false);
    m.world_particle_start = up(i32, {int64_t(num_worlds) + 2}, pstart, false);
    m.world_particle_list = up(i32, {int64_t(plist.size())}, plist, false);
    // The body side of particle contact with body shapes: body b has, for each of its shapes, one
    // pair per particle of the shape's world; the body with the most pairs sets the chunk count.
    int64_t most_pairs = 0;
    std::vector<int64_t> body_pairs(size_t(body_count()), 0);
    for (int s = 0; s < m.shape_count; ++s) {
        const int b = shape_body[size_t(s)];
        if (b < 0) continue;
        const int w = shape_worlds[size_t(s)];
        const int64_t n = w < 0 ? np
                                : int64_t(pstart[size_t(w) + 1] - pstart[size_t(w)]) +
                                      int64_t(pstart[size_t(num_worlds) + 1] - pstart[size_t(num_worlds)]);
        body_pairs[size_t(b)] += n;
        most_pairs = std::max(most_pairs, body_pairs[size_t(b)]);
    }
    m.particle_body_chunks = int((most_pairs + m.particle_pairs_per_chunk - 1) / m.particle_pairs_per_chunk);
    m.shape_material_share = up(f32, {m.shape_count}, shape_material_share, false);
    {
        std::vector<int> groups = shape_collision_group, flags = shape_collision_flags;
        groups.resize(size_t(std::max(m.shape_count, 1)), -1);
        flags.resize(size_t(std::max(m.shape_count, 1)), 3);
        m.shape_collision_group = up(i32, {int64_t(groups.size())}, groups, false);
        m.shape_collision_flags = up(i32, {int64_t(flags.size())}, flags, false);
        std::vector<std::vector<int>> partners(size_t(m.shape_count));
        for (const auto& [a, b] : shape_collision_filter_pairs) {
            if (a < 0 || b >= m.shape_count || a >= b)
                throw BuildError("finalize: shape_collision_filter_pairs holds (" + std::to_string(a) + ", " + std::to_string(b) +
                                 "), not a pair of two of the model's " + std::to_string(m.shape_count) + " shapes");
            partners[size_t(a)].push_back(b);
            partners[size_t(b)].push_back(a);
        }
        std::vector<int> start{0}, list;
        for (const auto& p : partners) {
            list.insert(list.end(), p.begin(), p.end());
            start.push_back(int(list.size()));
        }
        if (list.empty()) list.push_back(-1);
        m.shape_filter_start = up(i32, {int64_t(start.size())}, start, false);
        m.shape_filter_list = up(i32, {int64_t(list.size())}, list, false);
    }
    upload_mesh_sdfs(*this, m, up);
    const std::vector<float> bound = upload_shape_points(*this, m, up);
    setup_body_broad_phase(*this, m, up, bound, shape_worlds, wstart, wlist);
    upload_bodies(*this, m, up);
    upload_joints(*this, m, up);
    m.smoke = build_smoke_grid(smoke, m.device, requires_grad);
    finalize_mpm(m);
    m.ground_ke = ground_ke;
    m.ground_kd = ground_kd;
    m.ground_kf = ground_kf;
    m.ground_mu = ground_mu;
    m.ground_restitution = ground_restitution;

    m.ground = ground;
    m.ground_plane = ground_plane;
    m.soft_contact_ke = soft_contact_ke;
    m.soft_contact_kd = soft_contact_kd;
    m.soft_contact_kf = soft_contact_kf;
    m.soft_contact_mu = soft_contact_mu;
    m.gravity = {gravity.x(), gravity.y(), gravity.z()};

    // Force slots: particle i's own slot i, then every element's per-vertex slots, and for each
    // particle the list of slots that hold its contributions, in element order.
    ForceTermLayout& L = m.term_layout;
    L.spring = int(np);
    L.tri = L.spring + 2 * m.spring_count;
    L.edge = L.tri + 3 * m.tri_count;
    L.tet = L.edge + 4 * m.edge_count;
    L.count = L.tet + 4 * m.tet_count;
    std::vector<std::vector<int>> slots(static_cast<size_t>(np));
    for (int s = 0; s < m.spring_count; ++s)
        for (int v = 0; v < 2; ++v) slots[size_t(spring_indices[size_t(2 * s + v)])].push_back(L.spring + 2 * s + v);
    for (int t = 0; t < m.tri_count; ++t)
        for (int v = 0; v < 3; ++v) slots[size_t(tri_indices[size_t(t)][size_t(v)])].push_back(L.tri + 3 * t + v);
    for (int e = 0; e < m.edge_count; ++e)
        for (int v = 0; v < 4; ++v) slots[size_t(edge_indices[size_t(e)][size_t(v)])].push_back(L.edge + 4 * e + v);
    for (int t = 0; t < m.tet_count; ++t)
        for (int v = 0; v < 4; ++v) slots[size_t(tet_indices[size_t(t)][size_t(v)])].push_back(L.tet + 4 * t + v);
    std::vector<int> start(size_t(np) + 1, 0), index;
    for (int64_t i = 0; i < np; ++i) {
        start[size_t(i)] = int(index.size());
        index.insert(index.end(), slots[size_t(i)].begin(), slots[size_t(i)].end());
    }
    start[size_t(np)] = int(index.size());
    m.particle_term_start = up(i32, {np + 1}, start, false);
    m.particle_term_index =
        up(i32, {std::max<int64_t>(int64_t(index.size()), 1)}, index.empty() ? std::vector<int>{0} : index, false);

    std::vector<std::vector<int>> springs_of(static_cast<size_t>(np));
    for (int s = 0; s < m.spring_count; ++s)
        for (int v = 0; v < 2; ++v) springs_of[size_t(spring_indices[size_t(2 * s + v)])].push_back(s);
    std::vector<int> spring_start(size_t(np) + 1, 0), spring_list, spring_other;
    for (int64_t i = 0; i < np; ++i) {
        spring_start[size_t(i)] = int(spring_list.size());
        for (int s : springs_of[size_t(i)]) {
            spring_list.push_back(s);
            spring_other.push_back(spring_indices[size_t(2 * s)] + spring_indices[size_t(2 * s + 1)] - int(i));
        }
    }
    spring_start[size_t(np)] = int(spring_list.size());
    if (spring_list.empty()) spring_list = spring_other = {0};
    m.particle_spring_start = up(i32, {np + 1}, spring_start, false);
    m.particle_spring_list = up(i32, {int64_t(spring_list.size())}, spring_list, false);
    m.particle_spring_other = up(i32, {int64_t(spring_other.size())}, spring_other, false);
    size_t width = 0;
    for (const auto& l : springs_of) width = std::max(width, l.size());
    if (m.spring_count > 0 && width * size_t(np) <= 2 * 2 * size_t(m.spring_count)) {
        std::vector<int> ell_list(width * size_t(np), -1), ell_other(width * size_t(np), -1);
        for (int64_t i = 0; i < np; ++i)
            for (size_t k = 0; k < springs_of[size_t(i)].size(); ++k) {
                const int s = springs_of[size_t(i)][k];
                ell_list[k * size_t(np) + size_t(i)] = s;
                ell_other[k * size_t(np) + size_t(i)] =
                    spring_indices[size_t(2 * s)] + spring_indices[size_t(2 * s + 1)] - int(i);
            }
        m.particle_spring_width = int(width);
        m.particle_spring_ell_list = up(i32, {int64_t(ell_list.size())}, ell_list, false);
        m.particle_spring_ell_other = up(i32, {int64_t(ell_other.size())}, ell_other, false);
    }
    return m;
}

}  // namespace weft::engine
