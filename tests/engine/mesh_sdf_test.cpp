// Mesh signed distances (engine/mesh_sdf.h, kernels/geometry.py mesh_sdf) against a brute-force
// reference computed another way (tests/engine/mesh_test_util.h: projection closest points over
// every triangle, sign by winding number) and, for the box, the analytic box distance: the exact
// queries, the grid's nodes, and the kernel's trilinear interpolation inside and beyond the grid.
//
// Then particle contact with mesh shapes (kernels/contact.py and xpbd.py through the distance
// grid): a particle rests on a mesh box where it rests on the analytic box; a particle sliding on
// a tilted mesh quad stops where v0^2 / (2 g (mu cos a - sin a)) says and where it stops on the
// analytic plane; XPBD rests on a mesh as on the box; the Tape's gradient through mesh contact
// agrees with central finite differences and with the gradient through the analytic box.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "engine/model_builder.h"
#include "engine/solver_kernels.h"
#include "runtime/module.h"
#include "runtime/recorder.h"
#include "tape/tape.h"
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
    for (const Vec3d& p : random_points(500, 1.5, 9))
        EXPECT_NEAR(scaled.signed_distance(p), box_sdf(Vec3d(1, 0.5, 0.25), p), 1e-7);
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
    runtime::launch(
        module->kernel("probe"), {int64_t(points.size())},
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
    EXPECT_EQ(dims[0 * 4 + 1], 0);                            // the sphere has no grid
    EXPECT_EQ(dims[1 * 4 + 0], 0);                            // the icosphere's grid comes first
    EXPECT_EQ(dims[2 * 4 + 0], dims[5] * dims[6] * dims[7]);  // the box's right after it
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
                Vec3d a = ico.vertices[size_t(ico.indices[t])].cast<double>(),
                      b = ico.vertices[size_t(ico.indices[t + 1])].cast<double>(),
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
            printf(
                "icosphere: %d normals 2 cells or more outside, largest angle to the exact gradient %.4f rad (largest "
                "dihedral angle %.4f rad)\n",
                normals, worst_angle, dihedral);
        }
        EXPECT_GT(inside_grid, 100);
        EXPECT_GT(sign_checked, 100);
        EXPECT_GT(beyond, 500);
        printf("shape %d: cell %.4g m, %d points inside the grid, largest |interpolated - exact| %.3g m (bound %.3g)\n", c.shape,
               cell, inside_grid, worst, tol);
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

