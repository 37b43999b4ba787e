// Gradients through the solvers: a short rollout is recorded on the Tape (one State per step),
// the loss L = sum_i (1 + 0.3 i) q_i . (1, 0.5, 0.25) of the final positions (weights that differ
// per particle, so internal forces change it) is differentiated, and the
// gradients with respect to an initial velocity and a material parameter are compared with
// central finite differences of the same rollout run forward only, and with golden values, through
// tape/testing.h (the mechanism of `weft gradcheck`). Each solver part is covered:
// springs, triangle membranes with bending and ground contact, neo-Hookean tetrahedra, particle
// contact through the hash grid, and XPBD (springs, tetrahedra, ground).
#include <functional>

#include "runtime/memory_stats.h"
#include "runtime/recorder.h"
#include "tape/checkpoint.h"
#include "tape/tape.h"
#include "tape/testing.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

const char* kLoss = R"(
import weft as wp

@wp.kernel
def position_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, (1.0 + 0.3 * float(i)) * wp.dot(q[i], wp.vec3(1.0, 0.5, 0.25)))
)";

struct Case {
    std::string name;
    std::function<void(ModelBuilder&)> build;
    bool xpbd = false;
    int steps = 20;
    float dt = 1e-3f;
    // the material parameter: an array of the model and the flat float index in it
    std::function<runtime::Array(const Model&)> param;
    int param_index = 0;
    double param_eps = 0.0;  // absolute step for its finite difference
    // golden values of the two gradients (this implementation, 2026-12-02): a change is a regression
    // unless explained
    double golden_v = 0.0, golden_p = 0.0;
};

double host_loss(const State& s) {
    double l = 0;
    auto q = host_vec3(s.particle_q);
    for (size_t i = 0; i < q.size(); ++i) l += (1.0 + 0.3 * double(i)) * (q[i][0] + 0.5 * q[i][1] + 0.25 * q[i][2]);
    return l;
}

// Runs the rollout from (model, initial state); returns the final state. New states every step.
State forward(const Model& m, const State& s0, const Case& c, std::vector<State>* keep) {
    SemiImplicitIntegrator si;
    XPBDIntegrator xp(3);
    State cur = s0;
    for (int k = 0; k < c.steps; ++k) {
        State next = m.state();
        cur.clear_forces();
        if (c.xpbd)
            xp.simulate(m, cur, next, c.dt);
        else
            si.simulate(m, cur, next, c.dt);
        if (keep) keep->push_back(cur);
        cur = next;
    }
    return cur;
}

void check_case(const Case& c) {
    SCOPED_TRACE(c.name);
    ModelBuilder b;
    c.build(b);
    Model m = b.finalize("cpu", true);
    auto loss_module = runtime::Module::compile({{"loss.py", kLoss}});
    runtime::Kernel loss_k = loss_module->kernel("position_loss");
    runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, true);

    State s0 = m.state();
    tape::Tape tape;
    std::vector<State> keep;
    {
        runtime::ScopedRecorder rec(&tape);
        State last = forward(m, s0, c, &keep);
        keep.push_back(last);
        runtime::LaunchOptions o;
        o.device = m.device;
        runtime::launch(loss_k, {m.particle_count}, {runtime::LaunchArg::of(last.particle_q), runtime::LaunchArg::of(loss)}, o);
    }
    tape.backward(loss);
    const int p = m.particle_count - 1, comp = 1;  // the last particle's initial y velocity

    // The Tape's two gradients against central differences of the forward rollout and against
    // their goldens, by the mechanism of `weft gradcheck` (tape/testing.h).
    tape::CheckedParam v0;
    v0.name = "d loss / d v0";
    v0.array = s0.particle_qd;
    v0.scalars = {3 * p + comp};
    v0.adjoint = {tape::read_scalars(*s0.particle_qd.grad())[size_t(3 * p + comp)]};
    v0.eps = 1e-2;
    v0.rtol = 0.02;
    runtime::Array param = c.param(m);
    tape::CheckedParam mat;
    mat.name = "d loss / d parameter";
    mat.array = param;
    mat.scalars = {c.param_index};
    mat.adjoint = {tape::read_scalars(*param.grad())[size_t(c.param_index)]};
    mat.eps = c.param_eps;
    mat.rtol = 0.05;
    tape::GradientCheckOptions options;
    options.atol = 1e-4;
    auto forward_loss = [&] { return host_loss(forward(m, s0, c, nullptr)); };
    EXPECT_TRUE(tape::testing::gradients_close(forward_loss, host_loss(keep.back()), {v0, mat}, options,
                                               tape::testing::golden({{v0.name, {c.golden_v}}, {mat.name, {c.golden_p}}})));
    EXPECT_GT(std::abs(mat.adjoint[0]), 1e-6) << "the parameter must matter for the check to mean anything (the adjoint "
                                                 "is checked against finite differences above)";
}

