// tests/runtime/cuda/stream_test.cpp: streams, events, ScopedStream and graph capture
// (runtime/cuda/stream.h). Skipped, with the reason, on a machine without a GPU.
#include <chrono>
#include <cstdlib>

#include "cuda_test_support.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/cuda/stream.h"
#include "runtime/errors.h"
#include "runtime/kernel_timing.h"

namespace weft::runtime {
namespace {

using namespace testing;
using compiler::float32_type;

void add_one(Array& a) {
    LaunchOptions o;
    o.device = a.device();
    launch(test_module()->kernel("add_one"), {a.size()}, {LaunchArg::of(a)}, o);
}

TEST(CudaGraph, ReplayRunsTheCapturedLaunches) {
    WEFT_REQUIRE_GPU();
    const int64_t n = 4096;
    Array a = Array::zeros(float32_type(), {n}, cuda0());
    add_one(a);  // loads the module before the capture
    a.zero();
    Stream s(cuda0());
    synchronize(cuda0());
    begin_capture(s);
    EXPECT_EQ(Stream::current(cuda0()).handle(), s.handle());
    for (int i = 0; i < 100; ++i) add_one(a);
    Graph g = end_capture();
    EXPECT_NE(Stream::current(cuda0()).handle(), s.handle());
    EXPECT_EQ(g.node_count(), 100u);
    EXPECT_EQ(to_host<float>(a), std::vector<float>(n, 0.0f)) << "captured launches must not run";
    g.launch(s);
    g.launch(s);
    g.launch(s);
    s.synchronize();
    EXPECT_EQ(to_host<float>(a), std::vector<float>(n, 300.0f));
}

TEST(CudaKernelTiming, EagerLaunchesAreTimedByEventsCapturedOnesAreNot) {
    // runtime/kernel_timing.h on cuda:0: each eager launch gets a time from its event pair, between
    // zero and the host's wall-clock time of the launches plus a synchronisation; launches recorded
    // into a graph are not timed (they do not run then), and neither is the graph's replay.
    WEFT_REQUIRE_GPU();
    const int64_t n = 1 << 22;
    Array a = Array::zeros(float32_type(), {n}, cuda0());
    add_one(a);  // loads the module
    synchronize(cuda0());
    KernelTiming timing;
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 5; ++i) add_one(a);
    synchronize(cuda0());
    double wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    Stream s(cuda0());
    begin_capture(s);
    add_one(a);
    Graph g = end_capture();
    g.launch(s);
    s.synchronize();
    std::vector<KernelTime> t = timing.results();
    ASSERT_EQ(t.size(), 5u);
    double sum = 0;
    for (const KernelTime& k : t) {
        EXPECT_EQ(k.kernel, "add_one");
        EXPECT_EQ(k.device, "cuda:0");
        EXPECT_EQ(k.threads, n);
        EXPECT_GT(k.time_us, 0.0);
        sum += k.time_us;
    }
    EXPECT_LE(sum, wall_us);
    EXPECT_EQ(to_host<float>(a), std::vector<float>(size_t(n), 7.0f));
}

TEST(CudaGraph, SaxpyReplayMatchesEagerLaunches) {
    WEFT_REQUIRE_GPU();
    auto m = saxpy_module();
    const int64_t n = 100000;
    auto x = random_floats(n, 7), y0 = random_floats(n, 8);
    Array xe = to_device(x, float32_type(), cuda0()), ye = to_device(y0, float32_type(), cuda0());
    Array xg = to_device(x, float32_type(), cuda0()), yg = to_device(y0, float32_type(), cuda0());
    LaunchOptions o;
    o.device = cuda0();
    auto step = [&](Array& xa, Array& ya) {
        launch(m->kernel("saxpy"), {n}, {LaunchArg::of(xa), LaunchArg::of(ya), LaunchArg::number_of(0.5)}, o);
    };
    for (int i = 0; i < 20; ++i) step(xe, ye);
    Stream s(cuda0());
    synchronize(cuda0());
    begin_capture(s);
    for (int i = 0; i < 10; ++i) step(xg, yg);
    Graph g = end_capture(s);
    g.launch(s);
    g.launch(s);
    s.synchronize();
    EXPECT_EQ(to_host<float>(yg), to_host<float>(ye));
}

TEST(CudaGraph, DebugLaunchesCannotBeCaptured) {
    WEFT_REQUIRE_GPU();
    Array a = Array::zeros(float32_type(), {16}, cuda0());
    LaunchOptions o;
    o.device = cuda0();
    o.debug = 1;
    launch(test_module()->kernel("add_one"), {16}, {LaunchArg::of(a)}, o);  // loads the debug build first
    Stream s(cuda0());
    synchronize(cuda0());
    begin_capture(s);
    try {
        launch(test_module()->kernel("add_one"), {16}, {LaunchArg::of(a)}, o);
        ADD_FAILURE() << "expected RuntimeError";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("a debug-mode launch of kernel 'add_one' during a graph capture on cuda:0"),
                  std::string::npos)
            << e.what();
    }
    // The launch was refused before anything reached the stream: the capture ends cleanly, empty.
    Graph g = end_capture();
    EXPECT_EQ(g.node_count(), 0u);
}

