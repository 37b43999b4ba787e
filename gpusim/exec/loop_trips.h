// gpusim/exec/loop_trips.h — per-lane trip counts of the PTX loops a launch ran.
//
// Why: ptxas unrolls loops whose trip count it does not know into pieces (a main body of U
// copies that loops, a 2-copy block, a 1-copy remainder loop, ...). How often each piece runs
// depends on each thread's trip count, and for a warp on the trip counts of all its lanes (a
// piece runs as long as one lane still needs it). The SASS estimate (sass_count.cpp) needs them;
// the PTX execution counts alone (the loop body's total) cannot split a body's runs among the
// pieces.
//
// A PTX loop here is a backward `bra` (target at or before it). A lane's trip count is how
// often it ran the branch in one pass: taken each time it goes round, not taken when it leaves.
// A warp's pass begins when a lane first reaches the branch and ends when no lane is still
// going round; it is recorded as the sorted distinct trip counts of its lanes. A lane that
// leaves the loop another way (a break, a return) leaves the pass open: it is not recorded
// (the estimate checks the recorded passes against the PTX counts before it uses them).
// Cost: only backward branches do any of this, once per execution.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace weft::gpusim {

struct LoopTrips {
    int32_t branch = -1;                               // the backward bra (instruction index)
    int32_t header = -1;                               // its target
    std::map<std::vector<uint32_t>, uint64_t> passes;  // a warp's pass: its lanes' distinct trip counts (ascending) -> passes
};

// A warp's pass through one loop, in flight (kept in the Warp).
struct LoopPass {
    int32_t branch = -1;
    uint32_t going = 0;           // lanes that took the branch and have not left yet
    uint32_t iter[32] = {};       // per lane: times taken in this pass
    std::vector<uint32_t> trips;  // distinct trip counts of the lanes that left (sorted)
};

class LoopTripLog {
public:
    // A backward branch at `pc` to `target` ran with `active` lanes, of which `taken` went round.
    void backward_branch(std::vector<LoopPass>& passes, int32_t pc, int32_t target, uint32_t active, uint32_t taken);
    void merge(const LoopTripLog& other);
    std::vector<LoopTrips> loops() const;  // by branch index

private:
    std::map<int32_t, LoopTrips> loops_;
};

}  // namespace weft::gpusim
