// Triangle meshes on rigid bodies (ModelBuilder::add_shape_mesh with a body, engine/body_inertia.h
// mesh_mass_properties, kernels/rigid_common.py's mesh contact points) against answers computed
// another way: the mass properties of a box, a regular tetrahedron and an icosphere against their
// closed forms, the same solid with repeated vertices (as STL files store it) giving the same
// result, the penalty rest depth of a mesh cube (its four lower vertices carry its weight: the
// analytic depth m g / (4 ke)), XPBD rest on the ground and on another body, a ball resting on a
// mesh body, the adjoint of a throw with contacts against central differences, and the messages
// for meshes that bound no solid.
#include <Eigen/Dense>
#include <cmath>

#include "engine/body_inertia.h"
#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "runtime/errors.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/mesh_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

// The mesh with every triangle given vertices of its own (as an STL file stores a solid).
Mesh unshared(const Mesh& m) {
    Mesh out;
    for (int i : m.indices) {
        out.indices.push_back(int(out.vertices.size()));
        out.vertices.push_back(m.vertices[size_t(i)]);
    }
    return out;
}

Mesh moved(Mesh m, const Eigen::Vector3f& by) {
    for (auto& v : m.vertices) v += by;
    return m;
}

TEST(BodyInertia, MeshesMatchTheirClosedForms) {
    // A box of half extents (0.3, 0.2, 0.1) scaled by (2, 1, 0.5), off the origin: the box's own
    // (its sizes as the float vertices hold them).
    const Eigen::Vector3f off(0.5f, -0.25f, 0.125f);
    const Eigen::Vector3d half(double(0.3f), double(0.2f), double(0.1f));
    MassProperties p = mesh_mass_properties(moved(box_mesh(0.3f, 0.2f, 0.1f), off), Eigen::Vector3d(2, 1, 0.5), 1000.0);
    MassProperties box = shape_mass_properties(GEO_BOX, half.cwiseProduct(Eigen::Vector3d(2, 1, 0.5)), 1000.0);
    // (Moving the float vertices rounds them by about 1e-8 m: hence 1e-6 here, 1e-9 below.)
    EXPECT_NEAR(p.mass, box.mass, 1e-6 * box.mass);
    EXPECT_LT((p.com - Eigen::Vector3d(1.0, -0.25, 0.0625)).norm(), 1e-7) << p.com.transpose();
    EXPECT_TRUE(p.inertia.isApprox(box.inertia, 1e-6)) << p.inertia;

    // The same box stored as an STL file would: 36 vertices, none shared.
    MassProperties q = mesh_mass_properties(unshared(box_mesh(0.3f, 0.2f, 0.1f)), Eigen::Vector3d::Ones(), 500.0);
    MassProperties qb = shape_mass_properties(GEO_BOX, half, 500.0);
    EXPECT_NEAR(q.mass, qb.mass, 1e-9 * qb.mass);
    EXPECT_TRUE(q.inertia.isApprox(qb.inertia, 1e-9));

    // A regular tetrahedron of edge a: V = a^3 / (6 sqrt 2), I = m a^2 / 20 about every axis
    // through its centroid.
    Mesh tet;
    tet.vertices = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};  // edge 2 sqrt 2
    tet.indices = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};
    MassProperties t = mesh_mass_properties(tet, Eigen::Vector3d::Ones(), 2.0);
    const double a = 2.0 * std::sqrt(2.0), vol = a * a * a / (6.0 * std::sqrt(2.0));
    EXPECT_NEAR(t.mass, 2.0 * vol, 1e-12);
    EXPECT_LT(t.com.norm(), 1e-12);
    EXPECT_TRUE(t.inertia.isApprox(Eigen::Matrix3d::Identity() * (t.mass * a * a / 20.0), 1e-12)) << t.inertia;

    // An icosphere of radius 0.1 (5120 triangles) converges to the sphere's 4/3 pi r^3 rho and
    // 2/5 m r^2 from inside.
    MassProperties s = mesh_mass_properties(icosphere(0.1f, 4), Eigen::Vector3d::Ones(), 1000.0);
    MassProperties ball = shape_mass_properties(GEO_SPHERE, Eigen::Vector3d(0.1, 0, 0), 1000.0);
    EXPECT_LT(s.mass, ball.mass);
    EXPECT_NEAR(s.mass / ball.mass, 1.0, 3e-3);
    EXPECT_NEAR(s.inertia(0, 0) / ball.inertia(0, 0), 1.0, 6e-3);
    EXPECT_NEAR(s.inertia(0, 1), 0.0, 1e-4 * ball.inertia(0, 0));
}

