// Mesh signed distances (engine/mesh_sdf.h, kernels/geometry.py mesh_sdf) against a brute-force
// reference computed another way (tests/engine/mesh_test_util.h: projection closest points over
// every triangle, sign by winding number) and, for the box, the analytic box distance: the exact
// queries, the grid's nodes, and the kernel's trilinear interpolation inside and beyond the grid.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "engine/model_builder.h"
#include "engine/solver_kernels.h"
#include "runtime/module.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/mesh_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

double box_sdf(const Vec3d& h, const Vec3d& p) {
    Vec3d q = p.cwiseAbs() - h;
    return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

std::vector<Vec3d> random_points(int n, double half, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-half, half);
    std::vector<Vec3d> out;
    for (int k = 0; k < n; ++k) out.emplace_back(u(rng), u(rng), u(rng));
    return out;
}

TEST(MeshSdf, TestMeshesAreClosedAndOutwardWound) {
    EXPECT_NEAR(winding_number(box_mesh(0.5f, 0.3f, 0.2f), Vec3d::Zero()), 1.0, 1e-9);
    EXPECT_NEAR(winding_number(icosphere(0.5f, 2), Vec3d::Zero()), 1.0, 1e-9);
    EXPECT_NEAR(winding_number(icosphere(0.5f, 2), Vec3d(0.6, 0.1, 0)), 0.0, 1e-9);
}

TEST(MeshSdf, ExactQueriesMatchBruteForce) {
    struct Case {
        const char* name;
        Mesh mesh;
    } cases[] = {{"box", box_mesh(0.5f, 0.3f, 0.2f)}, {"icosphere", icosphere(0.5f, 2)}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        MeshDistance exact(c.mesh);
        int inside = 0, hint = 0;
        double worst = 0;
        for (const Vec3d& p : random_points(2000, 0.8, 7)) {
            double ref = brute_force_sdf(c.mesh, p);
            double d = exact.signed_distance(p, &hint);
            worst = std::max(worst, std::abs(d - ref));
            ASSERT_NEAR(d, ref, 1e-9) << "at " << p.transpose();
            inside += ref < 0;
        }
        EXPECT_GT(inside, 50);  // both signs were exercised
        printf("%s: %d triangles, 2000 points (%d inside), largest |exact - brute force| %.3g m\n", c.name,
               exact.triangle_count(), inside, worst);
    }
    // the box once more against its closed form
    MeshDistance box(box_mesh(0.5f, 0.3f, 0.2f));
    for (const Vec3d& p : random_points(500, 0.8, 8)) EXPECT_NEAR(box.signed_distance(p), box_sdf(Vec3d(0.5, 0.3, 0.2), p), 1e-7);
}

TEST(MeshSdf, ScaleAndDegenerateTriangles) {
    // scale (2, 1, 0.5) of a unit cube is the box of half extents (1, 0.5, 0.25); a zero-area
    // triangle (a repeated vertex) changes nothing
    Mesh m = box_mesh(0.5f, 0.5f, 0.5f);
    m.indices.insert(m.indices.end(), {0, 0, 1});
    MeshDistance scaled(m, Vec3d(2, 1, 0.5));
    EXPECT_EQ(scaled.triangle_count(), 12);
    for (const Vec3d& p : random_points(500, 1.5, 9)) EXPECT_NEAR(scaled.signed_distance(p), box_sdf(Vec3d(1, 0.5, 0.25), p), 1e-7);
}

TEST(MeshSdf, GridNodesHoldExactDistances) {
    Mesh m = icosphere(0.5f, 2);
    SdfGrid g = build_sdf_grid(m, 24, 0.1);
    EXPECT_NEAR(g.cell, 1.2 / 24, 1e-6 * 0.5);  // the longest side: 2 * 0.5 (the icosphere's vertices) + 2 * 0.1
    // the nodes reach the margin on every side
    for (int k = 0; k < 3; ++k) {
        EXPECT_LE(g.origin[k], -0.6 + 1e-9);
        EXPECT_GE(g.origin[k] + g.cell * (g.dim[size_t(k)] - 1), 0.6 - 1e-9);
    }
    std::mt19937 rng(3);
    for (int n = 0; n < 1000; ++n) {
        int i = int(rng() % unsigned(g.dim[0])), j = int(rng() % unsigned(g.dim[1])), k = int(rng() % unsigned(g.dim[2]));
        Vec3d p = g.origin + g.cell * Vec3d(i, j, k);
        ASSERT_NEAR(g.at(i, j, k), brute_force_sdf(m, p), 1e-6) << "node " << i << " " << j << " " << k;
    }
}

const char* kProbe = R"(
import weft as wp
import geometry as geo

