// runtime/launch_list.h: launches of kernels from two modules, collected into one persistent
// launch, give the bits of the same launches run one by one; and what a list cannot hold makes
// it invalid with the reason, having done nothing. On sim:h200 (a step per simulated launch of the
// list's grid, or the whole list in one block, its barriers bar.sync) and on cuda:0 where there is
// one (many blocks, grid barriers between steps; skipped here without a GPU).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/launch_list.h"
#include "runtime/replay.h"
#include "runtime/sim/sim_backend.h"

namespace {

using namespace weft;
using runtime::Array;
using runtime::LaunchArg;

// Each step of `shift` reads the neighbour another thread (another block, for large n) wrote in
// the step before: without a barrier across the whole grid between steps it races.
const char* const kModuleA = R"(import weft as wp

@wp.kernel
def shift(src: wp.array(dtype=wp.float32), dst: wp.array(dtype=wp.float32), c: wp.float32):
    i = wp.tid()
    n = src.shape[0]
    dst[i] = src[(i + 977) % n] * 0.5 + c

@wp.kernel
def blockwise(a: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.sync_threads()
    a[i] = 1.0
)";

const char* const kModuleB = R"(import weft as wp

@wp.kernel
def add_index(a: wp.array2d(dtype=wp.float32)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + wp.float32(i * 3 + j)

@wp.kernel
def mix(a: wp.array2d(dtype=wp.float32), x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    x[i] = x[i] + a[i % a.shape[0], 0] * 0.25
)";

std::vector<std::string> devices() {
    std::vector<std::string> d = {"sim:h200"};
    if (runtime::device_available(runtime::Device{runtime::DeviceKind::Cuda, 0, {}})) d.push_back("cuda:0");
    return d;
}

struct Scene {
    runtime::Device device;
    int64_t n;
    Array x, y, m;
    runtime::Kernel shift, blockwise, add_index, mix;

    Scene(const std::string& dev, int64_t size) : device(runtime::parse_device(dev)), n(size) {
        auto a = runtime::Module::compile({{"list_a.py", kModuleA}});
        auto b = runtime::Module::compile({{"list_b.py", kModuleB}});
        shift = a->kernel("shift");
        blockwise = a->kernel("blockwise");
        add_index = b->kernel("add_index");
        mix = b->kernel("mix");
        std::vector<float> h(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) h[static_cast<size_t>(i)] = static_cast<float>((i * 7919) % 1000) * 0.001f;
        x = Array::zeros(compiler::float32_type(), {n}, device);
        x.copy_from_host(h.data(), h.size() * sizeof(float));
        y = Array::zeros(compiler::float32_type(), {n}, device);
        m = Array::zeros(compiler::float32_type(), {37, 29}, device);
    }
    void launch(const runtime::Kernel& k, std::vector<int64_t> dim, std::vector<LaunchArg> args) {
        runtime::LaunchOptions o;
        o.device = device;
        runtime::launch(k, dim, args, o);
    }
    // Twelve launches of three shapes from the two modules.
    void work() {
        for (int s = 0; s < 3; ++s) {
            launch(shift, {n}, {LaunchArg::of(x), LaunchArg::of(y), LaunchArg::number_of(0.125 * s)});
            launch(add_index, {37, 29}, {LaunchArg::of(m)});
            launch(mix, {n}, {LaunchArg::of(m), LaunchArg::of(y)});
            launch(shift, {n}, {LaunchArg::of(y), LaunchArg::of(x), LaunchArg::number_of(-0.5)});
        }
    }
    std::vector<float> host(const Array& a) const {
        std::vector<float> h(static_cast<size_t>(a.size()));
        a.copy_to_host(h.data(), h.size() * sizeof(float));
        return h;
    }
};

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(LaunchList, RunsLaunchesOfTwoModulesBitForBitAsOneLaunch) {
    for (const std::string& dev : devices()) {
        SCOPED_TRACE(dev);
        const int64_t n = dev == "sim:h200" ? 1000 : int64_t{1} << 20;  // cuda: 4096 blocks' worth of indices
        Scene eager(dev, n), listed(dev, n);
        runtime::LaunchList list(listed.device, [&] { listed.work(); });
        ASSERT_TRUE(list.valid()) << list.why_not();
        EXPECT_EQ(list.steps(), 12u);
        EXPECT_EQ(listed.host(listed.m)[5], 0.0f) << "collecting runs nothing";
        // The grid the largest launch needs (sim: 5 blocks of 256 for add_index's 37 x 29; a step per
        // simulated launch of that grid), at most what the device holds at once.
        if (dev == "sim:h200") EXPECT_EQ(list.blocks(), 5);
        if (dev == "cuda:0") EXPECT_GT(list.blocks(), 100) << "a grid of many blocks, grid barriers between steps";
        for (int r = 0; r < 2; ++r) {
            eager.work();
            list.run();
        }
        EXPECT_TRUE(same_bits(eager.host(eager.x), listed.host(listed.x)));
        EXPECT_TRUE(same_bits(eager.host(eager.y), listed.host(listed.y)));
        EXPECT_TRUE(same_bits(eager.host(eager.m), listed.host(listed.m)));
        EXPECT_EQ(listed.host(listed.m)[29 * 2 + 5], 6.0f * (2 * 3 + 5)) << "add_index ran 6 times at [2, 5]";

        // One block (every barrier a block barrier, the whole list one launch on sim) gives the same bits.
        Scene one(dev, n);
        runtime::LaunchListOptions o;
        o.max_blocks = 1;
        runtime::LaunchList single(
            one.device, [&] { one.work(); }, o);
        ASSERT_TRUE(single.valid()) << single.why_not();
        EXPECT_EQ(single.blocks(), 1);
        single.run();
        single.run();
        EXPECT_TRUE(same_bits(eager.host(eager.x), one.host(one.x)));
    }
}

TEST(LaunchList, WhatItCannotHoldMakesItInvalidHavingDoneNothing) {
    Scene s("sim:h200", 300);
    const std::vector<float> x0 = s.host(s.x);
    runtime::LaunchList zeroing(s.device, [&] {
        s.work();
        s.x.zero();
        s.work();
    });
    EXPECT_FALSE(zeroing.valid());
    EXPECT_EQ(zeroing.why_not(), "the work does what a launch list cannot hold: zero() of " + s.x.describe());
    EXPECT_TRUE(same_bits(s.host(s.x), x0)) << "neither the launches nor the zero() ran";
    try {
        zeroing.run();
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_EQ(std::string(e.what()), "LaunchList::run: the list is not valid (" + zeroing.why_not() + ")");
    }

    runtime::LaunchList barrier(s.device, [&] { s.launch(s.blockwise, {256}, {LaunchArg::of(s.x)}); });
    EXPECT_EQ(barrier.why_not(), "kernel 'blockwise' synchronises its block (wp.sync_threads)");

    runtime::LaunchList backward(s.device, [&] {
        runtime::LaunchOptions o;
        o.device = s.device;
        o.adjoint = true;
        runtime::launch(s.shift, {s.n}, {LaunchArg::of(s.x), LaunchArg::of(s.y), LaunchArg::number_of(1.0)}, o);
    });
    EXPECT_EQ(backward.why_not(), "the work does what a launch list cannot hold: a backward launch of kernel 'shift'");

    runtime::LaunchList nothing(s.device, [] {});
    EXPECT_EQ(nothing.why_not(), "the work launches nothing");

    runtime::LaunchList host_read(s.device, [&] {
        s.work();
        (void)s.host(s.y);
    });
    EXPECT_EQ(host_read.why_not(), "the work does what a launch list cannot hold: a copy of " + s.y.describe() + " to the host");

    runtime::LaunchList long_list(s.device, [&] {
        for (int r = 0; r < 700; ++r) s.work();  // 8,400 launches
    });
    EXPECT_EQ(long_list.why_not(), "it has 8400 launches, more than the 8192 a list's order table holds");

    // A list whose entry's block does not fit an SM: 1024 threads on a copy of the H200 with a
    // quarter of its registers (16 per thread at most; the entry needs more), with ptxas's count.
    if (std::ifstream("/usr/local/cuda/bin/ptxas")) {
        std::string arch = read_text(std::string(WEFT_SOURCE_DIR) + "/gpusim/arch/h200.json");
        for (const char* key : {"\"registers\": 65536", "\"max_registers_per_block\": 65536"}) {
            const size_t at = arch.find(key);
            ASSERT_NE(at, std::string::npos) << key;
            arch.replace(at + std::string(key).size() - 5, 5, "16384");
        }
        const size_t name = arch.find("\"name\": \"h200\"");
        ASSERT_NE(name, std::string::npos);
        arch.replace(name, 14, "\"name\": \"h200_few_registers\"");
        const std::string path = (std::filesystem::temp_directory_path() / "weft_h200_few_registers.json").string();
        std::ofstream(path) << arch;
        ASSERT_EQ(runtime::register_sim_arch_file(path), "h200_few_registers");
        Scene few("sim:h200_few_registers", 300);
        runtime::LaunchListOptions o;
        o.block_dim = 1024;
        runtime::LaunchList big(
            few.device, [&] { few.work(); }, o);
        EXPECT_FALSE(big.valid());
        EXPECT_EQ(big.why_not().rfind("it could not be loaded on sim:h200_few_registers: 'weft_launch_list' cannot run on "
                                      "sim:h200_few_registers: ",
                                      0),
                  0u)
            << big.why_not();
        EXPECT_NE(big.why_not().find("registers"), std::string::npos) << big.why_not();
    }

    runtime::LaunchList cpu(runtime::Device{}, [&] { s.work(); });
    EXPECT_EQ(cpu.why_not(), "cpu runs no launch lists");
    EXPECT_TRUE(same_bits(s.host(s.x), x0));
}

// The other ways a list is refused, each with its message: a launch on another device, launches
// in blocks of different sizes, more distinct arguments than a launch's parameters hold, a
// recording inside another, and a malformed override in the environment.
TEST(LaunchList, RefusalsNameWhatTheyRefuse) {
    Scene s("sim:h200", 300), other("sim:h100", 300);
    runtime::LaunchList two_devices(s.device, [&] {
        s.work();
        other.work();
    });
    EXPECT_EQ(two_devices.why_not(),
              "the work does what a launch list cannot hold: a launch of kernel 'shift' on sim:h100 (the list is for sim:h200)");

    runtime::LaunchList block_sizes(s.device, [&] {
        s.work();
        runtime::LaunchOptions o;
        o.device = s.device;
        o.block_dim = 128;
        runtime::launch(s.add_index, {37, 29}, {LaunchArg::of(s.m)}, o);
    });
    EXPECT_EQ(block_sizes.why_not(), "kernel 'add_index' runs in blocks of 128 threads, the list's first launch in 256");

    // Each value of c is a distinct case of `shift`: 32 bytes of bounds and its argument block.
    runtime::LaunchList many(s.device, [&] {
        for (int c = 0; c < 300; ++c) s.launch(s.shift, {s.n}, {LaunchArg::of(s.x), LaunchArg::of(s.y), LaunchArg::number_of(c)});
    });
    EXPECT_EQ(many.why_not().rfind("its 300 distinct launches' arguments take ", 0), 0u) << many.why_not();
    EXPECT_NE(many.why_not().find(" bytes, more than the 32764 bytes a launch's parameters hold"), std::string::npos)
        << many.why_not();

    runtime::LaunchListRecording outer(s.device);
    try {
        runtime::LaunchListRecording inner(s.device);
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "cannot record a launch list inside another one"); }
    (void)outer.finish();
    try {
        (void)outer.finish();
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "LaunchListRecording::finish: the recording has ended"); }

