// compiler/audit/shared_profile: predicted shared-memory requests and wavefronts of whole
// launches of corpus kernels, against counts worked out by hand from the kernels' code.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/audit/audit.h"
#include "compiler/audit/shared_profile.h"
#include "compiler/driver.h"

namespace weft::compiler::audit {
namespace {

SharedProfile profile(const std::string& file, std::vector<int64_t> dims) {
    std::ifstream in(std::string(WEFT_AUDIT_CORPUS) + "/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    DiagnosticEngine diags;
    auto m = analyze_module({{file, ss.str(), 0}}, {}, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format_all();
    const ir::Function* k = nullptr;
    for (const auto& f : m->ir->functions)
        if (f->kind == ir::FunctionKind::Kernel) k = f.get();
    AuditOptions o;
    o.dims = std::move(dims);
    return shared_profile(*k, launch_model(*k, o));
}

TEST(SharedProfile, TileColumnReadIs32WayPerWarp) {
    // One block of 1024 threads: 32 warps store a row each (1 wavefront), then read a column
    // of the unpadded [32][32] tile (32 lanes in one bank: 32 wavefronts).
    SharedProfile p = profile("bank_tile_column.py", {1024});
    EXPECT_TRUE(p.exact) << p.why;
    EXPECT_EQ(p.blocks, 1);
    EXPECT_EQ(p.store.requests, 32);
    EXPECT_EQ(p.store.wavefronts, 32);
    EXPECT_EQ(p.load.requests, 32);
    EXPECT_EQ(p.load.wavefronts, 32 * 32);
    EXPECT_EQ(p.load.ideal, 32);
    SharedProfile q = profile("clean_bank_padded_column.py", {1024});
    EXPECT_EQ(q.load.wavefronts, 32);
}

TEST(SharedProfile, TreeReductionCountsEveryStep) {
    // 2 blocks of 64. Per block: 2 warps store s[t]; then for stride 32..1 only warp 0 has
    // active lanes: 2 loads and 1 store per step (6 steps); thread 0 reads s[0] at the end.
    SharedProfile p = profile("clean_block_reduce.py", {128});
    EXPECT_TRUE(p.exact) << p.why;
    EXPECT_EQ(p.blocks, 2);
    EXPECT_EQ(p.store.requests, 2 * (2 + 6));
    EXPECT_EQ(p.load.requests, 2 * (6 * 2 + 1));
    EXPECT_EQ(p.load.wavefronts, p.load.requests);
    EXPECT_EQ(p.store.wavefronts, p.store.requests);
}

TEST(SharedProfile, WideElementsAndAtomics) {
    // float64 stride 2: one warp, 8-byte lanes 16 bytes apart: 4 wavefronts, ideal 2.
    SharedProfile d = profile("bank_double_stride2.py", {32});
    EXPECT_EQ(d.store.requests, 1);
    EXPECT_EQ(d.store.wavefronts, 4);
    EXPECT_EQ(d.store.ideal, 2);
    // Shared atomics are counted apart: 2 warps x 2 atomic_add calls.
    SharedProfile h = profile("clean_shared_atomics.py", {64});
    EXPECT_EQ(h.atomic_requests, 4);
    EXPECT_EQ(h.store.requests, 1);  // h[t] = 0 by the first 8 lanes of warp 0
}

TEST(SharedProfile, LoadsOfAThreadsOwnStoreInTheIntervalAreForwardable) {
    // s[t] = a; s[t + 64] = 2 * s[t]; out = s[t] + s[t + 64]: every load reads what the thread
    // itself stored, with no barrier between: 3 loads x 2 warps, all forwardable.
    SharedProfile h = profile("clean_disjoint_halves.py", {64});
    EXPECT_EQ(h.load.requests, 6);
    EXPECT_EQ(h.forwarded.requests, 6);
    // The smoothing loop: s[t] written before the barrier, then each iteration reads s[t] and
    // s[(t + 1) % 32] and writes s[t]: iterations 2 and 3 read back their own s[t], as does the
    // final read; the neighbour reads are other threads' elements.
    SharedProfile r = profile("race_loop_carried.py", {32});
    EXPECT_EQ(r.forwarded.requests, 3);
    // A reduction reads s[t] only after a barrier: nothing to forward.
    EXPECT_EQ(profile("clean_block_reduce.py", {128}).forwarded.requests, 0);
    // Through a func: smooth(s, t) reads s[t] (stored by the thread) and s[t + 1] (not).
    EXPECT_EQ(profile("func_race_shared_arg.py", {64}).forwarded.requests, 2);
}

TEST(SharedProfile, InexactWhenDataDecides) {
    SharedProfile p = profile("barrier_data_dependent.py", {64});
    EXPECT_TRUE(p.exact) << p.why;  // its shared accesses are all on decided paths
    SharedProfile q = profile("clean_bank_broadcast.py", {});
    EXPECT_FALSE(q.exact);
    EXPECT_EQ(q.why, "the launch size is unknown (no --dim)");
    SharedProfile r = profile("race_loop_carried.py", {32});
    EXPECT_TRUE(r.exact) << r.why;
    EXPECT_EQ(r.load.requests, 1 + 3 * 2);  // final s[t] read + two reads per unrolled iteration
}

}  // namespace
}  // namespace weft::compiler::audit