@wp.kernel
def probe(points: wp.array(dtype=wp.vec3), s: int, shape_sdf_values: wp.array(dtype=wp.vec4), shape_sdf_dims: wp.array2d(dtype=int),
          shape_sdf_origin: wp.array(dtype=wp.vec3), shape_sdf_cell: wp.array(dtype=float), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = geo.mesh_sdf(s, points[i], shape_sdf_values, shape_sdf_dims, shape_sdf_origin, shape_sdf_cell)
)";

// geo.mesh_sdf of shape s of the model at each point: (gradient, value).
std::vector<std::array<float, 4>> probe(const Model& m, int s, const std::vector<Vec3d>& points) {
    static auto module = runtime::Module::compile(
        {{"kernels/geometry.py", embedded_kernel_sources().at("kernels/geometry.py")}, {"probe.py", kProbe}});
    std::vector<float> host;
    for (const auto& p : points) host.insert(host.end(), {float(p.x()), float(p.y()), float(p.z())});
    auto pts = runtime::Array::empty(vec3_type(), {int64_t(points.size())}, m.device);
    pts.copy_from_host(host.data(), host.size() * 4);
    auto out = runtime::Array::zeros(vec4_type(), {int64_t(points.size())}, m.device);
    using runtime::LaunchArg;
    runtime::LaunchOptions o;
    o.device = m.device;
    runtime::launch(module->kernel("probe"), {int64_t(points.size())},
                    {LaunchArg::of(pts), LaunchArg::integer_of(s), LaunchArg::of(m.shape_sdf_values), LaunchArg::of(m.shape_sdf_dims),
                     LaunchArg::of(m.shape_sdf_origin), LaunchArg::of(m.shape_sdf_cell), LaunchArg::of(out)},
                    o);
    std::vector<std::array<float, 4>> r(points.size());
    out.copy_to_host(r.data(), r.size() * 16);
    return r;
}