TEST(RigidBuilder, MeshesThatBoundNoSolidAreRefusedByName) {
    Mesh open = box_mesh(0.1f, 0.1f, 0.1f);
    open.indices.resize(open.indices.size() - 3);  // one triangle of the last face gone
    Mesh inverted = box_mesh(0.1f, 0.1f, 0.1f);
    for (size_t t = 0; t < inverted.indices.size(); t += 3) std::swap(inverted.indices[t + 1], inverted.indices[t + 2]);
    Mesh twisted = box_mesh(0.1f, 0.1f, 0.1f);
    std::swap(twisted.indices[1], twisted.indices[2]);  // one triangle wound against its neighbours

    ModelBuilder b;
    const int body = b.add_body(Vec3(0, 1, 0));
    EXPECT_EQ(message_of([&] { b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), open); }),
              "add_shape_mesh: the mesh is not closed: edge (4, 6) has a triangle on one side only, so the mesh has no "
              "volume (pass density=0 and give the body its mass with add_body)");
    EXPECT_EQ(message_of([&] { b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), inverted); }),
              "add_shape_mesh: the mesh's volume is -0.008 m^3: its triangles must wind counter-clockwise seen from "
              "outside (pass density=0 and give the body its mass with add_body)");
    EXPECT_EQ(message_of([&] { b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), twisted); }),
              "add_shape_mesh: edge (0, 6) is wound the same way by 2 triangles (the winding is inconsistent, or more than "
              "two triangles share it) (pass density=0 and give the body its mass with add_body)");
    EXPECT_EQ(message_of([&] { b.add_shape_mesh(body + 1, Vec3::Zero(), Quat::Identity(), open); }),
              "add_shape_mesh: body 1 is out of range (the model has 1 bodies; -1 is static)");
    EXPECT_EQ(message_of([&] { b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), Mesh{}); }),
              "add_shape_mesh: the mesh has no triangles");
    // Nothing of the refused shapes stays behind; an open mesh without density is taken.
    EXPECT_EQ(b.shape_geo_type.size(), 0u);
    ShapeParams massless;
    massless.density = 0.0f;
    EXPECT_EQ(b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), open, Vec3::Ones(), massless), 0);
    EXPECT_EQ(b.body_mass[0].mass, 0.0);
}

// A mesh cube of half extent h falling flat onto the ground: its four lower vertices (radius 0,
// the builder's default thickness 1e-5) carry m g, so it rests m g / (4 ke) below h + thickness.
TEST(RigidBodies, MeshCubeRestsAtThePenaltyDepth) {
    REQUIRE_CPU();
    ModelBuilder b;
    const float h = 0.1f;
    const int body = b.add_body(Vec3(0, h + 0.005f, 0));
    b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), box_mesh(h, h, h));
    Model m = b.finalize("cpu");
    EXPECT_EQ(m.shape_point_count, 8);
    SemiImplicitIntegrator it;
    BodyState r = bodies_of(rollout(m, it, 3000, 5e-4f))[0];
    const double mass = 8 * h * h * h * 1000.0;
    const double rest = h + 1e-5 - mass * kG / (4 * 0.5 * (1e5 + 1e5));
    EXPECT_NEAR(r.p.y(), rest, 2e-6);
    EXPECT_NEAR(r.p.x(), 0.0, 1e-6);
    EXPECT_NEAR(r.v.norm(), 0.0, 1e-4);
    EXPECT_NEAR(std::abs(r.q.w()), 1.0, 1e-6);
}

