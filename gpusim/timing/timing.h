// gpusim/timing/timing.h — the timing model's entry point: a launch that also counts cycles.
//
// [SECTION] Stall reasons     what a warp waits for in a cycle (Nsight Compute's names)
// [SECTION] Counters          TimingCounters, per kernel / PTX instruction / source line
// [SECTION] Options           TimingOptions: architecture, policies, threads, traces
// [SECTION] Results           TimingResult
// [SECTION] Launch            launch_timed(), writers (JSON, Chrome trace)
//
// Model (docs/gpusim.md has the full description and the validation against an H200):
// blocks go to SMs round-robin and stay resident up to the occupancy limit (occupancy.h).
// Each SM has `schedulers` sub-partitions; each cycle each sub-partition issues at most one
// instruction of one of its warps, chosen by the WarpSchedulerPolicy among the warps whose
// source registers are ready (per-warp scoreboard) and whose pipe is free (issue_cycles per
// class and sub-partition). The functional executor runs the instruction at issue, so the
// model sees real addresses and real control flow. Memory: shared requests cost the
// SharedMemoryModel's wavefronts on the SM's L1 data stage; global/local requests are
// coalesced into 32-byte sectors, looked up in the SM's sectored L1 and the shared sectored L2,
// and queue for the SM's share of L2 and DRAM bandwidth. Latencies, issue rates and
// bandwidths come from the ArchSpec. SMs are simulated in epochs of `epoch_cycles`: within an
// epoch they are independent (and may run on several host threads); at the epoch's end their
// L2 accesses are applied to the shared L2 in SM order, so the result does not depend on the
// host thread count.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/arch/arch.h"
#include "gpusim/exec/launch.h"
#include "gpusim/arch/occupancy.h"
#include "gpusim/arch/ptxas.h"
#include "gpusim/sass/sass_map.h"
#include "gpusim/timing/policies.h"

