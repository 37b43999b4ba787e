// Host atomics of compiler/native/atomic.h under contention: several threads hammer one address;
// the results must equal the sequential answer.
#include <gtest/gtest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "weft_native.h"

namespace {

template <typename F>
void run_threads(int n, F f) {
    std::vector<std::thread> ts;
    for (int t = 0; t < n; ++t) ts.emplace_back(f, t);
    for (auto& t : ts) t.join();
}

template <typename T>
void check_type() {
    const int threads = 4, iters = 20000;
    T sum = T(0);
    run_threads(threads, [&](int) {
        for (int i = 0; i < iters; ++i) wp::atomic_add(&sum, T(1));
    });
    EXPECT_EQ(sum, T(threads * iters));
    run_threads(threads, [&](int) {
        for (int i = 0; i < iters; ++i) wp::atomic_sub(&sum, T(1));
    });
    EXPECT_EQ(sum, T(0));
    T lo = T(1000), hi = T(0);
    run_threads(threads, [&](int t) {
        for (int i = 0; i < 1000; ++i) {
            wp::atomic_min(&lo, T(5 + (i * 7 + t) % 900));
            wp::atomic_max(&hi, T((i * 13 + t) % 950));
        }
    });
    EXPECT_EQ(lo, T(5));
    EXPECT_EQ(hi, T(949));
    T x = T(3);
    EXPECT_EQ(wp::atomic_cas(&x, T(4), T(9)), T(3));  // no match: unchanged
    EXPECT_EQ(x, T(3));
    EXPECT_EQ(wp::atomic_cas(&x, T(3), T(9)), T(3));
    EXPECT_EQ(x, T(9));
    EXPECT_EQ(wp::atomic_exch(&x, T(2)), T(9));
    EXPECT_EQ(x, T(2));
    EXPECT_EQ(wp::atomic_add(&x, T(5)), T(2));  // returns the old value
}

}  // namespace

TEST(Atomics, Int32) { check_type<int32_t>(); }
TEST(Atomics, UInt32) { check_type<uint32_t>(); }
TEST(Atomics, Int64) { check_type<long long>(); }
TEST(Atomics, UInt64) { check_type<unsigned long long>(); }
TEST(Atomics, Float32) { check_type<float>(); }
TEST(Atomics, Float64) { check_type<double>(); }

TEST(Atomics, ComponentWiseOnVectorsAndMatrices) {
    using V3f = wp::vec_t<3, float>;
    using M22d = wp::mat_t<2, 2, double>;
    V3f v(1, 2, 3);
    run_threads(4, [&](int) {
        for (int i = 0; i < 1000; ++i) wp::atomic_add(&v, V3f(1, 0.5f, -1));
    });
    EXPECT_EQ(v, V3f(4001, 2002, -3997));
    M22d m(5.0);
    const auto old = wp::atomic_min(&m, M22d(1, 7, 3, 9));
    EXPECT_EQ(old, M22d(5.0));
    EXPECT_EQ(m, M22d(1, 5, 3, 5));
}
