// FrameStepper (engine/stepper.h): frames advanced by the stepper equal the same steps taken one by one, bit for bit, with an even and an odd number of
// substeps; on a cuda device (skipped without one) the frames after the first replay a CUDA graph
// and still give the same bits as launching every step eagerly.
#include <cstring>

#include "engine/stepper.h"
#include "runtime/errors.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

Model small_cloth(const std::string& device) {
    ModelBuilder b(-9.81f);
    SpringGridDef d;
    d.dim_x = d.dim_z = 12;
    b.add_spring_grid(d);
    b.add_shape_sphere(Vec3(0.5f, -0.4f, 0.5f), 0.3f);
    return b.finalize(device);
}

// Positions after `frames` frames of `substeps` steps: through a FrameStepper, or step by step.
std::vector<std::array<float, 3>> run(const std::string& device, int substeps, int frames, bool stepper, bool graphs,
                                      bool* used_graph = nullptr, bool launch_lists = false, bool* used_list = nullptr) {
    Model m = small_cloth(device);
    State a = m.state(), b = m.state();
    SemiImplicitIntegrator integ;
    const float dt = 1.0f / (60.0f * float(substeps));
    if (!stepper) {
        for (int s = 0; s < substeps * frames; ++s) {
            integ.simulate(m, a, b, dt);
            std::swap(a, b);
        }
        return host_vec3(a.particle_q);
    }
    FrameStepper fs(
        m, a, b, substeps, [&](State& in, State& out) { integ.simulate(m, in, out, dt); }, graphs, launch_lists);
    for (int f = 0; f < frames; ++f) fs.advance();
    if (used_list) *used_list = fs.uses_launch_list();
    if (launch_lists) EXPECT_EQ(fs.why_not_listed(), "");
    EXPECT_EQ(fs.frames(), frames);
    EXPECT_EQ(&fs.current(), (substeps * frames) % 2 == 0 ? &a : &b) << "the state the last step wrote";
    if (used_graph) *used_graph = fs.uses_graph();
    return host_vec3(fs.current().particle_q);
}

bool same_bits(const std::vector<std::array<float, 3>>& x, const std::vector<std::array<float, 3>>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
}

TEST(FrameStepper, FramesEqualTheStepsOneByOneWithEvenAndOddSubsteps) {
    REQUIRE_CPU();
    for (int substeps : {4, 3}) {
        SCOPED_TRACE("substeps " + std::to_string(substeps));
        bool graph = true;
        auto framed = run("cpu", substeps, 5, true, true, &graph);
        EXPECT_FALSE(graph) << "no CUDA graph on the cpu device";
        EXPECT_TRUE(same_bits(framed, run("cpu", substeps, 5, false, false)));
    }
}

TEST(FrameStepper, RefusesBadArguments) {
    REQUIRE_CPU();
    Model m = small_cloth("cpu");
    State a = m.state(), b = m.state();
    auto step = [](State&, State&) {};
    try {
        FrameStepper(m, a, b, 0, step);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "FrameStepper: substeps must be >= 1, got 0"); }
    try {
        FrameStepper(m, a, a, 2, step);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "FrameStepper: the two states must be different objects"); }
}

TEST(FrameStepper, CudaGraphFramesEqualEagerFrames) {
    const runtime::Device cuda{runtime::DeviceKind::Cuda, 0, {}};
    if (!runtime::device_available(cuda)) GTEST_SKIP() << "no CUDA device here";
    for (int substeps : {4, 3}) {
        SCOPED_TRACE("substeps " + std::to_string(substeps));
        bool graph = false;
        auto framed = run("cuda:0", substeps, 6, true, true, &graph);
        EXPECT_TRUE(graph) << "frames after the first replay a CUDA graph";
        EXPECT_TRUE(same_bits(framed, run("cuda:0", substeps, 6, true, false)));
        EXPECT_TRUE(same_bits(framed, run("cuda:0", substeps, 6, false, false)));
    }
}

// Launch lists (runtime/launch_list.h): the frames after the first run as ONE launch, and give the
// bits of the steps launched one by one. On sim:h200 here (a step per simulated launch of the list's grid);
// on cuda:0 (skipped without one) as a cooperative grid of many blocks with grid barriers.
TEST(FrameStepper, LaunchListFramesEqualEagerFrames) {
    std::vector<std::string> devices = {"sim:h200"};
    if (runtime::device_available(runtime::Device{runtime::DeviceKind::Cuda, 0, {}})) devices.push_back("cuda:0");
    for (const std::string& device : devices) {
        SCOPED_TRACE(device);
        for (int substeps : {2, 3}) {
            SCOPED_TRACE("substeps " + std::to_string(substeps));
            bool graph = false, listed = false;
            auto framed = run(device, substeps, 3, true, true, &graph, true, &listed);
            EXPECT_TRUE(graph) << "frames after the first are replayed";
            EXPECT_TRUE(listed) << "as a launch list";
            EXPECT_TRUE(same_bits(framed, run(device, substeps, 3, false, false)));
        }
    }
}

}  // namespace
