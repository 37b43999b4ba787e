// ThreadPool: many tiny jobs back to back. Before the fix in thread_pool.cpp, a worker that woke
// after a job had ended could pair the next job's indices with the ended job's (null) function
// and crash; every index of every job must run exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "runtime/cpu/thread_pool.h"

namespace {

TEST(ThreadPool, BackToBackTinyJobsRunEveryIndexOnce) {
    weft::runtime::ThreadPool pool(8);
    std::vector<std::atomic<int>> hits(8);
    long expected = 0;
    for (int job = 0; job < 400000; ++job) {
        int n = 2 + job % 3;
        expected += n;
        pool.parallel_for(n, [&](int64_t i, int) { hits[size_t(i)].fetch_add(1); });
        for (volatile int k = 0; k < job % 200; k = k + 1) {}  // a varying gap between jobs: a late worker may wake inside it
    }
    long total = 0;
    for (auto& h : hits) total += h.load();
    EXPECT_EQ(total, expected);
}

}  // namespace
