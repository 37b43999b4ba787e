// gpusim/exec/counters.h — what a functional launch counts (part 1 of gpusim stops at counts; the
// timing model turns them into cycles later).
//
// One Counters per PTX instruction is kept during a launch; the per-launch total and the
// per-source-line table are sums of those. Definitions (they match Nsight Compute's where a
// metric of the same meaning exists):
//   warp_instructions    times a warp issued the instruction (smsp__inst_executed)
//   thread_instructions  sum over issues of the active lanes, guard predicate not applied
//                        (smsp__thread_inst_executed)
//   global_loads/stores  per active, predicated-on lane: accesses to global memory (ld/st
//                        .global, .const, and generic addresses that resolve to global)
//   shared_loads/stores  the same for shared memory
//   shared_requests      warp-level shared-memory instructions issued with >= 1 lane on
//   local_loads/stores   per lane, local memory (including call parameters spilled there)
//   atomics              per lane, atom/red operations (any space)
//   branches             warp-level bra issues
//   divergent_branches   bra issues where the active lanes went both ways
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace weft::gpusim {

struct Counters {
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
    uint64_t global_loads = 0;
    uint64_t global_stores = 0;
    uint64_t shared_loads = 0;
    uint64_t shared_stores = 0;
    uint64_t shared_requests = 0;
    uint64_t local_loads = 0;
    uint64_t local_stores = 0;
    uint64_t atomics = 0;
    uint64_t branches = 0;
    uint64_t divergent_branches = 0;

    // thread_instructions / (32 * warp_instructions); 0 when nothing ran.
    double active_lane_ratio() const {
        return warp_instructions ? static_cast<double>(thread_instructions) / (32.0 * static_cast<double>(warp_instructions))
                                 : 0.0;
    }
    Counters& operator+=(const Counters& o);
    bool operator==(const Counters&) const = default;
};

// Counts of one source line (all instructions whose .loc attributes to it).
struct LineCounters {
    int32_t file = -1;      // .file number
    std::string file_name;  // from .file, "" if never declared
    int32_t line = 0;
    Counters counts;
};

// Counts of one PTX instruction that ran at least once.
struct InstructionCounters {
    int32_t index = 0;  // instruction index in the Module
    int32_t ptx_line = 0;
    std::string text;   // the PTX instruction as written
    int32_t file = -1;  // attributed source location, -1/0 if none
    int32_t line = 0;
    Counters counts;
};

}  // namespace weft::gpusim
