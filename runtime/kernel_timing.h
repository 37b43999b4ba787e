// runtime/kernel_timing.h: measured kernel times, launch by launch, for profilers (the viewer's
// frame profile on cpu and cuda devices, where gpusim's predictions are not available).
//
//   KernelTiming timing;                       // from now on launches are timed
//   stepper.step();                            // ... any launches, on any thread
//   std::vector<KernelTime> t = timing.results();   // waits for the GPU, then every launch since
//
// How each device measures:
//   cpu     the wall-clock time of the launch (cpu launches are synchronous: the call returns when
//           every thread of the kernel has run), std::chrono::steady_clock.
//   cuda    a pair of CUDA events recorded on the launch's stream before and after it;
//           results() synchronises the end events and reads cuEventElapsedTime (resolution about
//           0.5 us). Launches captured into a CUDA graph are not launched then, and a graph's
//           replay launches nothing Weft sees: time frames eagerly (engine::FrameStepper with
//           graphs = false) to see their kernels.
//   sim     not timed here: the simulator's per-launch reports hold predicted cycles
//           (runtime/sim/sim_backend.h, [SECTION] Reports).
// Timing costs one clock read per cpu launch and two event records per cuda launch, only while a
// KernelTiming is alive. Scopes may overlap; each sees the launches made during its life.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace weft::runtime {

struct KernelTime {
    std::string kernel;     // the kernel's name; "name (backward)" for adjoint launches
    std::string where;      // "kernels/springs.py:40", or "" when unknown
    std::string device;     // "cpu", "cuda:0"
    long long threads = 0;  // the launch's size (product of dim)
    double time_us = 0;     // measured, microseconds
    uint64_t sequence = 0;  // 1, 2, ... over the process's timed launches
};

class KernelTiming {
public:
    KernelTiming();
    ~KernelTiming();
    KernelTiming(const KernelTiming&) = delete;
    KernelTiming& operator=(const KernelTiming&) = delete;

    // The launches made since this scope began, in launch order; waits for pending GPU events.
    // Throws RuntimeError if a device fails while its events are read.
    std::vector<KernelTime> results() const;

private:
    uint64_t start_;
};

// [SECTION] For backends
// Whether some KernelTiming is alive.
bool kernel_timing_active();
// A finished launch's measured time.
void record_kernel_time(KernelTime t);
// A launch whose time is known later: `resolve` (called once, by results() or when no scope is
// left to want it, with `wanted` false so it only releases what it holds) returns microseconds.
void record_pending_kernel_time(KernelTime t, std::function<double(bool wanted)> resolve);

}  // namespace weft::runtime
