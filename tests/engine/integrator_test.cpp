// engine/integrator.h: the step contract, checked for every registered integrator on a model that
// has every part (particle contact, springs, cloth with bending, a soft body, static shapes, a smoke grid):
// simulate() leaves state_in bit for bit as it was, writes in state_out only the arrays its info
// lists, launches only kernels its info lists, and describes what it draws; and every integrator
// gives the same bits with 1 and 4 CPU threads.
#include <cstring>
#include <set>

#include "engine/integrator_registry.h"
#include "engine/solver_kernels.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

Model everything() {
    ModelBuilder b;
    b.particle_contact = true;
    b.particle_ke = 1e3f;
    for (int k = 0; k < 6; ++k)
        b.add_particle(Vec3(0.05f * float(k), 0.3f + 0.05f * float(k % 2), 0), Vec3(1, 0, 0), 0.1f, 0.03f);
    b.add_spring(0, 1, 100.0f, 1.0f);
    b.add_spring(1, 2, 100.0f, 1.0f, 0.2f);
    ClothGridDef c;
    c.dim_x = c.dim_y = 3;
    c.pos = Vec3(0.5f, 0.2f, 0);
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
    c.vel = Vec3(0, -1, 0);
    c.add_springs = true;
    b.add_cloth_grid(c);
    SoftGridDef s;
    s.pos = Vec3(-0.5f, 0.05f, 0);
    s.vel = Vec3(0, -2, 0);
    b.add_soft_grid(s);
    b.add_shape_sphere(Vec3(0.6f, 0.0f, 0.1f), 0.15f);
    b.add_shape_box(Vec3(-0.45f, 0.0f, 0.05f), 0.1f, 0.05f, 0.1f);
    // a smoke grid around it all, whose buoyant source stirs the air (the smoke integrator moves
    // the particles as tracers)
    b.smoke.resolution = {6, 4, 3};
    b.smoke.cell_size = 0.25f;
    b.smoke.origin = {-0.75f, -0.25f, -0.375f};
    b.smoke.sources.push_back({SmokeShape_Sphere, {0.0f, 0.1f, 0.0f}, {0.3f, 0, 0}, {0, 0, 0}, 10.0f, false});
    return b.finalize("cpu");
}

// The mpm integrator simulates only models made of MPM volumes (engine/mpm.h): it gets a block of
// two materials falling in a box instead.
Model model_for(const std::string& integrator, const Model& everything_model) {
    if (integrator == "featherstone") {  // articulations only (engine_test_util.h), the base spinning
        ModelBuilder b = limbed_box();
        b.joint_qd[0] = 1.0f;
        return b.finalize("cpu");
    }
    if (integrator != "mpm") return everything_model;
    ModelBuilder b;
    b.mpm_grid.dx = 0.05f;
    b.mpm_grid.cells = {12, 12, 12};
    MpmVolumeDef v;
    v.lo = Vec3(0.2f, 0.2f, 0.2f);
    v.hi = Vec3(0.3f, 0.3f, 0.3f);
    v.vel = Vec3(1, 0, 0);
    b.add_mpm_volume(v);
    v.lo.y() = 0.3f;
    v.hi.y() = 0.4f;
    v.material = MpmMaterial::Sand;
    b.add_mpm_volume(v);
    return b.finalize("cpu");
}

std::vector<std::byte> bytes_of(const runtime::Array& a) {
    std::vector<std::byte> out(a.valid() ? a.nbytes() : 0);
    if (a.valid()) a.copy_to_host(out.data(), out.size());
    return out;
}

std::map<std::string, std::vector<std::byte>> snapshot(const State& s) {
    std::map<std::string, std::vector<std::byte>> out;
    for (const std::string& name : state_array_names()) out[name] = bytes_of(state_array(s, name));
    return out;
}

// Every kernel launched while it is active.
struct KernelLog : runtime::Recorder {
    std::set<std::string> names;
    void on_launch(const runtime::Kernel& k, const std::vector<int64_t>&, const std::vector<runtime::LaunchArg>&,
                   const runtime::LaunchOptions&) override {
        names.insert(k.name());
    }
    void on_copy(const runtime::Array&, const runtime::Array&) override {}
    void on_overwrite(const runtime::Array&, const char*) override {}
};

