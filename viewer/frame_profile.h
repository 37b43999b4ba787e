// viewer/frame_profile.h: where a frame's simulated GPU time went, for the profile panel: the
// kernels ranked by cycles, and for each the source lines of kernels/*.py with their share of
// the kernel's time, top stall reason and memory behaviour.
//
//   uint64_t mark = runtime::sim_report_mark();
//   session.step_frame();                                  // on sim:ARCH
//   FrameProfile p = frame_profile_since(mark);            // every launch of that frame
//
// It is the same accounting as `weft sim` (gpusim::summarize_hotspots over the sim device's
// per-launch reports, runtime/sim/sim_backend.h [SECTION] Reports), grouped by kernel instead of
// listed overall. On devices without reports (cpu, cuda) a frame has no launches here and the
// panel says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpusim/timing/hotspots.h"

namespace weft::viewer {

struct ProfileLine {
    std::string file;  // "kernels/particles.py" (as the PTX .file names it)
    int line = 0;
    std::string text;       // the source line ("" when the file cannot be found)
    double time_us = 0;     // estimated (the line's share of its launches' warp-cycles x their time)
    double share = 0;       // of its kernel's time, [0, 1]
    std::string top_stall;  // "long_scoreboard", ...; "selected" when mostly issuing
    uint64_t shared_wavefronts = 0, shared_excess_wavefronts = 0;  // bank conflicts: the excess
    double sectors_per_request = 0;                                // global memory; 0 without requests
};

struct ProfileKernel {
    std::string name;
    uint64_t launches = 0;
    uint64_t cycles = 0;  // summed over its launches
    double time_us = 0;
    double share = 0;                // of the frame's kernel time, [0, 1]
    std::vector<ProfileLine> lines;  // by time, largest first
};

struct FrameProfile {
    uint64_t launches = 0;
    double time_us = 0;                  // the frame's kernel time
    std::vector<ProfileKernel> kernels;  // by cycles, largest first
    uint64_t copies = 0, copy_bytes = 0;
    double copy_time_us = 0;
};

// Groups hotspots by kernel and attaches each line's source text.
FrameProfile frame_profile(const gpusim::Hotspots& hotspots);

// The profile of every sim launch since `mark` (runtime::sim_report_mark()).
FrameProfile frame_profile_since(uint64_t mark);

// The text of line `line` (from 1) of a kernel source: the engine's embedded kernels/*.py by the
// path's tail, else the file on disk; "" when neither has it.
std::string source_line(const std::string& file, int line);

}  // namespace weft::viewer
