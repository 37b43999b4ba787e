// gpusim/timing/hotspots.h — where the time of several launches went: per kernel and per
// source line, ranked. This is what a frame view asks ("this frame's hot kernels and lines"):
// the runtime's sim device keeps the TimingResult of each launch, the caller picks the
// launches of a frame, and summarize_hotspots() ranks them.
//
// A line's time is its share of its launch's warp-cycles times the launch's time: warp-cycles
// (issuing or stalled at the line) are what Nsight Compute's warp-state sampling counts, and
// their distribution is where the kernel's time goes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpusim/timing/timing.h"

namespace weft::gpusim {

struct KernelHotspot {
    std::string kernel;
    uint64_t launches = 0;
    uint64_t cycles = 0;  // summed over its launches
    double time_us = 0;
    double share = 0;  // of all launches' time, [0, 1]
};

struct LineHotspot {
    std::string kernel;
    std::string file;  // as the PTX .file names it
    int32_t line = 0;
    uint64_t warp_cycles = 0;
    double time_us = 0;                 // estimated: share of the launch's warp-cycles x launch time
    double share = 0;                   // of all launches' time, [0, 1]
    Stall top_stall = Stall::Selected;  // the reason with the most warp-cycles (Selected: issuing)
    uint64_t shared_requests = 0, shared_wavefronts = 0, shared_excess_wavefronts = 0;
    uint64_t global_requests = 0, global_sectors = 0;
    Counters counts;
};

struct Hotspots {
    uint64_t launches = 0;
    double time_us = 0;                  // sum of the launches' kernel times
    std::vector<KernelHotspot> kernels;  // by time, largest first
    std::vector<LineHotspot> lines;      // by time, largest first, at most max_lines
    // Host<->device copies of the same period, when the caller knows them (runtime/sim does).
    uint64_t copies = 0, copy_bytes = 0;
    double copy_time_us = 0;
};

Hotspots summarize_hotspots(std::span<const TimingResult* const> launches, size_t max_lines = 20);

}  // namespace weft::gpusim
