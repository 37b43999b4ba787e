// tests/viewer/session_test.cpp: the viewer's simulation between frames: device switches carry the
// State (bit-identical on the same arithmetic, within 1e-5 between cpu and the simulator), live
// edits against the physics they change, cancel and failures leaving the state as it was.
#include "viewer/session.h"

#include <gtest/gtest.h>

#include "tests/viewer/viewer_test_util.h"

#include <cmath>

#include "runtime/errors.h"
#include "runtime/sim/sim_backend.h"

namespace weft::viewer {
namespace {

using Eigen::Vector3f;

engine::Scene chain() {
    engine::Scene s = engine::load_scene(WEFT_SOURCE_DIR "/scenes/spring_chain.toml");
    s.device = "cpu";
    return s;
}

std::vector<float> positions(const Session& s) {
    std::vector<float> q(size_t(s.model().particle_count) * 3);
    s.state().particle_q.copy_to_host(q.data(), q.size() * sizeof(float));
    return q;
}

// Runs `frames` frames; before frame f (f > 0, f % 10 == 0) switches to devices[(f / 10) % size].
std::vector<std::vector<float>> trajectory(int frames, const std::vector<std::string>& devices, int substeps = 4) {
    Session s(chain(), devices[0]);
    s.set_parameter("substeps", float(substeps));
    std::vector<std::vector<float>> out;
    for (int f = 0; f < frames; ++f) {
        if (f > 0 && f % 10 == 0) s.switch_device(devices[size_t(f / 10) % devices.size()]);
        s.step_frame();
        out.push_back(positions(s));
    }
    EXPECT_EQ(s.frame(), frames);
    return out;
}

TEST(SessionTest, SwitchingDevicesKeepsTheTrajectoryBitIdentical) {
    WEFT_REQUIRE_CPU_DEVICE();
    auto straight = trajectory(30, {"cpu"});
    auto switched = trajectory(30, {"cpu", "cpu"});  // rebuilt on the cpu every 10 frames
    ASSERT_EQ(straight.size(), switched.size());
    for (size_t f = 0; f < straight.size(); ++f) ASSERT_EQ(straight[f], switched[f]) << "frame " << f;
    // And it moves: the chain falls.
    EXPECT_LT(straight.back()[3 * 7 + 1], 1.9f);
}

TEST(SessionTest, SwitchingToTheSimulatorAndBackMatchesTheCpu) {
    WEFT_REQUIRE_CPU_DEVICE();
    std::vector<DeviceChoice> choices = device_choices();
    auto sim = std::find_if(choices.begin(), choices.end(), [](const DeviceChoice& c) { return c.device == "sim:h200"; });
    ASSERT_NE(sim, choices.end());
    if (!sim->available) GTEST_SKIP() << "sim:h200: " << sim->reason;
    // The simulator is slow: one step per frame, functional counts only (no timing model), and
    // frames 10-19 on it.
    runtime::SimSettings saved = runtime::sim_settings(), counts_only = saved;
    counts_only.timing = false;
    runtime::set_sim_settings(counts_only);
    auto straight = trajectory(25, {"cpu"}, 1);
    std::vector<std::vector<float>> switched;
    uint64_t mark = runtime::sim_report_mark();
    try {
        switched = trajectory(25, {"cpu", "sim:h200"}, 1);
    } catch (const runtime::RuntimeError& e) {
        runtime::set_sim_settings(saved);
        if (std::string(e.what()).find("NVRTC") != std::string::npos) GTEST_SKIP() << e.what();
        throw;
    }
    runtime::set_sim_settings(saved);
    EXPECT_GE(runtime::sim_reports_since(mark).size(), 10u) << "frames 10-19 ran on the simulator";
    double worst = 0;
    for (size_t f = 0; f < straight.size(); ++f)
        for (size_t i = 0; i < straight[f].size(); ++i)
            worst = std::max(worst, double(std::abs(straight[f][i] - switched[f][i])));
    // Within 1e-5 is what the issue asks across devices; today the simulator's arithmetic (NVRTC's
    // PTX on gpusim) and the cpu's (Clang) give the same bits for this scene.
    EXPECT_LT(worst, 1e-5);
}

TEST(SessionTest, GravityEditMatchesFreeFall) {
    WEFT_REQUIRE_CPU_DEVICE();
    // One free particle, gravity edited to -2 m/s^2 then to +3: after n steps of symplectic Euler
    // from rest, y = y0 + g dt^2 n (n + 1) / 2.
    engine::Scene s = engine::parse_scene(
        "[simulation]\nfps = 60\nsubsteps = 4\n[model]\nground = false\n[[particle]]\npos = [0.0, 1.0, 0.0]\nmass = 1.0\n",
        "free.toml");
    Session session(s);
    session.set_parameter("gravity_y", -2.0f);
    session.step_frame();
    double dt = 1.0 / 240.0, y = 1.0 - 2.0 * dt * dt * 4 * 5 / 2;
    EXPECT_NEAR(positions(session)[1], y, 1e-6);
    EXPECT_FLOAT_EQ(session.parameter("gravity_y"), -2.0f);
    session.switch_device("cpu");
    EXPECT_FLOAT_EQ(session.parameter("gravity_y"), -2.0f) << "edits survive a device switch";
    session.reset();
    EXPECT_EQ(session.frame(), 0);
    EXPECT_FLOAT_EQ(positions(session)[1], 1.0f);
    session.set_parameter("substeps", 2);
    session.step_frame();
    dt = 1.0 / 120.0;
    EXPECT_NEAR(positions(session)[1], 1.0 - 2.0 * dt * dt * 2 * 3 / 2, 1e-6);
}

TEST(SessionTest, ParameterErrorsNameTheParameter) {
    WEFT_REQUIRE_CPU_DEVICE();
    Session s(chain());
    try {
        s.set_parameter("gravty_y", 1.0f);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "viewer: no parameter 'gravty_y' (did you mean 'gravity_y'?)");
    }
    try {
        s.set_parameter("substeps", 0.0f);
        FAIL();
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "viewer: substeps = 0.000000 is out of range [1.000000, 1000.000000]");
    }
}

