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
// listed overall.
//
// On cpu and cuda devices a frame's profile is measured instead (runtime/kernel_timing.h: the
// wall clock around each cpu launch, CUDA events around each cuda launch):
//
//   runtime::KernelTiming timing;
//   session.step_frame();                                  // eagerly on cuda (Session::set_graphs)
//   FrameProfile p = measured_profile(timing.results());
//
// with the same kernels table (launches, time, share) and no per-line breakdown (a GPU's
// per-line times come from its sampling profilers; the simulator predicts them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpusim/timing/hotspots.h"
#include "runtime/kernel_timing.h"

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
    uint64_t cycles = 0;  // summed over its launches (predicted; 0 when measured)
    double time_us = 0;
    double share = 0;                // of the frame's kernel time, [0, 1]
    std::vector<ProfileLine> lines;  // by time, largest first
};

struct FrameProfile {
    bool measured = false;  // measured on `device` (true) or predicted by the simulator
    std::string device;     // "sim:h200", "cuda:0", "cpu"
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

// Measured launch times grouped by kernel, ranked by time (largest first); `device` is the
// launches' device ("" = the first launch's).
FrameProfile measured_profile(const std::vector<runtime::KernelTime>& times, const std::string& device = "");

// The time of the kernel called `name` in `p` (us), or a negative number when it has none: for
// the panel's column that sets a predicted profile beside a measured one.
double kernel_time_us(const FrameProfile& p, const std::string& name);

// The text of line `line` (from 1) of a kernel source: the engine's embedded kernels/*.py by the
// path's tail, else the file on disk; "" when neither has it.
std::string source_line(const std::string& file, int line);

}  // namespace weft::viewer
