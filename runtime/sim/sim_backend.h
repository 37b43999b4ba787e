// runtime/sim/sim_backend.h: the `sim:ARCH` device: kernels run on gpusim's timing model.
//
// [SECTION] Architectures   which ARCH names exist; adding one from a JSON file
// [SECTION] Settings        timing or counts only, scheduler, instruction trace, timeline
// [SECTION] Reports         every launch's TimingResult, read back by tools since a mark
//
// Arrays live in host memory (gpusim dereferences global addresses directly). A module is
// compiled by NVRTC to the PTX the CUDA device would load for that architecture
// (runtime/cuda/ptx.h, through the disk cache) and parsed once by gpusim. A launch gets the
// grid the cuda device would give it (a grid-stride kernel capped at a few waves of resident
// blocks: runtime/cuda/grid_policy.h, WEFT_CUDA_GRID_WAVES). Each launch runs
// gpusim::launch_timed with the architecture file of ARCH, the parameter block the CUDA entry
// point takes, the kernel's register count from ptxas and what the timing model reads off
// ptxas's machine code (gpusim::sass_timing: issue weights, merged shared accesses, scheduled
// loads; the settings gpusim_validate scores against the H200), ptxas run once per module on
// the same PTX and its answers kept in the disk cache. So every launch yields cycles, time,
// IPC, stall reasons, bank conflicts, divergence, sectors per request, cache hit rates and
// achieved occupancy per kernel, per PTX instruction and per source line (.loc -> kernel
// file:line). Tools (`weft sim`, the viewer) take a mark
// before the work they want to see and read the reports of every launch after it.
//
// Files: sim_backend.cpp (the DeviceBackend: memory, copies, loading modules), sim_module.cpp
// (launches), sim_arch.cpp, sim_settings.cpp and report_log.cpp (the three sections below),
// allocations.cpp (the buffers a launch may touch).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "gpusim/arch/arch.h"
#include "gpusim/timing/hotspots.h"
#include "gpusim/timing/timing.h"
#include "runtime/device.h"

namespace weft::runtime {

// ---------------------------------------------------------------------------------------------
// [SECTION] Architectures
// The names are gpusim's architecture files (gpusim/arch/resolve_arch.h), plus those registered
// below; an unknown one is RuntimeError with gpusim's message (did-you-mean, the known names).
bool sim_arch_known(const std::string& arch);
std::vector<std::string> sim_arch_names();                  // sorted
std::string sim_ptx_arch(const std::string& arch);          // "h200" -> "sm_90"; RuntimeError if unknown
const gpusim::ArchSpec& sim_arch(const std::string& arch);  // RuntimeError if unknown
// Makes `sim:NAME` use an architecture (gpusim/arch/*.json format), NAME being its "name" (a
// built-in of the same name is replaced for this process). Returns NAME. `source` names the
// file in the error for a name that cannot be a device name.
std::string register_sim_arch(const gpusim::ArchSpec& arch, const std::string& source);
// Loads an architecture file and registers it. Throws RuntimeError carrying the loader's
// file:line:col and key.
std::string register_sim_arch_file(const std::string& path);
std::unique_ptr<DeviceBackend> make_sim_backend(const Device& d);

// ---------------------------------------------------------------------------------------------
// [SECTION] Settings (process-wide; read at each launch)
struct SimSettings {
    bool timing = true;                   // false: functional counts only (no cycles); also
                                          // when the environment sets WEFT_SIM_TIMING=0
    std::string scheduler = "gto";        // gpusim::scheduler_names(): gto, lrr, two-level, latency-hiding
    std::shared_ptr<std::ostream> trace;  // JSONL instruction trace of every launch (null: none)
    gpusim::TraceFilter trace_filter;     // checked at set_sim_settings
    bool timeline = false;                // keep block and warp spans (for a Chrome trace)
    int threads = 0;                      // host threads gpusim simulates a launch's SMs with; 0 = the
                                          // environment's WEFT_SIM_THREADS, else the CPU pool's size
                                          // (WEFT_NUM_THREADS, default every core). Reports do not
                                          // depend on it (docs/gpusim.md, "Speed")
};
// Throws RuntimeError for an unknown scheduler, a filter that cannot match or threads < 0 (naming it).
void set_sim_settings(const SimSettings& s);
SimSettings sim_settings();
gpusim::SchedulerFactory sim_scheduler(const std::string& name);  // RuntimeError if unknown
bool sim_timing_enabled(const SimSettings& s);                    // s.timing, unless the environment sets WEFT_SIM_TIMING=0
int sim_threads(const SimSettings& s);  // s.threads resolved (>= 1); RuntimeError for a WEFT_SIM_THREADS that is not >= 1

// ---------------------------------------------------------------------------------------------
// [SECTION] Reports
struct SimLaunchReport {
    uint64_t sequence = 0;        // launches on sim devices in this process, from 0
    std::string device;           // "sim:h200"
    bool timed = true;            // false: counts only (SimSettings::timing off)
    gpusim::TimingResult result;  // result.counts: the functional counts (kernel, lines, PTX)
    std::string symbol;           // the PTX entry that ran (as Nsight Compute names the kernel)
};

// A copy on a sim device, timed as the GPU would take it: host<->device over PCIe at the
// architecture's pcie_gbs, device-to-device at its DRAM bandwidth (bytes read + written). No
// fixed per-copy latency is added (not measured yet). Copies share the launches' sequence.
struct SimCopyReport {
    enum class Kind : uint8_t { HostToDevice, DeviceToHost, DeviceToDevice };
    uint64_t sequence = 0;
    std::string device;
    Kind kind = Kind::HostToDevice;
    uint64_t bytes = 0;
    double time_us = 0;
};

// The sequence number the next launch or copy will get. Pass it to sim_reports_since() later.
uint64_t sim_report_mark();
// Copies with sequence >= mark, oldest first (the last kSimReportLog are kept).
std::vector<SimCopyReport> sim_copies_since(uint64_t mark);
// Reports of launches with sequence >= mark, oldest first. The log keeps the last
// kSimReportLog launches; older ones are gone.
inline constexpr size_t kSimReportLog = 1024;
std::vector<std::shared_ptr<const SimLaunchReport>> sim_reports_since(uint64_t mark);
// The hot kernels and source lines of the launches since `mark` (e.g. one frame's), with the
// copies since `mark` in Hotspots::copies / copy_bytes / copy_time_us.
gpusim::Hotspots sim_hotspots_since(uint64_t mark, size_t max_lines = 20);

}  // namespace weft::runtime