TEST(MeshContact, ParticlesRestOnMeshBoxesAsOnAnalyticBoxes) {
    REQUIRE_CPU();
    // One model: an analytic box, a mesh of the same box (a scaled unit cube, same rotation), a
    // second mesh box of other size and resolution, and an analytic sphere; a particle on each.
    const float r = 0.05f, ke = 1e4f, mass = 0.1f;
    const Quat rot(Eigen::AngleAxisf(0.3f, Vec3(0, 1, 0)));
    ModelBuilder b;
    b.ground = false;
    b.soft_contact_ke = ke;
    b.soft_contact_kd = 20.0f;
    b.add_shape_box(Vec3(0, 0, 0), 0.3f, 0.2f, 0.3f, rot);
    b.add_shape_mesh(Vec3(2, 0, 0), box_mesh(0.5f, 0.5f, 0.5f), rot, Vec3(0.6f, 0.4f, 0.6f));
    b.add_shape_sphere(Vec3(4, 0, 0), 0.5f);
    b.add_shape_mesh(Vec3(6, 0, 0), box_mesh(0.4f, 0.1f, 0.25f), Quat::Identity(), Vec3::Ones(), 0.0f, 32);
    b.add_particle(Vec3(0.1f, 0.4f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(2.1f, 0.4f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(4, 0.7f, 0), Vec3::Zero(), mass, r);
    b.add_particle(Vec3(6.1f, 0.3f, 0.05f), Vec3::Zero(), mass, r);
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 4000, 5e-4f);
    auto q = host_vec3(s.particle_q);
    const float sink = mass * float(kG) / ke;
    EXPECT_NEAR(q[1][1], q[0][1], 1e-5) << "mesh box vs analytic box";
    EXPECT_NEAR(q[1][0] - 2.0f, q[0][0], 1e-5);
    EXPECT_NEAR(q[0][1], 0.2f + r - sink, 2e-4);
    EXPECT_NEAR(q[2][1], 0.5f + r - sink, 2e-4);
    EXPECT_NEAR(q[3][1], 0.1f + r - sink, 2e-4);
    EXPECT_NEAR(q[3][0], 6.1f, 1e-4);
    printf("rest heights: analytic box %.6f, mesh box %.6f, second mesh box %.6f (expected %.6f, %.6f)\n", q[0][1], q[1][1],
           q[3][1], 0.2f + r - sink, 0.1f + r - sink);
}

// A particle launched down a slope of angle a (tan a < mu) on a mesh quad or on the analytic
// plane; returns the distance it slid along the slope.
double slide_distance(bool mesh, double angle, double mu, double v0) {
    const double mass = 1.0, ke = 1e4, r = 0.05;
    ModelBuilder b;
    b.ground = false;
    b.soft_contact_ke = float(ke);
    b.soft_contact_kd = 100.0f;
    b.soft_contact_kf = 1e4f;
    b.soft_contact_mu = float(mu);
    const Quat tilt(Eigen::AngleAxisf(float(angle), Vec3(0, 0, 1)));  // local +x goes uphill
    if (mesh)
        b.add_shape_mesh(Vec3::Zero(), quad_mesh(2.0f), tilt);
    else
        b.add_shape_plane(Eigen::Vector4f(-std::sin(float(angle)), std::cos(float(angle)), 0, 0));
    const Vec3 up = tilt * Vec3(0, 1, 0), downhill = tilt * Vec3(-1, 0, 0);
    const Vec3 start = tilt * Vec3(1.5f, 0, 0) + up * float(r - mass * kG * std::cos(angle) / ke);
    b.add_particle(start, downhill * float(v0), float(mass), float(r));
    Model m = b.finalize("cpu");
    SemiImplicitIntegrator integ;
    State s = rollout(m, integ, 5000, 5e-4f);
    auto q = host_vec3(s.particle_q)[0];
    return double((Vec3(q[0], q[1], q[2]) - start).dot(downhill));
}

TEST(MeshContact, SlidingOnATiltedMeshStopsWhereCoulombSays) {
    REQUIRE_CPU();
    const double angle = 10.0 * M_PI / 180.0, mu = 0.4, v0 = 2.0;
    const double expected = v0 * v0 / (2 * kG * (mu * std::cos(angle) - std::sin(angle)));
    double on_mesh = slide_distance(true, angle, mu, v0), on_plane = slide_distance(false, angle, mu, v0);
    EXPECT_NEAR(on_mesh, expected, 0.02 * expected);
    EXPECT_NEAR(on_mesh, on_plane, 1e-3 * expected);
    printf("slide: mesh %.5f m, analytic plane %.5f m, v0^2/(2 g (mu cos a - sin a)) = %.5f m\n", on_mesh, on_plane, expected);
}

TEST(MeshContact, XpbdRestsOnAMeshAsOnTheBox) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.ground = false;
    b.add_shape_box(Vec3(0, 0, 0), 0.3f, 0.2f, 0.3f);
    b.add_shape_mesh(Vec3(2, 0, 0), box_mesh(0.3f, 0.2f, 0.3f));
    b.add_particle(Vec3(0.05f, 0.5f, 0), Vec3::Zero(), 0.1f, 0.05f);
    b.add_particle(Vec3(2.05f, 0.5f, 0), Vec3::Zero(), 0.1f, 0.05f);
    Model m = b.finalize("cpu");
    XPBDIntegrator integ(4);
    State s = rollout(m, integ, 1000, 1e-3f);
    auto q = host_vec3(s.particle_q);
    EXPECT_NEAR(q[0][1], 0.25f, 2e-3);
    EXPECT_NEAR(q[1][1], q[0][1], 1e-5);
}

