// runtime/cancel.cpp: a `while True:` loop that only stores is not deleted by the C++ compiler
// (it runs until cancelled), a cancelled CPU launch throws LaunchInterrupted naming the kernel
// (plain threads and block fibers alike) and the runtime runs the next launch normally; the same
// on the simulator (gpusim checks the flag after each run of a warp's instructions); `weft launch`
// on SIGINT exits 130 with the message.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

#include "runtime/cancel.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

const char* kLoops = R"(
@wp.kernel
def forever(a: wp.array(dtype=float)):
    i = wp.tid()
    while True:
        a[i] = a[i] + 1.0

@wp.kernel(block_dim=32)
def forever_in_block(a: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.shared_array(shape=32, dtype=float)
    s[wp.thread_idx()] = 1.0
    wp.sync_threads()
    for k in range(2000000000):
        a[i] = a[i] + s[0]
)";

// Launches `kernel` on `dev` and cancels it from another thread after `ms` milliseconds.
std::string cancelled_after(const std::shared_ptr<runtime::Module>& m, const char* kernel, int ms, int64_t n,
                            const runtime::Device& dev = {}) {
    auto a = runtime::Array::zeros(compiler::float32_type(), {n}, dev);
    std::thread canceller([ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        runtime::request_cancel();
    });
    std::string e;
    try {
        run(m, kernel, {n}, {arg(a)}, dev);
        e = "(no error)";
    } catch (const runtime::LaunchInterrupted& x) { e = x.what(); } catch (const std::exception& x) {
        e = std::string("another error: ") + x.what();
    }
    canceller.join();
    // On the CPU the threads that started ran their loop until the cancel: the stores were not
    // optimised away (the loop polls the flag). NVRTC may keep a[i] in a register in a loop that
    // never ends, so on the simulator (as on a GPU) nothing need reach memory.
    if (dev.kind == runtime::DeviceKind::Cpu) {
        float most = 0.0f;
        for (float v : values_of<float>(a)) most = std::max(most, v);
        EXPECT_GT(most, 100.0f);
    }
    return e;
}

TEST(Cancel, EndlessLoopsRunUntilCancelledAndTheRuntimeGoesOn) {
    REQUIRE_CPU();
    auto m = module_of(kLoops, "loops.py");
    EXPECT_EQ(cancelled_after(m, "forever", 300, 64),
              "launch of kernel 'forever' was interrupted (Ctrl-C); its output arrays are incomplete");
    EXPECT_EQ(cancelled_after(m, "forever_in_block", 300, 64),
              "launch of kernel 'forever_in_block' was interrupted (Ctrl-C); its output arrays are incomplete");
    EXPECT_EQ(runtime::cancel_flag().load(), 0);
    auto sg = module_of(kScaleGatherModule);
    auto x = array_of(compiler::float32_type(), std::vector<float>{1, 2, 3});
    auto out = runtime::Array::zeros(compiler::float32_type(), {3}, {});
    run(sg, "scale", {3}, {arg(x), num(2.0), arg(out)});
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{2, 4, 6}));
}

// The simulator runs the endless loops until the flag is set, then stops the launch with the same
// error; the flag is cleared and the next launch on the simulator runs to its end.
TEST(Cancel, EndlessLoopsOnTheSimulatorStopWhenCancelled) {
    const runtime::Device sim = runtime::parse_device("sim:h200");
    if (!runtime::device_available(sim)) GTEST_SKIP() << "no simulator in this build (needs NVRTC)";
    // compiled (NVRTC) by a first launch, so that the cancel lands in the loops
    auto m = module_of(std::string(kLoops) + "\n@wp.kernel\ndef touch(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n",
                       "loops_sim.py");
    auto t = runtime::Array::zeros(compiler::float32_type(), {1}, sim);
    run(m, "touch", {1}, {arg(t)}, sim);
    EXPECT_EQ(cancelled_after(m, "forever", 500, 64, sim),
              "launch of kernel 'forever' was interrupted (Ctrl-C); its output arrays are incomplete");
    EXPECT_EQ(cancelled_after(m, "forever_in_block", 500, 64, sim),
              "launch of kernel 'forever_in_block' was interrupted (Ctrl-C); its output arrays are incomplete");
    EXPECT_EQ(runtime::cancel_flag().load(), 0);
    auto sg = module_of(kScaleGatherModule, "scale_gather_sim.py");
    auto x = array_of(compiler::float32_type(), std::vector<float>{1, 2, 3}, sim);
    auto out = runtime::Array::zeros(compiler::float32_type(), {3}, sim);
    run(sg, "scale", {3}, {arg(x), num(2.0), arg(out)}, sim);
    EXPECT_EQ(values_of<float>(out), (std::vector<float>{2, 4, 6}));
}

TEST(Cancel, WeftLaunchExits130OnSigint) {
    REQUIRE_CPU();
    std::string dir = ::testing::TempDir();
    std::string py = dir + "/forever.py", err = dir + "/forever.err";
    std::ofstream(py) << "import weft as wp\n" << kLoops;
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        freopen(err.c_str(), "w", stderr);
        execl(WEFT_BINARY, WEFT_BINARY, "launch", py.c_str(), "--kernel", "forever", "--dim", "8", (char*)nullptr);
        _exit(127);
    }
    std::this_thread::sleep_for(std::chrono::seconds(3));  // compiled and looping
    kill(pid, SIGINT);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130);
    std::ifstream in(err);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text, "weft launch: launch of kernel 'forever' was interrupted (Ctrl-C); its output arrays are incomplete\n");
}

}  // namespace