namespace weft::gpusim {

// ---------------------------------------------------------------------------------------------
// [SECTION] Stall reasons
enum class Stall : uint8_t {
    Selected,          // issued this cycle
    NotSelected,       // eligible, another warp issued
    Wait,              // fixed-latency dependency (ALU/FMA result not ready yet)
    ShortScoreboard,   // waiting on an MIO result: shared memory, SFU, shuffle
    LongScoreboard,    // waiting on an L1TEX result: global/local memory
    Barrier,           // waiting at bar.sync for the block's other warps
    MathPipeThrottle,  // the instruction's math pipe is busy
    MioThrottle,       // the shared-memory / L1 data stage is busy
    LgThrottle,        // (reserved: global-memory queue full)
    kCount
};
inline constexpr int kNumStalls = static_cast<int>(Stall::kCount);
const char* stall_name(Stall s);  // "selected", "not_selected", "long_scoreboard", ...

// ---------------------------------------------------------------------------------------------
// [SECTION] Counters
struct TimingCounters {
    uint64_t stall_cycles[kNumStalls] = {};  // warp-cycles spent at this instruction, by reason
    uint64_t shared_wavefronts = 0;          // shared-memory data-stage passes
    uint64_t shared_ideal_wavefronts = 0;    // without bank conflicts
    uint64_t global_requests = 0;            // warp-level global/local ld/st/atom with >= 1 lane
    uint64_t global_sectors = 0;             // distinct 32-byte sectors of those requests
    uint64_t l1_hits = 0, l1_misses = 0;     // sectors (loads)
    uint64_t l2_hits = 0, l2_misses = 0;     // sectors reaching L2
    uint64_t memory_latency_cycles = 0;      // sum over memory requests of issue-to-data cycles
    uint64_t issue_cycles() const { return stall_cycles[0]; }
    uint64_t shared_excess_wavefronts() const { return shared_wavefronts - shared_ideal_wavefronts; }
    uint64_t total_stall_cycles() const;                                            // all reasons but Selected
    uint64_t warp_cycles() const { return issue_cycles() + total_stall_cycles(); }  // warp-cycles spent here
    TimingCounters& operator+=(const TimingCounters& o);
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Options
// Which issued instructions the JSONL trace keeps (all conditions must hold).
struct TraceFilter {
    int32_t sm = -1;           // only this SM (-1: all)
    int64_t block = -1;        // only this linear block index (-1: all)
    int32_t warp = -1;         // only this warp index within its block (-1: all)
    int32_t source_line = -1;  // only instructions attributed to this source line
    std::string opcode;        // only these opcodes: "ld" matches ld.global.f32 and
                               // ld.shared.u32, "ld.shared" only the latter ("" all)
    uint64_t first_cycle = 0, last_cycle = UINT64_MAX;
    uint64_t max_records = 1000000;  // stop recording after this many
};
// Throws SimError naming the field when a filter cannot match anything by construction
// (an opcode that is no PTX mnemonic, an inverted cycle window).
void check_trace_filter(const TraceFilter& filter);
// Whether PTX instruction text (predicate guard allowed) has an opcode `filter` selects.
bool trace_opcode_matches(std::string_view instruction_text, std::string_view filter);

struct TimingOptions {
    ArchSpec arch;                     // e.g. builtin_arch("h200")
    int registers_per_thread = -1;     // -1: ask ptxas (needs ptx_text), 0: no register limit
    int64_t static_shared_bytes = -1;  // the kernel's static shared memory for occupancy;
                                       // -1: ptxas's figure when ptxas runs, else the module's
                                       // (which sums every kernel's .shared variables)
    std::string ptx_text;              // the module's PTX, for ptxas's register count
    std::string ptxas = ptxas_path();
    SchedulerFactory scheduler = gto_scheduler();
    std::shared_ptr<const SharedMemoryModel> shared_model;    // null: NvidiaBankModel
    std::shared_ptr<const CachePolicy> l1_policy, l2_policy;  // replacement; null: LRU
    std::vector<double> issue_weights;                        // per module instruction: issue cycles of one execution
                                                              // (SASS instructions ptxas makes from it: sass_weights()
                                                              // in sass_map.h); empty: 1 per instruction that is not folded
    std::vector<SharedIssue> shared_issue;                    // per module instruction: how the machine code issues a
                                                              // shared load/store (sass_shared_issue() in sass_map.h:
                                                              // ptxas's merged LDS.128/STS.64); empty: as the PTX writes it
    std::vector<LoadHoist> load_hoist;                        // per module instruction: where ptxas scheduled a load
                                                              // early (sass_load_hoist() in sass_map.h); empty:
                                                              // every load issues where the PTX has it
    std::vector<int32_t> stall_site;                          // per module instruction: the instruction at which a
                                                              // warp waiting for its result is counted stalled (the
                                                              // machine code's first waiter, sass_stall_sites() in
                                                              // sass_map.h); -1 or empty: the PTX reader that waits
    int threads = 1;                                          // host threads simulating SMs
    uint32_t epoch_cycles = 256;                              // L2 synchronisation interval
    LaunchOptions launch;                                     // functional options (dynamic shared memory, ...)
    std::ostream* instruction_trace = nullptr;                // JSONL, one issued instruction per line
    TraceFilter trace_filter;
    bool block_timeline = true;  // keep per-block start/end for the Chrome trace
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Results
struct BlockSpan {
    uint64_t block = 0;  // linear block index
    int32_t sm = 0, slot = 0;
    uint64_t start = 0, end = 0;  // cycles from the kernel's start
};

// The life of one warp: from its block's placement to its exit (cycles from the kernel's start).
struct WarpSpan {
    uint64_t block = 0;
    int32_t sm = 0, slot = 0, warp = 0, scheduler = 0;
    uint64_t start = 0, end = 0;
    uint64_t issued = 0;  // warp instructions it issued
};

struct TimingResult {
    LaunchResult counts;  // the functional counts (same as launch())
    std::string arch;
    Occupancy occupancy;
    uint64_t cycles = 0;            // kernel duration, launch overhead included
    double time_us = 0;             // cycles / clock
    double ipc = 0;                 // warp instructions per active SM cycle
    double achieved_occupancy = 0;  // average active warps / max warps, active SMs
    uint64_t sm_active_cycles = 0;  // summed over SMs
    uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
    uint64_t issued_instructions = 0;  // warp instructions that took an issue slot
    // SASS warp instructions the GPU would execute (Nsight Compute's smsp__inst_executed),
    // estimated from the PTX executions by gpusim::estimate_sass_instructions (sass_map.h). Set by
    // callers that hold ptxas's map (the sim device does); 0 when not estimated.
    uint64_t sass_instructions = 0;
    TimingCounters total;
    std::vector<TimingCounters> per_instruction;  // parallel to counts.per_instruction
    std::vector<TimingCounters> per_line;         // parallel to counts.per_line
    std::vector<BlockSpan> blocks;                // when TimingOptions::block_timeline
    std::vector<WarpSpan> warps;                  // when TimingOptions::block_timeline
    std::string scheduler, shared_model, l1_policy, l2_policy;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Launch
// Like launch() (same parameters and errors), plus OccupancyError when the block does not fit.
TimingResult launch_timed(const Module& module, std::string_view kernel, Dim3 grid, Dim3 block, std::span<const std::byte> params,
                          const TimingOptions& options);

// {"kernel", ..., "total", "lines", "instructions"} as write_json, with a "timing" object at
// the top and in each line and instruction.
void write_timing_json(std::ostream& out, const TimingResult& result);
// Chrome trace / Perfetto: each SM is a process; its threads are the block slots (one event
// per block) and the warps (one event per warp, on a track per slot and warp index, named
// with the warp's scheduler). Several launches are laid end to end, each starting
// `launch.overhead_us` after the previous one ended, as back-to-back launches on one stream.
void write_chrome_trace(std::ostream& out, const TimingResult& result);
void write_chrome_trace(std::ostream& out, std::span<const TimingResult* const> launches, double gap_us = 0);

}  // namespace weft::gpusim
