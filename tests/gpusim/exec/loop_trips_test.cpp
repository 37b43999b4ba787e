// tests/gpusim/exec/loop_trips_test.cpp — per-lane trip counts of PTX loops (loop_trips.h), by hand
// and from a launch.
#include <gtest/gtest.h>

#include <map>

#include "gpusim/exec/launch.h"
#include "gpusim/exec/loop_trips.h"
#include "gpusim/ptx/parse_ptx.h"

namespace weft::gpusim {
namespace {

// Per-lane trip counts: two lanes going round 2 and 3 times make one pass {2, 3}; a pass in
// which both go round once, {1}.
TEST(LoopTrips, RecordsEachPassAsItsLanesDistinctTripCounts) {
    LoopTripLog log;
    std::vector<LoopPass> passes;
    log.backward_branch(passes, 9, 4, 0b11, 0b11);  // both go round
    log.backward_branch(passes, 9, 4, 0b11, 0b10);  // lane 0 leaves after 2
    log.backward_branch(passes, 9, 4, 0b10, 0b00);  // lane 1 leaves after 3
    log.backward_branch(passes, 9, 4, 0b11, 0b00);  // a new pass: both leave at once
    const std::vector<LoopTrips> loops = log.loops();
    ASSERT_EQ(loops.size(), 1u);
    EXPECT_EQ(loops[0].branch, 9);
    EXPECT_EQ(loops[0].header, 4);
    const std::map<std::vector<uint32_t>, uint64_t> expect = {{{1}, 1}, {{2, 3}, 1}};
    EXPECT_EQ(loops[0].passes, expect);
}

// A launch records them: lane l of a one-warp block goes round l % 4 + 1 times.
TEST(LoopTrips, LaunchRecordsLaneTripCounts) {
    const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mov.u32 %r3, 0;
LOOP:
  add.s32 %r3, %r3, 1;
  setp.le.u32 %p1, %r3, %r2;
  @%p1 bra LOOP;
  ret;
}
)";
    const Module m = parse_ptx(kPtx, "l.ptx");
    uint64_t unused = 0;
    ParamPacker p;
    p.add(&unused);
    const LaunchResult r = launch(m, "k", {2, 1, 1}, {32, 1, 1}, p.bytes());
    ASSERT_EQ(r.loops.size(), 1u);
    const std::map<std::vector<uint32_t>, uint64_t> expect = {{{1, 2, 3, 4}, 2}};
    EXPECT_EQ(r.loops[0].passes, expect);
}

}  // namespace
}  // namespace weft::gpusim