TEST(Gradients, SemiImplicitSprings) {
    REQUIRE_CPU();
    check_case({"springs",
                [](ModelBuilder& b) {
                    b.ground = false;
                    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 0.0f);
                    b.add_particle(Vec3(0.3f, 0.9f, 0), Vec3(0, 0.5f, 0), 0.1f);
                    b.add_particle(Vec3(0.5f, 0.7f, 0.1f), Vec3(0.2f, 0, 0), 0.1f);
                    b.add_spring(0, 1, 200.0f, 1.0f, 0.25f);
                    b.add_spring(1, 2, 100.0f, 0.5f, 0.2f);
                },
                false, 40, 1e-3f, [](const Model& m) { return m.spring_stiffness; }, 1, 5.0, 0.0338123, -0.000247972});
}

TEST(Gradients, SemiImplicitClothOnGround) {
    REQUIRE_CPU();
    check_case({"cloth",
                [](ModelBuilder& b) {
                    b.soft_contact_ke = 1e3f;
                    b.soft_contact_kd = 5.0f;
                    b.soft_contact_mu = 0.0f;
                    ClothGridDef c;
                    c.dim_x = c.dim_y = 3;
                    c.cell_x = c.cell_y = 0.1f;
                    c.pos = Vec3(0, 0.11f, 0);
                    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
                    c.vel = Vec3(0, -1, 0);
                    c.tri_ke = c.tri_ka = 100.0f;
                    c.tri_kd = 0.5f;
                    c.edge_ke = 0.5f;
                    c.particle_radius = 0.05f;
                    b.add_cloth_grid(c);
                    b.particle_q[5] += Vec3(0, 0.02f, 0);  // not flat: bending acts
                },
                false, 60, 1e-3f, [](const Model& m) { return m.tri_activations; }, 2, 0.005, 0.0832837, -0.0128423});
}

TEST(Gradients, SemiImplicitTetrahedra) {
    REQUIRE_CPU();
    check_case({"tetrahedra",
                [](ModelBuilder& b) {
                    b.ground = false;
                    SoftGridDef d;
                    d.cell_x = d.cell_y = d.cell_z = 0.1f;
                    d.density = 100.0f;
                    d.k_mu = 500.0f;
                    d.k_lambda = 2000.0f;
                    d.k_damp = 0.1f;
                    d.fix_left = true;
                    b.add_soft_grid(d);
                },
                false, 40, 1e-3f, [](const Model& m) { return m.tet_activations; }, 1, 0.05, 0.0504283, -0.0620188});
}

TEST(Gradients, SemiImplicitParticleContact) {
    REQUIRE_CPU();
    check_case({"particle contact",
                [](ModelBuilder& b) {
                    b.ground = false;
                    b.particle_contact = true;
                    b.particle_ke = 1e3f;
                    b.particle_kd = 1.0f;
                    b.particle_mu = 0.0f;
                    b.add_particle(Vec3(0, 0, 0), Vec3(1, 0, 0), 0.1f, 0.1f);
                    b.add_particle(Vec3(0.21f, 0.05f, 0), Vec3(-1, 0, 0), 0.1f, 0.1f);
                },
                false, 60, 1e-3f, [](const Model& m) { return m.particle_inv_mass; }, 0, 0.5, 0.034264, -0.00943301});
}

TEST(Gradients, XpbdSpringsTetsAndGround) {
    REQUIRE_CPU();
    check_case({"xpbd",
                [](ModelBuilder& b) {
                    SoftGridDef d;
                    d.pos = Vec3(0, 0.05f, 0);
                    d.cell_x = d.cell_y = d.cell_z = 0.1f;
                    d.density = 100.0f;
                    d.k_mu = 500.0f;
                    d.k_lambda = 2000.0f;
                    d.vel = Vec3(0.5f, -1.0f, 0);
                    d.particle_radius = 0.05f;
                    b.add_soft_grid(d);
                    int top = b.add_particle(Vec3(0.05f, 0.4f, 0.05f), Vec3::Zero(), 0.1f, 0.02f);
                    b.add_spring(top, 6, 300.0f, 0.0f);
                },
                true, 20, 4e-3f, [](const Model& m) { return m.spring_stiffness; }, 0, 20.0, 0.00967506, 1.64268e-05});
}

// A small cloth lying in the x-z plane, moving at `vel`, with membranes and bending, on the CPU
// with gradients: the model of the two tests below.
Model small_cloth(int dim, Vec3 vel) {
    ModelBuilder b;
    ClothGridDef c;
    c.dim_x = c.dim_y = dim;
    c.cell_x = c.cell_y = 0.1f;
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
    c.vel = vel;
    c.tri_ke = c.tri_ka = 100.0f;
    c.edge_ke = 0.5f;
    b.add_cloth_grid(c);
    return b.finalize("cpu", true);
}

