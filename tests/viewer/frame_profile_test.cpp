// tests/viewer/frame_profile_test.cpp: a frame on sim:h200 profiled: its kernels are every kernel
// the sim device's reports list for that frame, with the reports' cycles (summed here another
// way, from the raw per-launch reports), ranked; each line's share is of its kernel and its text is
// the line of kernels/*.py.
#include "viewer/frame_profile.h"

#include <gtest/gtest.h>

#include "tests/viewer/viewer_test_util.h"

#include <map>

#include "runtime/errors.h"
#include "runtime/kernel_timing.h"
#include "runtime/sim/sim_backend.h"
#include "viewer/session.h"

namespace weft::viewer {
namespace {

TEST(FrameProfileTest, OneSimulatedFrame) {
    engine::Scene scene = engine::load_scene(WEFT_SOURCE_DIR "/scenes/spring_chain.toml");
    std::unique_ptr<Session> s;
    try {
        s = std::make_unique<Session>(scene, "sim:h200");
        s->set_parameter("substeps", 2);
        s->step_frame();  // compiles; not profiled
    } catch (const runtime::RuntimeError& e) { GTEST_SKIP() << "sim:h200 cannot run here: " << e.what(); }
    uint64_t mark = runtime::sim_report_mark();
    s->step_frame();
    FrameProfile p = frame_profile_since(mark);

    std::map<std::string, uint64_t> cycles, launches;
    for (const auto& r : runtime::sim_reports_since(mark)) {
        cycles[r->result.counts.kernel] += r->result.cycles;
        ++launches[r->result.counts.kernel];
    }
    ASSERT_FALSE(p.kernels.empty());
    EXPECT_EQ(p.kernels.size(), cycles.size());
    double share = 0;
    for (size_t k = 0; k < p.kernels.size(); ++k) {
        const ProfileKernel& kernel = p.kernels[k];
        if (k > 0) { EXPECT_GE(p.kernels[k - 1].cycles, kernel.cycles) << "ranked by cycles"; }
        EXPECT_EQ(kernel.cycles, cycles[kernel.name]) << kernel.name;
        EXPECT_EQ(kernel.launches, launches[kernel.name]) << kernel.name;
        EXPECT_EQ(kernel.launches % 2, 0u) << kernel.name << ": launched once per substep";
        share += kernel.share;
        double line_share = 0;
        for (const ProfileLine& l : kernel.lines) {
            line_share += l.share;
            EXPECT_GE(l.share, 0.0);
            EXPECT_EQ(l.text, source_line(l.file, l.line));
        }
        EXPECT_LE(line_share, 1.0 + 1e-6) << kernel.name;
    }
    EXPECT_NEAR(share, 1.0, 1e-6);
    // The hottest kernel's lines are kernels/*.py lines with their text.
    ASSERT_FALSE(p.kernels[0].lines.empty());
    const ProfileLine& hot = p.kernels[0].lines[0];
    EXPECT_NE(hot.file.find("kernels/"), std::string::npos) << hot.file;
    EXPECT_FALSE(hot.text.empty()) << hot.file << ":" << hot.line;
}

TEST(FrameProfileTest, MeasuredFrameOnCpuHasTheSimulatedFramesKernels) {
    WEFT_REQUIRE_CPU_DEVICE();
    // The same frame measured on the cpu (runtime/kernel_timing.h) and predicted on sim:h200: the
    // same kernels with the same launch counts; measured times add up to the frame's, shares to 1.
    engine::Scene scene = engine::load_scene(WEFT_SOURCE_DIR "/scenes/spring_chain.toml");
    std::unique_ptr<Session> cpu, sim;
    try {
        cpu = std::make_unique<Session>(scene, "cpu");
        sim = std::make_unique<Session>(scene, "sim:h200");
    } catch (const runtime::RuntimeError& e) { GTEST_SKIP() << "cpu or sim:h200 cannot run here: " << e.what(); }
    for (Session* s : {cpu.get(), sim.get()}) {
        s->set_parameter("substeps", 2);
        s->step_frame();  // compiles
    }
    FrameProfile measured;
    {
        runtime::KernelTiming timing;
        cpu->set_graphs(false);
        cpu->step_frame();
        measured = measured_profile(timing.results());
    }
    uint64_t mark = runtime::sim_report_mark();
    sim->step_frame();
    FrameProfile predicted = frame_profile_since(mark);
    EXPECT_TRUE(measured.measured);
    EXPECT_FALSE(predicted.measured);
    EXPECT_EQ(measured.device, "cpu");
    EXPECT_EQ(predicted.device, "sim:h200");
    EXPECT_EQ(measured.launches, predicted.launches);
    ASSERT_EQ(measured.kernels.size(), predicted.kernels.size());
    double total = 0, share = 0;
    for (size_t k = 0; k < measured.kernels.size(); ++k) {
        const ProfileKernel& m = measured.kernels[k];
        if (k > 0) { EXPECT_GE(measured.kernels[k - 1].time_us, m.time_us) << "ranked by time"; }
        EXPECT_GT(m.time_us, 0.0) << m.name;
        EXPECT_TRUE(m.lines.empty()) << "no per-line breakdown is measured";
        EXPECT_GE(kernel_time_us(predicted, m.name), 0.0) << m.name << " is not among the simulated frame's kernels";
        for (const ProfileKernel& p : predicted.kernels)
            if (p.name == m.name) EXPECT_EQ(p.launches, m.launches) << m.name;
        total += m.time_us;
        share += m.share;
    }
    EXPECT_NEAR(total, measured.time_us, 1e-6 * total);
    EXPECT_NEAR(share, 1.0, 1e-9);
    EXPECT_LT(kernel_time_us(measured, "no_such_kernel"), 0.0);
}

TEST(FrameProfileTest, SourceLinesComeFromTheEmbeddedKernels) {
    EXPECT_EQ(source_line("kernels/geometry.py", 1),
              "\"\"\"Signed distances of the static collision shapes, in the shape's own frame, and their gradients.");
    EXPECT_EQ(source_line("/somewhere/else/kernels/geometry.py", 1), source_line("kernels/geometry.py", 1));
    EXPECT_EQ(source_line("kernels/geometry.py", 100000), "");
    EXPECT_EQ(source_line("no/such/file.py", 1), "");
}

}  // namespace
}  // namespace weft::viewer
