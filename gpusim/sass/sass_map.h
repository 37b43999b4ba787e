// gpusim/sass/sass_map.h — how many SASS instructions ptxas makes from each PTX instruction, read
// from ptxas's own line table, so that gpusim's PTX execution counts become SASS counts.
//
// Why: Nsight Compute counts SASS instructions (smsp__inst_executed); gpusim executes PTX.
// ptxas expands some PTX instructions (rem.s32 -> a dozen SASS, 64-bit adds -> two, a PTX
// `ret` -> EXIT), folds others (ld.param -> constant-bank operands, cvta.to.global), and adds
// a few of its own. With -lineinfo it writes `.nv_debug_line_sass`, a DWARF line table whose
// "lines" are lines of the PTX file (the PTX is embedded as `.nv_debug_ptx_txt`). So each SASS
// instruction of a kernel names the PTX line it came from. Executed SASS instructions are then
//     sum over PTX instructions p of  warp_executions(p) x sass_from(p)
// which is exact where each SASS instruction runs as often as the PTX instruction it is
// attributed to (straight-line code and loops ptxas does not unroll further); see
// docs/gpusim.md for how close it lands on the H200. Needs no GPU, only ptxas. The padding
// after the kernel's final EXIT (a self-branch and NOPs, never executed) is not counted.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpusim/arch/arch.h"
#include "gpusim/arch/ptxas.h"
#include "gpusim/exec/launch.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

class SassMapError : public std::runtime_error {
public:
    explicit SassMapError(const std::string& what) : std::runtime_error(what) {}
};

struct SassInstruction {
    uint64_t lo = 0, hi = 0;  // the 128-bit instruction word (opcode in lo's low 12 bits)
    int32_t ptx_line = -1;    // PTX line it is attributed to; -1 outside the line table
};

struct KernelSass {
    uint32_t static_instructions = 0;          // SASS instructions of the kernel, padding excluded
    uint32_t unattributed = 0;                 // of those, outside the line table (not counted)
    std::map<int32_t, uint32_t> per_ptx_line;  // PTX line -> SASS instructions attributed to it
    std::vector<SassInstruction> code;  // the instructions themselves, padding excluded (the audit decodes shared loads/stores)
};

struct SassMap {
    std::map<std::string, KernelSass> kernels;  // by entry name
};

// A map as text, and back: per kernel a line `kernel NAME N`, then N lines `LO HI LINE` (the
// instruction words in hex, the PTX line or -1). The counts (static_instructions, unattributed,
// per_ptx_line) follow from the words, so the text holds only those. For disk caches (the sim
// device keeps it beside the PTX): a map read back is the map written, words and all, so every
// function below gives the same answer. sass_map_from_text throws SassMapError on bad text.
std::string sass_map_to_text(const SassMap& map);
SassMap sass_map_from_text(const std::string& text);

// Runs `ptxas -lineinfo -arch=sm_XY` (arch/ptxas.h) on `ptx` (the text the Module was parsed from, so PTX
// line numbers agree) and reads the cubin's line table. Throws SassMapError with ptxas's
// output, or naming what the cubin lacks.
SassMap map_sass(const std::string& ptx, const ArchSpec& arch, const std::string& ptxas = ptxas_path());
// Parses a cubin (ELF) that ptxas made with -lineinfo.
SassMap read_sass_map(const std::string& cubin_bytes);