TEST(Integrator, SimulateLeavesStateInUnchangedAndWritesOnlyWhatItSays) {
    REQUIRE_CPU();
    Model everything_model = everything();
    ASSERT_GT(everything_model.spring_count, 0);
    ASSERT_GT(everything_model.tri_count, 0);
    ASSERT_GT(everything_model.edge_count, 0);
    ASSERT_GT(everything_model.tet_count, 0);
    for (const std::string& name : integrator_names()) {
        SCOPED_TRACE(name);
        auto it = create_integrator(name);
        EXPECT_EQ(it->name(), name);
        const Model m = model_for(name, everything_model);
        State s0 = m.state(), s1 = m.state(), s2 = m.state();
        it->simulate(m, s0, s1, 1e-3f);  // s1 now holds what a step writes (forces, a hash grid)
        it->simulate(m, s1, s0, 1e-3f);
        it->simulate(m, s0, s1, 1e-3f);
        auto before_in = snapshot(s1);
        auto before_out = snapshot(s2);
        KernelLog log;
        {
            runtime::ScopedRecorder scope(&log);
            it->simulate(m, s1, s2, 1e-3f, nullptr);
        }
        EXPECT_EQ(snapshot(s1), before_in) << "simulate() wrote state_in";
        auto after_out = snapshot(s2);
        const auto& writes = it->info().state_writes;
        for (const std::string& array : state_array_names()) {
            bool listed = std::find(writes.begin(), writes.end(), array) != writes.end();
            if (!listed) EXPECT_EQ(after_out[array], before_out[array]) << array << " is written but not in state_writes";
        }
        EXPECT_NE(after_out[name == "featherstone" ? "joint_q" : "particle_q"],
                  before_out[name == "featherstone" ? "joint_q" : "particle_q"]);
        std::set<std::string> declared;
        for (const KernelRef& k : it->info().kernels) declared.insert(k.name);
        for (const std::string& k : log.names) EXPECT_TRUE(declared.count(k)) << k << " is launched but not in info().kernels";
        for (const std::string& array : it->info().state_reads) EXPECT_NO_THROW(state_array(s1, array));
    }
}

TEST(Integrator, InfoNamesRealKernelsAndStateArrays) {
    for (const std::string& name : integrator_names()) {
        SCOPED_TRACE(name);
        const IntegratorInfo& info = integrator_info(name);
        EXPECT_FALSE(info.summary.empty());
        EXPECT_FALSE(info.kernels.empty());
        for (const KernelRef& k : info.kernels) EXPECT_NO_THROW(solver_kernel(k.group, k.name)) << k.group << "/" << k.name;
        if (runtime::device_available(runtime::Device{}))
            EXPECT_NO_THROW(load_kernels(info, runtime::Device{}, /*backward=*/true));
        for (const auto& a : info.state_reads)
            EXPECT_NE(std::find(state_array_names().begin(), state_array_names().end(), a), state_array_names().end()) << a;
        for (const auto& a : info.state_writes)
            EXPECT_NE(std::find(state_array_names().begin(), state_array_names().end(), a), state_array_names().end()) << a;
        EXPECT_TRUE(info.can(IntegratorCaps_Differentiable));
    }
}

TEST(Integrator, StepChecksNameTheProblem) {
    REQUIRE_CPU();
    Model m = everything();
    ModelBuilder other;
    other.add_particle(Vec3::Zero(), Vec3::Zero(), 1.0f);
    Model small = other.finalize("cpu");
    State a = m.state(), b = m.state(), c = small.state();
    for (const std::string& name : integrator_names()) {
        auto it = create_integrator(name);
        try {
            it->simulate(m, a, c, 1e-3f);
            ADD_FAILURE() << "no error";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_EQ(std::string(e.what()), "simulate: the states do not belong to this model (" +
                                                 std::to_string(m.particle_count) + " and 1 particles, the model has " +
                                                 std::to_string(m.particle_count) + ")");
        }
        try {
            it->simulate(m, a, b, 0.0f);
            ADD_FAILURE() << "no error";
        } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "simulate: dt must be > 0, got 0.000000"); }
    }
}