TEST(CudaGraph, EndWithoutBeginIsAnError) {
    WEFT_REQUIRE_GPU();
    EXPECT_THROW(end_capture(), RuntimeError);
}

TEST(CudaStream, ScopedStreamRoutesLaunchesAndEventsOrderStreams) {
    WEFT_REQUIRE_GPU();
    const int64_t n = 1 << 20;
    Array a = Array::zeros(float32_type(), {n}, cuda0());
    add_one(a);
    synchronize(cuda0());
    Stream s1(cuda0()), s2(cuda0());
    Event start(cuda0(), true), stop(cuda0(), true);
    {
        ScopedStream use(s1);
        EXPECT_EQ(Stream::current(cuda0()).handle(), s1.handle());
        start.record(s1);
        for (int i = 0; i < 50; ++i) add_one(a);  // 51 in all
        stop.record(s1);
    }
    EXPECT_EQ(Stream::current(cuda0()).handle(), Stream::default_stream(cuda0()).handle());
    s2.wait(s1.record());
    {
        ScopedStream use(s2);
        add_one(a);  // after the 50 on s1
        std::vector<float> host(n);
        a.copy_to_host(host.data(), host.size() * 4);  // waits for s2 only
        EXPECT_EQ(host, std::vector<float>(n, 52.0f));
    }
    stop.synchronize();
    EXPECT_TRUE(stop.done());
    EXPECT_GT(start.elapsed_ms(stop), 0.0f);
}

// Programmatic dependent launch (cuda_context.h): on sm_90+ a launch may start before the one
// ahead of it has finished; the griddepcontrol.wait that opens every entry keeps the chain exact.
// 100 dependent launches, each adding 1.0 to every element, eagerly and replayed from a graph,
// with PDL on and off: exactly 100 per pass, never a launch short. Two sizes: one block per 256
// elements (the bench's small launches) and 2^22 elements, whose grid-stride entry runs on a
// capped grid (grid_policy.h).
TEST(CudaPdl, HundredDependentLaunchesEagerAndReplayed) {
    WEFT_REQUIRE_GPU();
    CudaContext& ctx = CudaContext::get(0);
    EXPECT_EQ(ctx.pdl_supported(), std::stoi(ctx.arch().substr(3)) >= 90) << ctx.arch();
    if (!std::getenv("WEFT_CUDA_PDL")) EXPECT_EQ(ctx.uses_pdl(), ctx.pdl_supported()) << "on by default where supported";
    const bool was_enabled = ctx.pdl_enabled();
    for (bool pdl : {true, false}) {
        ctx.set_pdl_enabled(pdl);
        EXPECT_EQ(ctx.uses_pdl(), pdl && ctx.pdl_supported());
        for (int64_t n : {int64_t{4096}, int64_t{1} << 22}) {
            SCOPED_TRACE(std::string("PDL ") + (pdl ? "on" : "off") + ", n = " + std::to_string(n));
            Array a = Array::zeros(float32_type(), {n}, cuda0());
            add_one(a);  // loads the module
            a.zero();
            for (int i = 0; i < 100; ++i) add_one(a);
            EXPECT_EQ(to_host<float>(a), std::vector<float>(n, 100.0f)) << "eager";

            Stream s(cuda0());
            synchronize(cuda0());
            begin_capture(s);
            for (int i = 0; i < 100; ++i) add_one(a);
            Graph g = end_capture();
            EXPECT_EQ(g.node_count(), 100u);
            g.launch(s);
            g.launch(s);
            s.synchronize();
            EXPECT_EQ(to_host<float>(a), std::vector<float>(n, 300.0f)) << "graph replay";
            {
                ScopedStream use(s);  // eager again, on the graph's stream, after the replays
                for (int i = 0; i < 100; ++i) add_one(a);
            }
            s.synchronize();
            EXPECT_EQ(to_host<float>(a), std::vector<float>(n, 400.0f)) << "eager on a second stream";
        }
    }
    ctx.set_pdl_enabled(was_enabled);
}

TEST(CudaStream, StreamsNeedACudaDevice) { EXPECT_THROW(Stream(Device{}), RuntimeError); }

}  // namespace
}  // namespace weft::runtime