// [gradient] A particle sliding with Coulomb friction over the top of a box, or over a sphere and
// an icosphere mesh, in contact every step (finite differences must see the same contact set, and
// the particle must not come to a stop), loss L = q . (1, 0.5, 0.25) after 150 steps. It starts
// at its resting depth, pressed in by m g / ke. Without normal damping: kd min(v.n, 0) switches on
// and off as the resting particle's v.n changes sign, which central differences average over (2.5%
// off the tape's dL/dradius with kd = 10, for the analytic box as for the mesh). On the curved
// shapes ke is 1e3, so that the resting depth (4.9 mm) exceeds the icosphere's facets' inset from
// the sphere (under 2 mm).
struct Rollout {
    Model model;
    State s0;
};

enum SlideKind { AnalyticBox, MeshBox, IcosphereMesh, AnalyticSphere };

Rollout make_slide(SlideKind kind) {
    const float mass = 0.5f, r = 0.05f;
    const bool curved = kind == IcosphereMesh || kind == AnalyticSphere;
    ModelBuilder b;
    b.ground = false;
    b.soft_contact_ke = curved ? 1e3f : 1e4f;
    b.soft_contact_kd = 0.0f;
    b.soft_contact_kf = 1e3f;
    b.soft_contact_mu = 0.3f;
    const float depth = mass * float(kG) / b.soft_contact_ke;
    if (curved) {
        if (kind == IcosphereMesh)
            b.add_shape_mesh(Vec3(0, 0, 0), icosphere(0.5f, 3));
        else
            b.add_shape_sphere(Vec3(0, 0, 0), 0.5f);
        Vec3 dir = Vec3(-0.1f, 1.0f, 0.04f).normalized(), v(1.0f, 0.0f, 0.3f);
        b.add_particle(dir * (0.5f + r - depth), v - dir * dir.dot(v), mass, r);
    } else {
        if (kind == MeshBox)
            b.add_shape_mesh(Vec3(0, 0, 0), box_mesh(1.0f, 0.2f, 1.0f));
        else
            b.add_shape_box(Vec3(0, 0, 0), 1.0f, 0.2f, 1.0f);
        b.add_particle(Vec3(-0.3f, 0.2f + r - depth, 0.1f), Vec3(1.5f, 0.0f, 0.4f), mass, r);
    }
    Model m = b.finalize("cpu", true);
    State s0 = m.state();
    return {m, s0};
}

double run_loss(const Model& m, const State& s0, tape::Tape* tape, runtime::Array* loss_out) {
    static const char* kLoss = R"(
import weft as wp

@wp.kernel
def slide_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    wp.atomic_add(loss, 0, wp.dot(q[0], wp.vec3(1.0, 0.5, 0.25)))
)";
    static auto module = runtime::Module::compile({{"loss.py", kLoss}});
    SemiImplicitIntegrator integ;
    std::vector<State> keep{s0};
    runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, m.requires_grad);
    {
        std::unique_ptr<runtime::ScopedRecorder> rec;
        if (tape) rec = std::make_unique<runtime::ScopedRecorder>(tape);
        for (int k = 0; k < 150; ++k) {
            State next = m.state();
            keep.back().clear_forces();
            integ.simulate(m, keep.back(), next, 1e-3f);
            keep.push_back(next);
        }
        runtime::LaunchOptions o;
        o.device = m.device;
        runtime::launch(module->kernel("slide_loss"), {1},
                        {runtime::LaunchArg::of(keep.back().particle_q), runtime::LaunchArg::of(loss)}, o);
    }
    if (loss_out) *loss_out = loss;
    float l;
    loss.copy_to_host(&l, 4);
    return l;
}

float read(const runtime::Array& a, int i) {
    std::vector<float> h(size_t(a.nbytes() / 4));
    a.copy_to_host(h.data(), h.size() * 4);
    return h[size_t(i)];
}
void write(runtime::Array& a, int i, float v) {
    std::vector<float> h(size_t(a.nbytes() / 4));
    a.copy_to_host(h.data(), h.size() * 4);
    h[size_t(i)] = v;
    a.copy_from_host(h.data(), h.size() * 4);
}

