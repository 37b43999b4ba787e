// runtime/kernel_timing.h on the cpu device: every launch made while a KernelTiming scope is alive
// is listed once, in order, with its kernel, source location, device and size, and a time that
// lies between zero and the wall-clock time of the call that made it (measured here around
// each call); launches outside every scope are not kept; overlapping scopes each see their own.
#include "runtime/kernel_timing.h"

#include <gtest/gtest.h>

#include <chrono>

#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;

double timed_run_us(const std::shared_ptr<runtime::Module>& m, const char* kernel, int64_t n,
                    std::vector<runtime::LaunchArg> args) {
    auto t0 = std::chrono::steady_clock::now();
    run(m, kernel, {n}, std::move(args));
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

TEST(KernelTiming, CpuLaunchesAreListedWithTheirTimes) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule, "timed_kernels.py");
    auto x = runtime::Array::zeros(compiler::float32_type(), {4096}, {});
    auto out = runtime::Array::zeros(compiler::float32_type(), {4096}, {});
    auto idx = runtime::Array::zeros(compiler::int32_type(), {4096}, {});
    run(m, "scale", {4096}, {arg(x), num(2.0), arg(out)});  // compiled and run before any scope: not listed
    EXPECT_FALSE(runtime::kernel_timing_active());

    runtime::KernelTiming timing;
    EXPECT_TRUE(runtime::kernel_timing_active());
    double wall[3];
    wall[0] = timed_run_us(m, "scale", 4096, {arg(x), num(2.0), arg(out)});
    wall[1] = timed_run_us(m, "gather", 100, {arg(x), arg(idx), arg(out)});
    wall[2] = timed_run_us(m, "scale", 7, {arg(x), num(3.0), arg(out)});
    std::vector<runtime::KernelTime> t = timing.results();
    ASSERT_EQ(t.size(), 3u);
    const char* names[] = {"scale", "gather", "scale"};
    const long long threads[] = {4096, 100, 7};
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(t[i].kernel, names[i]);
        EXPECT_EQ(t[i].device, "cpu");
        EXPECT_EQ(t[i].threads, threads[i]);
        EXPECT_EQ(t[i].where.rfind("timed_kernels.py:", 0), 0u) << t[i].where;
        EXPECT_GT(t[i].time_us, 0.0);
        EXPECT_LE(t[i].time_us, wall[i]) << "the launch cannot take longer than the call that made it";
        if (i > 0) EXPECT_GT(t[i].sequence, t[i - 1].sequence);
    }
    EXPECT_EQ(timing.results().size(), 3u);  // results() can be read again
}

TEST(KernelTiming, ScopesSeeOnlyTheirOwnLaunches) {
    REQUIRE_CPU();
    auto m = module_of(kScaleGatherModule, "timed_kernels.py");
    auto x = runtime::Array::zeros(compiler::float32_type(), {8}, {});
    run(m, "scale", {8}, {arg(x), num(2.0), arg(x)});
    {
        runtime::KernelTiming outer;
        run(m, "scale", {8}, {arg(x), num(2.0), arg(x)});
        {
            runtime::KernelTiming inner;
            run(m, "scale", {5}, {arg(x), num(2.0), arg(x)});
            ASSERT_EQ(inner.results().size(), 1u);
            EXPECT_EQ(inner.results()[0].threads, 5);
        }
        run(m, "scale", {6}, {arg(x), num(2.0), arg(x)});
        std::vector<runtime::KernelTime> all = outer.results();
        ASSERT_EQ(all.size(), 3u);
        EXPECT_EQ(all[0].threads, 8);
        EXPECT_EQ(all[1].threads, 5);
        EXPECT_EQ(all[2].threads, 6);
    }
    EXPECT_FALSE(runtime::kernel_timing_active());
    run(m, "scale", {8}, {arg(x), num(2.0), arg(x)});  // no scope: not kept
    runtime::KernelTiming later;
    EXPECT_TRUE(later.results().empty());
}

}  // namespace