TEST(MeshSdf, KernelInterpolatesEveryPackedGrid) {
    REQUIRE_CPU();
    // Three shapes in one model, two of them meshes: the kernel must find each mesh's grid.
    ModelBuilder b;
    Mesh ico = icosphere(0.5f, 2), box = box_mesh(0.5f, 0.3f, 0.2f);
    b.add_shape_sphere(Vec3(5, 0, 0), 0.3f);
    b.add_shape_mesh(Vec3(0, 0, 0), ico, Quat::Identity(), Vec3::Ones(), 0.0f, 48, 0.1f);
    b.add_shape_mesh(Vec3(2, 0, 0), box, Quat::Identity(), Vec3::Ones(), 0.0f, 32, 0.1f);
    Model m = b.finalize("cpu");
    std::vector<int> dims(12);
    m.shape_sdf_dims.copy_to_host(dims.data(), dims.size() * 4);
    EXPECT_EQ(dims[0 * 4 + 1], 0);                                   // the sphere has no grid
    EXPECT_EQ(dims[1 * 4 + 0], 0);                                   // the icosphere's grid comes first
    EXPECT_EQ(dims[2 * 4 + 0], dims[5] * dims[6] * dims[7]);         // the box's right after it
    EXPECT_EQ(m.shape_sdf_size, dims[8] + dims[9] * dims[10] * dims[11]);
    std::vector<float> cells(3), origins(9);
    m.shape_sdf_cell.copy_to_host(cells.data(), 12);
    m.shape_sdf_origin.copy_to_host(origins.data(), 36);

    // Inside the grid the trilinear interpolant of a 1-Lipschitz function is within sqrt(3) cell
    // of it; beyond the grid (points in the shape frame up to 1.5 m from the origin) the value stays finite,
    // above the margin, and within the Lipschitz bounds of the exact distance.
    struct Case {
        int shape;
        const Mesh* mesh;
    } cases[] = {{1, &ico}, {2, &box}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.shape);
        const double cell = cells[size_t(c.shape)], tol = std::sqrt(3.0) * cell;
        Eigen::AlignedBox3d grid;
        Vec3d lo(origins[size_t(3 * c.shape)], origins[size_t(3 * c.shape + 1)], origins[size_t(3 * c.shape + 2)]);
        grid.extend(lo);
        grid.extend(lo + cell * Vec3d(dims[size_t(4 * c.shape + 1)] - 1, dims[size_t(4 * c.shape + 2)] - 1,
                                       dims[size_t(4 * c.shape + 3)] - 1));
        auto local = random_points(2000, 0.8, 11 + unsigned(c.shape)), far = random_points(1000, 1.5, 21 + unsigned(c.shape));
        local.insert(local.end(), far.begin(), far.end());
        auto r = probe(m, c.shape, local);  // mesh_sdf takes shape-frame points
        double worst = 0;
        int inside_grid = 0, beyond = 0, sign_checked = 0;
        for (size_t k = 0; k < local.size(); ++k) {
            const Vec3d& p = local[k];
            double ref = brute_force_sdf(*c.mesh, p);
            double d = r[k][3];
            ASSERT_TRUE(std::isfinite(d));
            double gap = grid.exteriorDistance(p);
            if (gap == 0) {
                ++inside_grid;
                worst = std::max(worst, std::abs(d - ref));
                ASSERT_NEAR(d, ref, tol) << "at " << p.transpose();
                if (std::abs(ref) > tol) {
                    ++sign_checked;
                    ASSERT_EQ(d < 0, ref < 0) << "at " << p.transpose();
                }
            } else {
                ++beyond;
                ASSERT_GE(d, 0.1 - 1e-5) << "at " << p.transpose();
                ASSERT_GE(d, ref - tol) << "at " << p.transpose();
                ASSERT_LE(d, ref + 2 * gap + tol) << "at " << p.transpose();
            }
        }
        // the interpolated gradient points along the exact distance's gradient (central differences
        // of the brute force) wherever the distance is smooth: outside this convex mesh, 2 cells away
        int normals = 0;
        double worst_angle = 0;
        for (size_t k = 0; k < local.size() && c.mesh == &ico; ++k) {
            const Vec3d& p = local[k];
            double ref = brute_force_sdf(*c.mesh, p);
            if (grid.exteriorDistance(p) > 0 || ref < 2 * cell) continue;
            Vec3d n_ref;
            for (int a = 0; a < 3; ++a) {
                Vec3d e = Vec3d::Unit(a) * 1e-6;
                n_ref[a] = (brute_force_distance(*c.mesh, p + e) - brute_force_distance(*c.mesh, p - e)) / 2e-6;
            }
            Vec3d n(r[k][0], r[k][1], r[k][2]);
            double angle = std::acos(std::clamp(n.normalized().dot(n_ref.normalized()), -1.0, 1.0));
            worst_angle = std::max(worst_angle, angle);
            ++normals;
        }
        if (c.mesh == &ico) {
            // The exact gradient turns by a dihedral angle across a band around each edge that
            // the grid cannot follow: the interpolated one may lag by up to one such turn.
            double dihedral = 0;
            std::map<std::pair<int, int>, Vec3d> first;
            for (size_t t = 0; t < ico.indices.size(); t += 3) {
                Vec3d a = ico.vertices[size_t(ico.indices[t])].cast<double>(), b = ico.vertices[size_t(ico.indices[t + 1])].cast<double>(),
                      cc = ico.vertices[size_t(ico.indices[t + 2])].cast<double>();
                Vec3d n = (b - a).cross(cc - a).normalized();
                for (int e = 0; e < 3; ++e) {
                    auto key = std::minmax(ico.indices[t + size_t(e)], ico.indices[t + size_t((e + 1) % 3)]);
                    auto [it, fresh] = first.try_emplace({key.first, key.second}, n);
                    if (!fresh) dihedral = std::max(dihedral, std::acos(std::clamp(it->second.dot(n), -1.0, 1.0)));
                }
            }
            EXPECT_GT(normals, 100);
            EXPECT_LT(worst_angle, dihedral);
            printf("icosphere: %d normals 2 cells or more outside, largest angle to the exact gradient %.4f rad (largest "
                   "dihedral angle %.4f rad)\n", normals, worst_angle, dihedral);
        }
        EXPECT_GT(inside_grid, 100);
        EXPECT_GT(sign_checked, 100);
        EXPECT_GT(beyond, 500);
        printf("shape %d: cell %.4g m, %d points inside the grid, largest |interpolated - exact| %.3g m (bound %.3g)\n",
               c.shape, cell, inside_grid, worst, tol);
    }

    // Near the middle of the box's top face the distance is linear, so the interpolated distance
    // and the interpolated gradients (central differences of the nodes) are exact.
    std::vector<Vec3d> above;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> ux(-0.3, 0.3), uz(-0.05, 0.05), h(0.32, 0.4);
    for (int k = 0; k < 200; ++k) above.emplace_back(ux(rng), h(rng), uz(rng));
    auto r = probe(m, 2, above);
    for (size_t k = 0; k < above.size(); ++k) {
        EXPECT_NEAR(r[k][3], above[k].y() - 0.3, 2e-6);
        EXPECT_NEAR(r[k][0], 0.0, 1e-4);
        EXPECT_NEAR(r[k][1], 1.0, 1e-4);
        EXPECT_NEAR(r[k][2], 0.0, 1e-4);
    }
}

}  // namespace