// True for a PTX instruction (its text) that ptxas turns into exactly one SASS instruction when
// it does not unroll: 32-bit integer and f32 arithmetic, compares, selects, shifts, logic,
// loads and stores. The unroll factor of a block is read off these.
bool sass_one_to_one(const std::string& text);
// Per instruction of `module`: the SASS instructions one execution of it costs (its line's
// SASS count divided by the unroll factor of its basic block, read off the block's one-to-one
// instructions as their median SASS count; 0 for instructions ptxas folded away).
std::vector<double> sass_weights(const SassMap& map, const Module& module, const std::string& kernel);
// How the machine code issues one PTX shared load or store (ld/st.shared, not atomics).
// requests < 0: as the PTX writes it (not a shared access, or ptxas did something the map
// cannot follow). requests 0: ptxas merged it into a neighbour's wider instruction. requests 1
// with `width` wider than the PTX access: the head of such a merge (the lanes' addresses,
// rounded down to `width`, make the request).
struct SharedIssue {
    double requests = -1;     // LDS/STS instructions per execution
    int width = 0;            // their bytes per thread
    bool after_head = false;  // requests 0: a wider load of its block precedes it in the PTX
                              // (its data arrive with the last such load's)
};
// Per instruction of `module`: the LDS/STS words ptxas attributes to its PTX line, decoded by
// sass_decode.h. Only where a basic block moves, per kind (load/store), exactly the bytes its
// PTX accesses move (ptxas merged neighbours and did nothing else), with one instruction per
// PTX line in each copy of the block ptxas unrolled (or none); anything else (a line with a
// narrower instruction, mixed widths, a count that is not the unroll factor) keeps the whole
// block as written.
// Needs the instruction words (`KernelSass::code`); without them everything is as written.
std::vector<SharedIssue> sass_shared_issue(const SassMap& map, const Module& module, const std::string& kernel);
// The straight-line stretches ptxas schedules within: a basic block, also cut after a barrier
// (bar.sync/bar.arrive) and a memory barrier. leaders[i]: instruction i starts one.
std::vector<bool> schedule_segments(const Module& module);
// Where ptxas scheduled a load (ld.shared/ld.global/ld.local) above PTX instructions before it
// in its segment (schedule_segments): `offset` = the issue cycles (`weights`, sass_weights()) of
// the instructions the machine code places before it in the segment, and `after` = those of them
// that come before it in the PTX too and read a register the segment writes (the load cannot
// issue before their operands are ready: the SASS issues in order). offset < 0: not hoisted (or
// one of the instructions placed before it comes after it in the PTX and reads a load of the
// segment, whose timing the in-order PTX issue does not know yet). A load ptxas merged into a
// neighbour (no SASS of its own) takes the place of the nearest load before it that has SASS.
struct LoadHoist {
    double offset = -1;
    std::vector<int32_t> after;  // instruction indices
};
std::vector<LoadHoist> sass_load_hoist(const SassMap& map, const Module& module, const std::string& kernel,
                                       const std::vector<double>& weights);
// Per instruction of `module`: where, in the machine code, a warp waits for its result, as the PTX
// instruction whose line holds that SASS instruction (-1: unknown, or not a result the scoreboard
// tracks). ptxas gives a variable-latency instruction (LDG, LDS, MUFU, ...) a scoreboard barrier to
// set when its result is written (sass_cfg.h's SassSchedule); the first instruction after it that
// waits on that barrier is where Nsight Compute's samples find the warp stalled. ptxas reorders,
// so that instruction is often not the PTX's first reader of the register (float64 step(): a
// select's compare waits for a load in the machine code, the multiply before it in the PTX).
// Read off the first SASS instruction of the PTX line that sets a write barrier.
std::vector<int32_t> sass_stall_sites(const SassMap& map, const Module& module, const std::string& kernel);
// What the timing model takes from the machine code of one kernel: TimingOptions'
// issue_weights (sass_weights), shared_issue (sass_shared_issue), load_hoist
// (sass_load_hoist on those weights) and stall_site (sass_stall_sites). gpusim_validate, whose
// cycles docs/gpusim.md scores against the H200, and the sim device both set them from this one
// function.
struct SassTiming {
    std::vector<double> issue_weights;
    std::vector<SharedIssue> shared_issue;
    std::vector<LoadHoist> load_hoist;
    std::vector<int32_t> stall_site;
};
SassTiming sass_timing(const SassMap& map, const Module& module, const std::string& kernel);
// SASS warp instructions the launch would execute (the sum of estimate_sass_counts; for a map
// without instruction words, the per-line estimate: PTX executions x sass_weights, plus the
// prologue once per warp).
// `counts` must come from a launch of `kernel` of `module` with per-instruction counts.
uint64_t estimate_sass_instructions(const SassMap& map, const Module& module, const std::string& kernel,
                                    const LaunchResult& counts);
// Per SASS instruction of the kernel (KernelSass::code order): the warp executions estimated
// for it (sass_count.cpp says how: per SASS basic block, from the block's own PTX lines, slow
// paths, unrolled loops' trip counts and flow, else the per-line estimate above).
std::vector<double> estimate_sass_counts(const SassMap& map, const Module& module, const std::string& kernel,
                                         const LaunchResult& counts);

}  // namespace weft::gpusim