TEST(MeshContact, GradientThroughMeshContactMatchesFiniteDifferences) {
    REQUIRE_CPU();
    double tape_grad[4][3];  // [kind][d/dvx, d/dvz, d/dradius]
    const char* kinds[4] = {"analytic box", "mesh box", "icosphere mesh", "analytic sphere"};
    for (int kind = 0; kind < 4; ++kind) {
        SCOPED_TRACE(kinds[kind]);
        Rollout r = make_slide(SlideKind(kind));
        tape::Tape tape;
        runtime::Array loss;
        run_loss(r.model, r.s0, &tape, &loss);
        tape.backward(loss);
        double g[3] = {read(*r.s0.particle_qd.grad(), 0), read(*r.s0.particle_qd.grad(), 2),
                       read(*r.model.particle_radius.grad(), 0)};
        // central differences of the forward rollout, one input at a time
        auto fd = [&](runtime::Array arr, int index, double eps) {
            float old = read(arr, index);
            write(arr, index, float(old + eps));
            double lp = run_loss(r.model, r.s0, nullptr, nullptr);
            write(arr, index, float(old - eps));
            double lm = run_loss(r.model, r.s0, nullptr, nullptr);
            write(arr, index, old);
            return (lp - lm) / (2 * eps);
        };
        double f[3] = {fd(r.s0.particle_qd, 0, 1e-2), fd(r.s0.particle_qd, 2, 1e-2), fd(r.model.particle_radius, 0, 5e-5)};
        const char* names[3] = {"dL/dvx", "dL/dvz", "dL/dradius"};
        for (int k = 0; k < 3; ++k) {
            EXPECT_NEAR(g[k], f[k], 0.01 * std::abs(f[k]) + 1e-4) << names[k];
            EXPECT_GT(std::abs(f[k]), 1e-2) << names[k] << " must matter for the check to mean anything";
            tape_grad[kind][k] = g[k];
            printf("%s %s: tape %.6g, central differences %.6g\n", kinds[kind], names[k], g[k], f[k]);
        }
    }
    // the mesh box's distance is exact near the middle of its top face: the same gradients
    for (int k = 0; k < 3; ++k)
        EXPECT_NEAR(tape_grad[MeshBox][k], tape_grad[AnalyticBox][k], 1e-3 * std::abs(tape_grad[AnalyticBox][k]) + 1e-4) << k;
}

TEST(MeshContact, SimulatorMatchesTheCpu) {
    // The contact kernel with a mesh shape through NVRTC's PTX on the simulated H200: the same
    // step as the CPU device (three particles: on the mesh's face, at its side, beyond its grid).
    // XPBD calls the same geometry.py function; the simulator is slow, so it runs one
    // semi-implicit step only.
    REQUIRE_CPU();
    runtime::Device sim = runtime::parse_device("sim:h200");
    if (!runtime::device_available(sim)) GTEST_SKIP() << "no sim:h200 device in this build";
    ModelBuilder b;
    b.ground = false;
    // the icosphere's surface lies between 0.85 and 1 times its radius from its centre: 0.38 to
    // 0.45 m along y (scaled), 0.255 to 0.3 m across
    b.add_shape_mesh(Vec3(0, 0, 0), icosphere(0.3f, 1), Quat(Eigen::AngleAxisf(0.4f, Vec3(0, 1, 0))), Vec3(1, 1.5f, 1), 0.0f, 8);
    b.add_particle(Vec3(0.02f, 0.40f, 0), Vec3(0.5f, -1, 0), 0.1f, 0.05f);
    b.add_particle(Vec3(0.28f, 0.0f, 0.05f), Vec3(-1, 0, 0), 0.1f, 0.05f);
    b.add_particle(Vec3(2, 0, 0), Vec3(0, 0, 0), 0.1f, 0.05f);
    std::vector<std::array<float, 3>> v[2];
    const char* devices[2] = {"cpu", "sim:h200"};
    for (int d = 0; d < 2; ++d) {
        Model m = b.finalize(devices[d]);
        SemiImplicitIntegrator si;
        v[d] = host_vec3(rollout(m, si, 1, 1e-3f).particle_qd);
    }
    for (size_t i = 0; i < v[0].size(); ++i)
        for (size_t k = 0; k < 3; ++k) EXPECT_NEAR(v[0][i][k], v[1][i][k], 1e-5) << i << "," << k;
    // the first two particles were pushed out of the mesh, the third only fell
    EXPECT_GT(v[0][0][1], -1.0f);
    EXPECT_GT(v[0][1][0], -1.0f);
    EXPECT_FLOAT_EQ(v[0][2][1], -9.80665f * 1e-3f);
}

}  // namespace