// Other bodies' points meet a mesh on a body through its signed distance grid: a ball (semi-
// implicit) and a box (XPBD) rest on a mesh slab that rests on the ground, the slab's vertices and
// grid carrying both ways.
TEST(RigidBodies, BodiesRestOnAMeshBody) {
    REQUIRE_CPU();
    for (const char* integrator : {"semi_implicit", "xpbd"}) {
        ModelBuilder b;
        const int slab = b.add_body(Vec3(0, 0.05f, 0));
        b.add_shape_mesh(slab, Vec3::Zero(), Quat::Identity(), box_mesh(0.3f, 0.05f, 0.3f));
        const int ball = b.add_body(Vec3(0.05f, 0.25f, 0));
        b.add_shape_sphere(ball, Vec3::Zero(), Quat::Identity(), 0.08f);
        const int box = b.add_body(Vec3(-0.15f, 0.2f, 0.1f), Quat(Eigen::AngleAxisf(0.4f, Vec3(0, 1, 0))));
        b.add_shape_box(box, Vec3::Zero(), Quat::Identity(), 0.05f, 0.05f, 0.05f);
        Model m = b.finalize("cpu");
        std::unique_ptr<Integrator> it = create_integrator(integrator);
        // The penalty contact of the 1 kg box (kd = 1e3 N s/m at each of four corners) is stable
        // for dt below about 2 m / (4 kd) = 5e-4 s in the semi-implicit step.
        const bool xpbd = std::string(integrator) == "xpbd";
        auto r = bodies_of(rollout(m, *it, xpbd ? 1500 : 6000, xpbd ? 1e-3f : 2.5e-4f));
        std::printf("%s: slab y %.5f, ball y %.5f, box y %.5f\n", integrator, r[0].p.y(), r[1].p.y(), r[2].p.y());
        // Sharp heights: the slab's centre at 0.05, its top at 0.1. The semi-implicit penalty
        // contact sinks each by its load over its contact springs (ke 1e5 per point, the pairs'
        // mean), plus both thicknesses (1e-5 each): the slab carries all three bodies on four
        // vertices, the ball sits on one point, the box on four corners. XPBD holds the contacts
        // exactly, up to its iterations.
        const double kg = kG, ke = 1e5, th = 1e-5;
        const double m_slab = 0.6 * 0.1 * 0.6 * 1000, m_ball = 4.0 / 3.0 * M_PI * std::pow(0.08, 3) * 1000, m_box = 1.0;
        double y_slab = 0.05, y_ball = 0.18, y_box = 0.15, tol = 2e-4;
        if (!xpbd) {
            const double sink = (m_slab + m_ball + m_box) * kg / (4 * ke) - th;
            y_slab -= sink;
            y_ball -= sink + m_ball * kg / ke - 2 * th;
            y_box -= sink + m_box * kg / (4 * ke) - 2 * th;
            tol = 2e-5;
        }
        EXPECT_NEAR(r[0].p.y(), y_slab, tol) << integrator;
        EXPECT_NEAR(r[1].p.y(), y_ball, tol) << integrator << ": the ball rests on the slab";
        EXPECT_NEAR(r[2].p.y(), y_box, tol) << integrator << ": the box rests on the slab";
        EXPECT_LT(r[1].v.norm(), 2e-2) << integrator;
        EXPECT_LT(r[2].v.norm(), 2e-2) << integrator;
    }
}

// scenes/mesh_bodies.toml: pyramid "a" (tilted 40 degrees) lands and rights itself onto its
// base; pyramid "b", dropped upside down (150 degrees about z), comes to rest on a side face,
// turned 180 - atan(h / (w/2)) degrees from upright (h 0.18 m, base w 0.3 m): 129.8 degrees about
// z. Both lie on the slab's top (y = 0.1), the ball beside them.
TEST(RigidBodies, MeshBodiesSceneSettlesOnFacesOfThePyramids) {
    REQUIRE_CPU();
    Scene scene = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/mesh_bodies.toml");
    Model m = scene.builder.finalize(scene.device);
    EXPECT_EQ(m.shape_point_count, 8 + 5 + 5);
    auto it = create_integrator(scene.solver, scene.solver_options);
    const float dt = 1.0f / (scene.fps * float(scene.substeps));
    auto r = bodies_of(rollout(m, *it, scene.frames * scene.substeps, dt));
    const double upright = Eigen::AngleAxisd(r[1].q).angle() * 180 / M_PI;
    const Eigen::AngleAxisd turned(r[2].q);
    const double side = 180.0 - std::atan(0.18 / 0.15) * 180 / M_PI;
    std::printf("pyramid a tilted %.2f deg at y %.4f; pyramid b turned %.2f deg about (%.3f, %.3f, %.3f), expected %.2f\n",
                upright, r[1].p.y(), turned.angle() * 180 / M_PI, turned.axis().x(), turned.axis().y(), turned.axis().z(), side);
    // a: upright up to a turn about the vertical (which leaves its base on the slab)
    EXPECT_GT((r[1].q * Eigen::Vector3d::UnitY()).y(), std::cos(0.5 * M_PI / 180));
    EXPECT_NEAR(r[1].p.y(), 0.1, 5e-4);
    EXPECT_NEAR(turned.angle() * 180 / M_PI, side, 0.5);
    EXPECT_GT(std::abs(turned.axis().z()), 0.999);
    EXPECT_NEAR(r[3].p.y(), 0.18, 5e-4) << "the ball rests on the slab";
    for (int k = 0; k < 4; ++k) EXPECT_LT(r[size_t(k)].v.norm() + r[size_t(k)].w.norm(), 1e-2) << "body " << k;
}