// A recorded semi-implicit step is one Tape record, and what a recorded rollout holds per State
// is positions and velocities with their gradients, and the force: no per-element force slots
// (the integrator's shared scratch; the adjoints never need their values). The gradients of
// that layout are the ones the cases above check against finite differences.
TEST(Gradients, RecordedStepsKeepNoForceSlotsPerState) {
    REQUIRE_CPU();
    Model m = small_cloth(8, Vec3::Zero());
    ASSERT_GT(m.term_layout.count, 4 * m.particle_count);  // the slots would dwarf a State
    SemiImplicitIntegrator integ;
    std::vector<State> states;
    for (int k = 0; k <= 4; ++k) states.push_back(m.state());
    integ.simulate(m, states[0], states[1], 1e-3f);  // the integrator's scratch, allocated once
    const size_t before = runtime::memory_stats().live_bytes;
    for (int k = 0; k <= 4; ++k) states.push_back(m.state());
    const size_t per_state = (runtime::memory_stats().live_bytes - before) / 5;
    EXPECT_EQ(per_state, size_t(m.particle_count) * 12 * 5) << "q, qd, f and the gradients of q and qd";
    tape::Tape tape;
    {
        runtime::ScopedRecorder rec(&tape);
        for (int k = 0; k < 4; ++k) integ.simulate(m, states[size_t(k)], states[size_t(k) + 1], 1e-3f);
    }
    ASSERT_EQ(tape.records().size(), 4u);
    EXPECT_EQ(tape.records()[0].kind, tape::Record::Func);
    EXPECT_EQ(tape.records()[0].name, "semi-implicit step");
    const size_t scratch_grads = (size_t(m.term_layout.count) + size_t(m.particle_count)) * 12;
    EXPECT_EQ(runtime::memory_stats().live_bytes - before, 5 * per_state + scratch_grads)
        << "recording adds only the scratch gradients of the slots and of the force, once";
}

// Checkpointed segments of a rollout (tape::checkpoint) share the integrator's scratch slots:
// two segments on one tape are not an overwrite, and the gradient equals the plain tape's.
TEST(Gradients, CheckpointedSegmentsOfASemiImplicitRollout) {
    REQUIRE_CPU();
    Model m = small_cloth(4, Vec3(0.3f, 0, 0));
    auto loss_module = runtime::Module::compile({{"loss.py", kLoss}});
    SemiImplicitIntegrator integ;
    const float dt = 1e-3f;
    auto step = [&](int, const tape::StateArrays& in, tape::StateArrays& out) {
        State a = m.state(0), z = m.state(0);
        a.particle_q = in[0];
        a.particle_qd = in[1];
        z.particle_q = out[0];
        z.particle_qd = out[1];
        integ.simulate(m, a, z, dt);
    };
    auto gradient = [&](bool checkpointed) {
        State s0 = m.state(), mid = m.state(), s1 = m.state();
        runtime::Array loss = runtime::Array::zeros(compiler::float32_type(), {1}, m.device, true);
        tape::Tape tape;
        {
            runtime::ScopedRecorder rec(&tape);
            tape::StateArrays a = {s0.particle_q, s0.particle_qd}, h = {mid.particle_q, mid.particle_qd},
                              z = {s1.particle_q, s1.particle_qd};
            if (checkpointed) {
                tape::checkpoint(step, 6, a, h);
                tape::checkpoint(step, 6, h, z);
            } else {
                std::vector<State> states;
                for (int k = 0; k <= 12; ++k) states.push_back(m.state());
                states[0] = s0;
                states[12] = s1;
                for (int k = 0; k < 12; ++k) integ.simulate(m, states[size_t(k)], states[size_t(k) + 1], dt);
            }
            runtime::LaunchOptions o;
            o.device = m.device;
            runtime::launch(loss_module->kernel("position_loss"), {m.particle_count},
                            {runtime::LaunchArg::of(s1.particle_q), runtime::LaunchArg::of(loss)}, o);
        }
        tape.backward(loss);
        std::vector<float> g(size_t(m.particle_count) * 3);
        s0.particle_qd.grad()->copy_to_host(g.data(), g.size() * sizeof(float));
        return g;
    };
    std::vector<float> plain = gradient(false), segmented = gradient(true);
    for (size_t i = 0; i < plain.size(); ++i) EXPECT_NEAR(segmented[i], plain[i], 1e-5 * (1 + std::abs(plain[i]))) << i;
}

}  // namespace