    setenv("WEFT_LAUNCH_LIST_BLOCKS", "many", 1);
    try {
        runtime::LaunchList bad(s.device, [&] { s.work(); });
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "WEFT_LAUNCH_LIST_BLOCKS=many: expected a number of blocks >= 0 (0: no limit)");
    }
    unsetenv("WEFT_LAUNCH_LIST_BLOCKS");
    setenv("WEFT_LAUNCH_LIST_BLOCK_DIM", "2048", 1);
    try {
        runtime::LaunchList bad(s.device, [&] { s.work(); });
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_STREQ(e.what(), "WEFT_LAUNCH_LIST_BLOCK_DIM=2048: expected threads per block, 1 to 1024 (0: the launches')");
    }
    unsetenv("WEFT_LAUNCH_LIST_BLOCK_DIM");
}

TEST(LaunchList, ReplayRunsTheListOrSaysWhyNot) {
    Scene s("sim:h200", 300), eager("sim:h200", 300);
    runtime::ReplayOptions o;
    o.launch_list = true;
    runtime::Replay listed(
        s.device, [&] { s.work(); }, o);
    EXPECT_TRUE(listed.is_launch_list());
    EXPECT_EQ(listed.why_not_listed(), "");
    listed.run();
    eager.work();
    EXPECT_TRUE(same_bits(eager.host(eager.x), s.host(s.x)));

    runtime::Replay fallback(
        s.device,
        [&] {
            s.work();
            s.m.zero();
        },
        o);
    EXPECT_FALSE(fallback.is_launch_list());
    EXPECT_EQ(fallback.why_not_listed(), "the work does what a launch list cannot hold: zero() of " + s.m.describe());
    fallback.run();  // runs the work again (sim has no graphs), zero() included
    EXPECT_EQ(s.host(s.m)[7], 0.0f);
}

}  // namespace