// Worlds made by add_builder copy a mesh body; the copies share one distance grid (finalize builds
// it once) and each world's mesh rests as the others' (an icosphere of 162 vertices on a face,
// just under its radius).
TEST(RigidBodies, CopiedMeshBodiesShareOneGrid) {
    REQUIRE_CPU();
    ModelBuilder one;
    const int body = one.add_body(Vec3(0, 0.2f, 0), Quat(Eigen::AngleAxisf(0.3f, Vec3(1, 0, 0))));
    one.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), icosphere(0.1f, 2));
    ModelBuilder worlds;
    for (int w = 0; w < 3; ++w) worlds.add_builder(one, {Vec3(float(w), 0, 0), Quat::Identity()});
    Model m = worlds.finalize("cpu");
    std::vector<int> dims(12);
    m.shape_sdf_dims.copy_to_host(dims.data(), dims.size() * sizeof(int));
    EXPECT_EQ(m.shape_sdf_size, dims[1] * dims[2] * dims[3]) << "one grid for the three copies";
    for (int w = 1; w < 3; ++w)
        for (int k = 0; k < 4; ++k) EXPECT_EQ(dims[size_t(4 * w + k)], dims[size_t(k)]);
    EXPECT_EQ(m.shape_point_count, 3 * 162);  // each copy keeps its own points
    std::unique_ptr<Integrator> it = create_integrator("xpbd");
    auto r = bodies_of(rollout(m, *it, 400, 2e-3f));
    for (int w = 1; w < 3; ++w) {
        // (the same steps in float32 about origins 1 m apart: equal to rounding)
        EXPECT_NEAR(r[size_t(w)].p.y(), r[0].p.y(), 1e-6) << "world " << w;
        EXPECT_NEAR(r[size_t(w)].p.x(), r[0].p.x() + w, 1e-6) << "world " << w;
    }
    EXPECT_NEAR(r[0].p.y(), 0.1, 2e-3) << "the icosphere rests on its vertices";
}

// The Tape's gradient of a mesh body's landing place with respect to its throwing velocity (its
// vertices, from the shape's point table, meet the ground), against central differences.
TEST(RigidBodies, GradientOfAMeshThrowMatchesFiniteDifferences) {
    REQUIRE_CPU();
    auto build = [](const Eigen::Vector3f& v0) {
        ModelBuilder b;
        ShapeParams p;
        p.kd = 200.0f;
        const int body = b.add_body(Vec3(0, 0.12f, 0), Quat(Eigen::AngleAxisf(0.05f, Vec3(0, 0, 1))));
        b.add_shape_mesh(body, Vec3::Zero(), Quat::Identity(), box_mesh(0.1f, 0.1f, 0.1f), Vec3::Ones(), p);
        b.set_body_velocity(body, Vec3(0, 2, 0), v0);
        return b;
    };
    const int steps = 120;
    const float dt = 1e-3f;
    auto loss_module = runtime::Module::compile({{"loss.py", kBodyLoss}});
    runtime::Kernel loss_k = loss_module->kernel("body_x_loss");
    auto forward_loss = [&](const Eigen::Vector3f& v0) {
        Model m = build(v0).finalize("cpu");
        SemiImplicitIntegrator it;
        State s = rollout(m, it, steps, dt);
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device);
        launch_body_loss(loss_k, m, s, loss);
        return double(tape::read_scalars(loss)[0]);
    };
    const Eigen::Vector3f v0(1.0f, -0.5f, 0.2f);
    Model m = build(v0).finalize("cpu", true);
    SemiImplicitIntegrator it;
    const State s0 = rollout_gradient(m, it, steps, dt,
                                      [&](const State& s, const runtime::Array& loss) { launch_body_loss(loss_k, m, s, loss); });
    std::vector<double> g = tape::read_scalars(*s0.body_qd.grad());
    ASSERT_EQ(g.size(), 6u);
    // The horizontal components (the vertical one changes which corner lands first; see
    // rigid_body_test.cpp's box throw).
    for (int c : {0, 2}) {
        double best = INFINITY, fd_best = 0;
        for (float eps : {4e-3f, 1e-3f}) {
            Eigen::Vector3f hi = v0, lo = v0;
            hi[c] += eps;
            lo[c] -= eps;
            double fd = (forward_loss(hi) - forward_loss(lo)) / (2 * eps);
            std::printf("component %d: adjoint %.5f, central difference (eps %.0e) %.5f\n", c, g[size_t(3 + c)], eps, fd);
            if (std::abs(fd - g[size_t(3 + c)]) < best) best = std::abs(fd - g[size_t(3 + c)]), fd_best = fd;
        }
        EXPECT_NEAR(g[size_t(3 + c)], fd_best, 0.02 * std::abs(fd_best) + 2e-3) << "component " << c;
    }
}

}  // namespace
