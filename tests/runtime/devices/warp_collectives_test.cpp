// Warp collectives (wp.shfl_*_sync, wp.ballot_sync, wp.any_sync, wp.all_sync, wp.warp_size) on
// every device present: cpu (fibers meeting in a rendezvous), sim:h200 (gpusim running the
// shfl.sync / vote.sync PTX that NVRTC makes) and cuda:0. Results are checked against CUDA's
// documented semantics computed here on the host: sums and prefix sums in float64 / int64, the
// source lane of each shuffle from its definition, votes from the predicates. The CPU device's
// diagnoses of what CUDA leaves undefined are checked by their messages.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "runtime/errors.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using compiler::ScalarKind;

compiler::Type f32() { return compiler::float32_type(); }
compiler::Type f64() { return compiler::float64_type(); }
compiler::Type i32() { return compiler::int32_type(); }
compiler::Type i64() { return compiler::int64_type(); }
compiler::Type u32() { return compiler::uint32_type(); }

class WarpCollectives : public PerDevice {};

// A warp reduction (shfl_down tree) and an inclusive scan (Hillis-Steele with shfl_up), written
// as CUDA programmers write them.
TEST_P(WarpCollectives, ReductionAndInclusiveScan) {
    auto m = module_of(R"(
@wp.kernel
def warp_sum(x: wp.array(dtype=float), sums: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    offset = wp.warp_size() // 2
    while offset > 0:
        v += wp.shfl_down_sync(0xffffffff, v, offset)
        offset = offset // 2
    if wp.lane_id() == 0:
        sums[i // 32] = v

@wp.kernel
def warp_scan(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    lane = wp.lane_id()
    for k in range(5):
        d = 1 << k
        t = wp.shfl_up_sync(0xffffffff, v, d)
        if lane >= d:
            v += t
    out[i] = v
)");
    const int n = 512;
    std::mt19937 rng(21);
    std::uniform_real_distribution<float> uf(-1.0f, 1.0f);
    std::uniform_int_distribution<int> ui(-1000, 1000);
    std::vector<float> x(n);
    std::vector<int> xi(n);
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = uf(rng), xi[static_cast<size_t>(i)] = ui(rng);
    auto xa = array_of(f32(), x, dev()), sums = runtime::Array::zeros(f32(), {n / 32}, dev());
    run(m, "warp_sum", {n}, {arg(xa), arg(sums)}, dev());
    auto got = values_of<float>(sums);
    for (int w = 0; w < n / 32; ++w) {
        double want = 0;
        for (int l = 0; l < 32; ++l) want += x[static_cast<size_t>(w * 32 + l)];
        EXPECT_NEAR(got[static_cast<size_t>(w)], want, 1e-5) << "warp " << w;
    }
    auto xia = array_of(i32(), xi, dev()), scan = runtime::Array::zeros(i32(), {n}, dev());
    run(m, "warp_scan", {n}, {arg(xia), arg(scan)}, dev());
    auto s = values_of<int>(scan);
    for (int w = 0; w < n / 32; ++w) {
        int64_t acc = 0;
        for (int l = 0; l < 32; ++l) {
            size_t i = static_cast<size_t>(w * 32 + l);
            acc += xi[i];
            EXPECT_EQ(s[i], acc) << "element " << i;
        }
    }
}

// Every shuffle at the edges: offsets 0, 1, 5, 31 and 33 (counted modulo 32), source lanes -1 and
// 40; up and down give a lane whose source falls outside the warp its own value.
TEST_P(WarpCollectives, ShuffleEdgeLanesFollowCudaSemantics) {
    auto m = module_of(R"(
@wp.kernel
def shuffles(x: wp.array(dtype=int), b: int, up: wp.array(dtype=int), down: wp.array(dtype=int),
             bfly: wp.array(dtype=int), idx: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    up[i] = wp.shfl_up_sync(0xffffffff, v, b)
    down[i] = wp.shfl_down_sync(0xffffffff, v, b)
    bfly[i] = wp.shfl_xor_sync(0xffffffff, v, b)
    idx[i] = wp.shfl_sync(0xffffffff, v, b)
)");
    const int n = 64;
    std::vector<int> x(n);
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 1000 + 7 * i;
    auto xa = array_of(i32(), x, dev());
    for (int b : {0, 1, 5, 31, 33, -1, 40}) {
        SCOPED_TRACE("b = " + std::to_string(b));
        auto up = runtime::Array::zeros(i32(), {n}, dev()), down = runtime::Array::zeros(i32(), {n}, dev());
        auto bfly = runtime::Array::zeros(i32(), {n}, dev()), idx = runtime::Array::zeros(i32(), {n}, dev());
        run(m, "shuffles", {n}, {arg(xa), integer(b), arg(up), arg(down), arg(bfly), arg(idx)}, dev());
        auto u = values_of<int>(up), d = values_of<int>(down), f = values_of<int>(bfly), s = values_of<int>(idx);
        const int bb = b & 31;
        for (int i = 0; i < n; ++i) {
            const int lane = i % 32, base = i - lane;
            auto at = [&](int l) { return x[static_cast<size_t>(base + l)]; };
            size_t k = static_cast<size_t>(i);
            EXPECT_EQ(u[k], lane >= bb ? at(lane - bb) : at(lane)) << "shfl_up, lane " << lane;
            EXPECT_EQ(d[k], lane + bb <= 31 ? at(lane + bb) : at(lane)) << "shfl_down, lane " << lane;
            EXPECT_EQ(f[k], at(lane ^ bb)) << "shfl_xor, lane " << lane;
            EXPECT_EQ(s[k], at(bb)) << "shfl_sync, lane " << lane;
        }
    }
}

// 64-bit values (two 32-bit shuffles in PTX: both halves must arrive), float64 and vectors.
TEST_P(WarpCollectives, SixtyFourBitAndVectorShuffles) {
    auto m = module_of(R"(
@wp.kernel
def wide(a: wp.array(dtype=wp.int64), f: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.vec3),
         a_out: wp.array(dtype=wp.int64), f_out: wp.array(dtype=wp.float64), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a_out[i] = wp.shfl_xor_sync(0xffffffff, a[i], 3)
    f_out[i] = wp.shfl_sync(0xffffffff, f[i], 31 - wp.lane_id())
    v_out[i] = wp.shfl_down_sync(0xffffffff, v[i], 2)
)");
    const int n = 64;
    std::vector<int64_t> a(n);
    std::vector<double> f(n);
    std::vector<float> v(3 * n);
    for (int i = 0; i < n; ++i) {
        a[static_cast<size_t>(i)] = (int64_t{i + 1} << 40) - 3 * i;  // distinct high and low words
        f[static_cast<size_t>(i)] = 1.0 / (i + 3) + 1e-12 * i;
        for (int c = 0; c < 3; ++c) v[static_cast<size_t>(3 * i + c)] = static_cast<float>(i) + 0.25f * c;
    }
    auto aa = array_of(i64(), a, dev()), fa = array_of(f64(), f, dev());
    auto va = array_of(compiler::vector_type(3, ScalarKind::Float32), v, dev());
    auto ao = runtime::Array::zeros(i64(), {n}, dev()), fo = runtime::Array::zeros(f64(), {n}, dev());
    auto vo = runtime::Array::zeros(compiler::vector_type(3, ScalarKind::Float32), {n}, dev());
    run(m, "wide", {n}, {arg(aa), arg(fa), arg(va), arg(ao), arg(fo), arg(vo)}, dev());
    auto ag = values_of<int64_t>(ao);
    auto fg = values_of<double>(fo);
    auto vg = values_of<float>(vo);
    for (int i = 0; i < n; ++i) {
        const int lane = i % 32, base = i - lane;
        EXPECT_EQ(ag[static_cast<size_t>(i)], a[static_cast<size_t>(base + (lane ^ 3))]);
        EXPECT_EQ(fg[static_cast<size_t>(i)], f[static_cast<size_t>(base + 31 - lane)]);
        const int src = lane + 2 <= 31 ? base + lane + 2 : i;
        for (int c = 0; c < 3; ++c) EXPECT_EQ(vg[static_cast<size_t>(3 * i + c)], v[static_cast<size_t>(3 * src + c)]);
    }
}

// ballot/any/all against the predicates, with the full mask and with the even lanes only (the odd
// lanes do not call), on warps whose predicates are all false, all true and random; a launch of
// 40 threads leaves the second warp 8 lanes, and lanes that do not exist take no part.
TEST_P(WarpCollectives, VotesMatchThePredicates) {
    auto m = module_of(R"(
@wp.kernel
def votes(p: wp.array(dtype=int), ballot: wp.array(dtype=wp.uint32), anyv: wp.array(dtype=int), allv: wp.array(dtype=int),
          even: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    pred = p[i] != 0
    ballot[i] = wp.ballot_sync(0xffffffff, pred)
    anyv[i] = 0
    allv[i] = 0
    if wp.any_sync(0xffffffff, pred):
        anyv[i] = 1
    if wp.all_sync(0xffffffff, pred):
        allv[i] = 1
    if wp.lane_id() % 2 == 0:
        even[i] = wp.ballot_sync(wp.uint32(0x55555555), pred)
)");
    std::mt19937 rng(7);
    for (int n : {256, 40}) {
        SCOPED_TRACE("threads " + std::to_string(n));
        std::vector<int> p(static_cast<size_t>(n));
        for (int i = 0; i < n; ++i) {
            const int w = i / 32;
            p[static_cast<size_t>(i)] = w % 4 == 0 ? 0 : w % 4 == 1 ? 1 : static_cast<int>(rng() % 3 == 0);
        }
        auto pa = array_of(i32(), p, dev());
        auto ba = runtime::Array::zeros(u32(), {n}, dev()), ea = runtime::Array::zeros(u32(), {n}, dev());
        auto an = runtime::Array::zeros(i32(), {n}, dev()), al = runtime::Array::zeros(i32(), {n}, dev());
        run(m, "votes", {n}, {arg(pa), arg(ba), arg(an), arg(al), arg(ea)}, dev());
        auto b = values_of<uint32_t>(ba), e = values_of<uint32_t>(ea);
        auto anyv = values_of<int>(an), allv = values_of<int>(al);
        for (int i = 0; i < n; ++i) {
            const int lane = i % 32, base = i - lane;
            uint32_t want = 0, want_even = 0;
            int lanes = 0;
            for (int l = 0; l < 32 && base + l < n; ++l, ++lanes)
                if (p[static_cast<size_t>(base + l)]) {
                    want |= 1u << l;
                    if (l % 2 == 0) want_even |= 1u << l;
                }
            const uint32_t existing = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
            size_t k = static_cast<size_t>(i);
            EXPECT_EQ(b[k], want) << "ballot, thread " << i;
            EXPECT_EQ(anyv[k], want != 0 ? 1 : 0) << "any, thread " << i;
            EXPECT_EQ(allv[k], want == existing ? 1 : 0) << "all, thread " << i;
            EXPECT_EQ(e[k], lane % 2 == 0 ? want_even : 0u) << "even-lane ballot, thread " << i;
        }
    }
}

// A collective inside a func counts for the kernel that calls it (one thread per index, lanes in
// lock-step): a segmented maximum through shfl_xor in a helper.
TEST_P(WarpCollectives, CollectiveInsideAFunc) {
    auto m = module_of(R"(
@wp.func
def warp_max(v: float) -> float:
    m = v
    for k in range(5):
        m = wp.max(m, wp.shfl_xor_sync(0xffffffff, m, 1 << k))
    return m

@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = warp_max(x[i])
)");
    const int n = 96;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 101) - 50.0f;
    auto xa = array_of(f32(), x, dev()), out = runtime::Array::zeros(f32(), {n}, dev());
    run(m, "k", {n}, {arg(xa), arg(out)}, dev());
    auto got = values_of<float>(out);
    for (int i = 0; i < n; ++i) {
        float want = -1e30f;
        for (int l = 0; l < 32; ++l) want = std::max(want, x[static_cast<size_t>(i / 32 * 32 + l)]);
        EXPECT_EQ(got[static_cast<size_t>(i)], want) << "thread " << i;
    }
}

WEFT_INSTANTIATE_PER_DEVICE(WarpCollectives);

// [SECTION] what CUDA leaves undefined: the CPU device says so, naming the kernel and the builtin

std::string cpu_error(const std::string& body, int64_t n = 64) {
    auto m = module_of(body);
    auto x = runtime::Array::zeros(f32(), {n}, {});
    auto out = runtime::Array::zeros(f32(), {n}, {});
    return error_of([&] { run(m, "k", {n}, {arg(x), arg(out)}); });
}

TEST(WarpCollectivesCpu, LaneOutsideItsOwnMask) {
    REQUIRE_CPU();
    std::string e = cpu_error(R"(
@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.shfl_sync(wp.uint32(1), x[i], 0)
)");
    EXPECT_EQ(e,
              "kernel 'k', block 0: lane 1 of warp 0 calls wp.shfl_sync with mask 0x00000001, which does not name it: every "
              "calling lane must be in the mask");
}

TEST(WarpCollectivesCpu, ReadingALaneTheMaskDoesNotName) {
    REQUIRE_CPU();
    std::string e = cpu_error(R"(
@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() < 16:
        out[i] = wp.shfl_down_sync(wp.uint32(0xffff), x[i], 1)
)");
    EXPECT_EQ(e,
              "kernel 'k', block 0: lane 15 of warp 0 reads lane 16 in wp.shfl_down_sync (mask 0x0000ffff), which the mask "
              "does not name: CUDA leaves the value undefined");
}

TEST(WarpCollectivesCpu, ReadingALaneThatReturned) {
    REQUIRE_CPU();
    std::string e = cpu_error(R"(
@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() >= 20:
        return
    out[i] = wp.shfl_down_sync(0xffffffff, x[i], 4)
)");
    EXPECT_EQ(e,
              "kernel 'k', block 0: lane 16 of warp 0 reads lane 20 in wp.shfl_down_sync (mask 0xffffffff), which has "
              "returned: CUDA leaves the value undefined; guard the shuffle or keep that lane running");
    // Past the launch: a launch of 40 threads has no lanes 8..31 in its second warp.
    std::string past = cpu_error(R"(
@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.shfl_down_sync(0xffffffff, x[i], 1)
)",
                                 40);
    EXPECT_EQ(past,
              "kernel 'k', block 0: lane 7 of warp 1 reads lane 8 in wp.shfl_down_sync (mask 0xffffffff), which does not "
              "exist (the block has 40 threads): CUDA leaves the value undefined; guard the shuffle or keep that lane running");
}

TEST(WarpCollectivesCpu, LanesAtDifferentCollectivesAreADeadlockNotAHang) {
    REQUIRE_CPU();
    std::string e = cpu_error(R"(
@wp.kernel
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() < 16:
        out[i] = wp.shfl_down_sync(0xffffffff, x[i], 1)
    else:
        if wp.any_sync(0xffffffff, x[i] > 0.0):
            out[i] = 1.0
)");
    EXPECT_EQ(e,
              "kernel 'k', block 0: lane 0 of warp 0 waits in wp.shfl_down_sync with mask 0xffffffff for lane 16, which "
              "never calls it: it waits in wp.any_sync with mask 0xffffffff. Every lane the mask names must call the same "
              "collective with the same mask, or have returned (on a GPU this hangs or gives undefined values)");
    std::string barrier = cpu_error(R"(
@wp.kernel(block_dim=64)
def k(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() < 16:
        out[i] = wp.shfl_xor_sync(0xffffffff, x[i], 1)
    wp.sync_threads()
)");
    EXPECT_EQ(barrier,
              "kernel 'k', block 0: lane 0 of warp 0 waits in wp.shfl_xor_sync with mask 0xffffffff for lane 16, which "
              "never calls it: it waits in wp.sync_threads(). Every lane the mask names must call the same collective with "
              "the same mask, or have returned (on a GPU this hangs or gives undefined values)");
}

// After a failed launch the device runs the next one (the block's fibers are reset).
TEST(WarpCollectivesCpu, TheDeviceRunsOnAfterAnError) {
    REQUIRE_CPU();
    auto m = module_of(R"(
@wp.kernel
def bad(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.shfl_sync(wp.uint32(1), x[i], 0)

@wp.kernel
def good(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.shfl_sync(0xffffffff, x[i], 0)
)");
    const int n = 64;
    std::vector<float> x(n);
    for (int i = 0; i < n; ++i) x[static_cast<size_t>(i)] = static_cast<float>(i);
    auto xa = array_of(f32(), x), out = runtime::Array::zeros(f32(), {n}, {});
    EXPECT_NE(error_of([&] { run(m, "bad", {n}, {arg(xa), arg(out)}); }), "(no error)");
    run(m, "good", {n}, {arg(xa), arg(out)});
    auto got = values_of<float>(out);
    for (int i = 0; i < n; ++i) EXPECT_EQ(got[static_cast<size_t>(i)], static_cast<float>(i / 32 * 32));
}

}  // namespace