TEST(SessionTest, CancelledFrameLeavesTheStateAsItWas) {
    WEFT_REQUIRE_CPU_DEVICE();
    Session s(chain());
    s.step_frame();
    std::vector<float> before = positions(s);
    std::atomic<bool> cancel{false};
    int calls = 0;
    EXPECT_THROW(s.step_frame(
                     [&](int done, int total) {
                         ++calls;
                         EXPECT_EQ(total, 32);
                         if (done == 5) cancel = true;
                     },
                     &cancel),
                 FrameCancelled);
    EXPECT_EQ(calls, 5);
    EXPECT_EQ(positions(s), before);
    EXPECT_EQ(s.frame(), 1);
    // And the next frame is the one an uninterrupted run takes.
    Session t(chain());
    t.step_frame();
    t.step_frame();
    s.step_frame([](int, int) {});
    EXPECT_EQ(positions(s), positions(t));
}

TEST(SessionTest, AFailedSwitchStaysOnTheDevice) {
    WEFT_REQUIRE_CPU_DEVICE();
    Session s(chain());
    s.step_frame();
    std::vector<float> before = positions(s);
    EXPECT_THROW(s.switch_device("sim:nosucharch"), runtime::RuntimeError);
    EXPECT_EQ(s.device().str(), "cpu");
    EXPECT_EQ(positions(s), before);
    s.step_frame();
    EXPECT_EQ(s.frame(), 2);
}

TEST(SessionTest, DeviceChoicesSayWhyNot) {
    WEFT_REQUIRE_CPU_DEVICE();
    std::vector<DeviceChoice> choices = device_choices();
    ASSERT_GE(choices.size(), 3u);
    EXPECT_EQ(choices[0].device, "cpu");
    EXPECT_EQ(choices[1].device, "cuda:0");
    for (const DeviceChoice& c : choices) EXPECT_EQ(c.available, c.reason.empty()) << c.device << ": " << c.reason;
}

}  // namespace
}  // namespace weft::viewer