// A State array replaced by one of another size, type or device is named with both shapes before
// any kernel indexes it (a wrong-sized particle_q was read past its end).
TEST(Integrator, StateArraysAreCheckedAgainstTheModel) {
    REQUIRE_CPU();
    Model m = everything();
    const std::string n = std::to_string(m.particle_count);
    for (const std::string& name : integrator_names()) {
        auto it = create_integrator(name);
        State a = m.state(), b = m.state();
        a.particle_q = Array::zeros(vec3_type(), {3}, m.device);
        try {
            it->simulate(m, a, b, 1e-3f);
            ADD_FAILURE() << "no error";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_EQ(std::string(e.what()),
                      "simulate: state_in.particle_q is array(vec3f, shape=(3,), device=cpu); the model "
                      "needs array(vec3f, shape=(" +
                          n + ",), device=cpu)");
        }
        a = m.state();
        b.particle_qd = Array::zeros(compiler::float32_type(), {m.particle_count}, m.device);
        try {
            it->simulate(m, a, b, 1e-3f);
            ADD_FAILURE() << "no error";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_EQ(std::string(e.what()), "simulate: state_out.particle_qd is array(float32, shape=(" + n +
                                                 ",), device=cpu); the model needs array(vec3f, shape=(" + n + ",), device=cpu)");
        }
        b = m.state();
        Control c;
        c.particle_f = Array::zeros(vec3_type(), {m.particle_count + 1}, m.device);
        try {
            it->simulate(m, a, b, 1e-3f, &c);
            ADD_FAILURE() << "no error";
        } catch (const runtime::RuntimeError& e) {
            EXPECT_NE(std::string(e.what()).find("simulate: control.particle_f is array(vec3f, shape=(" +
                                                 std::to_string(m.particle_count + 1) + ",)"),
                      std::string::npos)
                << e.what();
        }
    }
}

TEST(Determinism, SameBitsWithOneAndFourThreads) {
    REQUIRE_CPU();
    // Cloth (triangles, bending, springs) falling on a pile of contacting particles and a sphere.
    ModelBuilder b;
    b.particle_contact = true;
    ClothGridDef c;
    c.dim_x = c.dim_y = 12;
    c.cell_x = c.cell_y = 0.05f;
    c.pos = Vec3(-0.3f, 0.6f, 0.3f);
    c.rot = Quat(Eigen::AngleAxisf(-float(M_PI) / 2, Vec3(1, 0, 0)));
    c.add_springs = true;
    c.particle_radius = 0.02f;
    b.add_cloth_grid(c);
    for (int k = 0; k < 64; ++k)
        b.add_particle(Vec3(0.04f * float(k % 4), 0.3f + 0.04f * float(k / 16), 0.04f * float((k / 4) % 4)), Vec3::Zero(), 0.01f,
                       0.02f);
    b.add_shape_sphere(Vec3(0, 0, 0), 0.2f);
    Model m = b.finalize("cpu");
    uint64_t hashes[2][2];
    for (int t = 0; t < 2; ++t) {
        runtime::set_cpu_threads(t == 0 ? 1 : 4);
        SemiImplicitIntegrator si;
        hashes[0][t] = hash_state(rollout(m, si, 200, 1e-3f));
        XPBDIntegrator xp(3);
        hashes[1][t] = hash_state(rollout(m, xp, 50, 4e-3f));
    }
    runtime::set_cpu_threads(0);
    EXPECT_EQ(hashes[0][0], hashes[0][1]) << "semi-implicit";
    EXPECT_EQ(hashes[1][0], hashes[1][1]) << "xpbd";
}

// MPM's p2g scatters with atomic float adds, whose order depends on the threads: the same bits
// are not promised, only agreement to rounding (see docs/mpm.md).
TEST(Determinism, MpmAgreesWithOneAndFourThreadsToRounding) {
    REQUIRE_CPU();
    Model m = model_for("mpm", Model());
    std::vector<std::array<float, 3>> q[2];
    for (int t = 0; t < 2; ++t) {
        runtime::set_cpu_threads(t == 0 ? 1 : 4);
        auto it = create_integrator("mpm");
        q[t] = host_vec3(rollout(m, *it, 50, 1e-3f).particle_q);
    }
    runtime::set_cpu_threads(0);
    for (size_t p = 0; p < q[0].size(); ++p)
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(q[0][p][size_t(k)], q[1][p][size_t(k)], 1e-5);
}

}  // namespace
