// Particle contact with mesh shapes (ModelBuilder::add_shape_mesh, kernels/contact.py and xpbd.py):
// a particle rests on a mesh box where it rests on the analytic box; a particle sliding on a
// tilted mesh quad stops where v0^2 / (2 g (mu cos a - sin a)) says and where it stops on the
// analytic plane; XPBD rests on a mesh as on the box; the Tape's gradient through mesh contact
// agrees with central finite differences and with the gradient through the analytic box; and
// add_shape_mesh names each mistake.
#include <functional>

#include "runtime/recorder.h"
#include "tape/tape.h"
#include "tests/engine/engine_test_util.h"
#include "tests/engine/mesh_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

constexpr double kG = 9.80665;

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
    if (mesh) b.add_shape_mesh(Vec3::Zero(), quad_mesh(2.0f), tilt);
    else b.add_shape_plane(Eigen::Vector4f(-std::sin(float(angle)), std::cos(float(angle)), 0, 0));
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
        if (kind == IcosphereMesh) b.add_shape_mesh(Vec3(0, 0, 0), icosphere(0.5f, 3));
        else b.add_shape_sphere(Vec3(0, 0, 0), 0.5f);
        Vec3 dir = Vec3(-0.1f, 1.0f, 0.04f).normalized(), v(1.0f, 0.0f, 0.3f);
        b.add_particle(dir * (0.5f + r - depth), v - dir * dir.dot(v), mass, r);
    } else {
        if (kind == MeshBox) b.add_shape_mesh(Vec3(0, 0, 0), box_mesh(1.0f, 0.2f, 1.0f));
        else b.add_shape_box(Vec3(0, 0, 0), 1.0f, 0.2f, 1.0f);
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

TEST(MeshContact, AddShapeMeshNamesMistakes) {
    auto error_of = [](const std::function<void(ModelBuilder&)>& f) -> std::string {
        ModelBuilder b;
        try {
            f(b);
        } catch (const BuildError& e) {
            return e.what();
        }
        return "(no error)";
    };
    Mesh box = box_mesh(0.5f, 0.5f, 0.5f);
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {}}); }),
              "add_shape_mesh: the mesh has no triangles");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 2, 3}}); }),
              "add_shape_mesh: the mesh has 4 indices, not a multiple of 3");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 2, 3, 4, 8}}); }),
              "add_shape_mesh: index 8 (triangle 1) is out of range (the mesh has 8 vertices)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, -1}}); }),
              "add_shape_mesh: index -1 (triangle 0) is out of range (the mesh has 8 vertices)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) {
                  Mesh m = box;
                  m.vertices[3].x() = NAN;
                  b.add_shape_mesh(Vec3::Zero(), m);
              }),
              "add_shape_mesh: vertex 3 is not finite");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3(1, 0, 1)); }),
              "add_shape_mesh: scale must be > 0 on every axis, got (1, 0, 1)");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3::Ones(), 0.0f, 2); }),
              "add_shape_mesh: sdf_resolution must be from 4 to 512, got 2");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box, Quat::Identity(), Vec3::Ones(), -0.1f); }),
              "add_shape_mesh: thickness must be >= 0, got -0.1");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), Mesh{box.vertices, {0, 1, 1, 2, 2, 2}}); }),
              "add_shape_mesh: every triangle of the mesh has zero area");
    EXPECT_EQ(error_of([&](ModelBuilder& b) { b.add_shape_mesh(Vec3::Zero(), box); }), "(no error)");
}

}  // namespace
