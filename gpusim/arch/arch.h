// gpusim/arch/arch.h — a GPU architecture description (gpusim/arch/*.json) and its loader.
//
// [SECTION] ArchSpec     every number the occupancy calculator and the timing model read
// [SECTION] Loading      parse_arch (text), load_arch (file), builtin_arch ("h200" ...)
//
// What `--arch` means (a file's name or path) is resolve_arch.h; what follows from a file is
// occupancy.h (blocks per SM), bank_model.h (the shared-memory bank rule) and ptxas.h (the
// registers and shared memory ptxas gives each kernel for the file's sm_XX target).
//
// The JSON files group the numbers by unit (sm, shared, l1, l2, dram, latency, issue, launch,
// interconnect); docs/gpusim.md cites where each came from. The loader is strict: every key
// listed below must be present with the right type, unknown keys are errors (a misspelt key
// would otherwise silently keep a default), and keys starting with '_' are comments. Errors are
// ArchError with file:line:col and the dotted key ("h200.json:14:20: error: 'l2.size_bytes':
// expected a number, found a string").
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::gpusim {

class ArchError : public std::runtime_error {
public:
    explicit ArchError(const std::string& what) : std::runtime_error(what) {}
};

// ---------------------------------------------------------------------------------------------
// [SECTION] ArchSpec
// Per-class timing of the instruction classes the timing model distinguishes (see
// timing/instr_class.h): latency = cycles from issue until a dependent instruction may issue;
// issue_cycles = cycles the class's pipe in one SM sub-partition is busy per warp instruction
// (1 / throughput in warp instructions per cycle per sub-partition).
enum class PipeClass : uint8_t { Alu, Fma, Imad, Fp64, Sfu, Conv, Branch, Shfl, Shared, Global, Local, Atomic, Barrier, kCount };
inline constexpr int kNumPipeClasses = static_cast<int>(PipeClass::kCount);
const char* pipe_class_name(PipeClass c);

// Precise operations that ptxas expands into a routine of dependent instructions (a range check,
// a MUFU approximation, Newton steps, a branch to a slow path that is rarely taken): their latency
// is the routine's, not one SFU or FP64 instruction's.
enum class ExpandedOp : uint8_t { SqrtF32, RcpF32, DivF32, SqrtF64, RcpF64, DivF64, DivInt, kCount };
inline constexpr int kNumExpandedOps = static_cast<int>(ExpandedOp::kCount);
const char* expanded_op_name(ExpandedOp e);  // the key in an architecture file's "expanded_latency"

struct PipeTiming {
    double latency = 4;       // cycles
    double issue_cycles = 1;  // cycles per warp instruction per sub-partition
};

struct ArchSpec {
    std::string name;                // "h200"
    int cc_major = 9, cc_minor = 0;  // compute capability
    // sm
    int sm_count = 132;
    double sm_clock_mhz = 1980;   // the clock cycles are converted to time with
    int schedulers_per_sm = 4;    // sub-partitions, one warp scheduler each
    int issue_per_scheduler = 1;  // warp instructions per cycle per scheduler
    int max_warps_per_sm = 64;
    int max_blocks_per_sm = 32;
    int max_threads_per_sm = 2048;
    int max_threads_per_block = 1024;
    int registers_per_sm = 65536;  // 32-bit registers
    int max_registers_per_block = 65536;
    int max_registers_per_thread = 255;
    int register_alloc_unit = 256;   // registers, per warp
    int warp_alloc_granularity = 4;  // (informational; the sub-partition split is what limits)
    // shared memory and L1 (one SRAM)
    int l1_shared_bytes = 262144;          // total per SM
    int shared_per_sm_max = 233472;        // largest carveout, bytes
    int shared_per_block_max = 232448;     // opt-in limit per block, bytes
    int shared_per_block_default = 49152;  // without opt-in
    int shared_reserved_per_block = 1024;  // the runtime's per-block reservation
    int shared_alloc_unit = 128;           // bytes
    std::vector<int> shared_carveouts_kb;  // supported shared-memory carveouts per SM, KiB
    int shared_banks = 32;
    int shared_bank_bytes = 4;
    // L1 data cache
    int l1_line_bytes = 128, l1_sector_bytes = 32, l1_assoc = 4;
    double l1_hit_latency = 33;
    int l1_wavefront_bytes = 128;  // bytes the L1 data stage moves per cycle
    // L2
    int64_t l2_bytes = 62914560;
    int l2_line_bytes = 128, l2_sector_bytes = 32, l2_assoc = 16;
    double l2_hit_latency = 260;
    double l2_bandwidth_bytes_per_cycle = 5500;      // whole chip, reads
    int l2_slices = 96;                              // L2 slices; a 128-byte line lives in slice (line index mod slices)
    double l2_store_lines_per_cycle = 37;            // whole chip: store requests (one per line) per cycle
    double l2_atomic_sectors_per_cycle = 28;         // whole chip, SMs into L2: atomic sectors per cycle
    double l2_atomic_lane_ops_per_cycle = 1e6;       // whole chip, SMs into L2: atomic lane operands per cycle
    double l2_atomic_slice_sectors_per_cycle = 0.3;  // one slice: atomic sectors (distinct words) per cycle
    int l2_atomic_slice_lines = 1;                   // consecutive 128-byte lines whose atomics one slice serves
    double l2_atomic_same_address_cycles = 10;       // a slice's cycles per lane on one word (serialised), float atomics
    double l2_atomic_same_address_cycles_int = 10;   // the same for integer (and bitwise) atomics
    // DRAM
    double dram_bandwidth_gbs = 4000;  // achievable (read + write)
    double dram_latency = 480;         // cycles, load-to-use of an access that misses L2
    int64_t dram_bytes = 0;
    // Loaded latency: extra cycles a DRAM access waits when the chip's DRAM is busy, as points
    // {utilisation in [0, 1] (fraction of dram_bandwidth_gbs in use), extra cycles}, piecewise
    // linear, utilisation increasing; {{0, 0}}: latency does not grow with load.
    std::vector<std::pair<double, double>> dram_loaded_latency = {{0.0, 0.0}};
    // instruction classes
    PipeTiming pipes[kNumPipeClasses];
    double expanded_latency[kNumExpandedOps] = {43, 64, 46, 80, 61, 112, 60};  // cycles, fast path
    // launch
    double launch_overhead_cycles = 3000;  // kernel start to first block issue plus drain
    double launch_overhead_us = 2.5;       // host-side launch interval (back-to-back launches)
    double block_launch_cycles = 100;      // extra cycles before a newly placed block issues
    // Each SM places and retires its blocks one at a time, in one unit (the H200's empty-block
    // waves: bench/results/gpusim-h200/2026-12-03-run3/ncu_calib.csv). Placing a block holds it
    // block_start_cycles, retiring one block_retire_cycles; a slot takes its next block once its
    // last block is retired. 0 and 0: blocks are placed in parallel, as soon as a slot is free.
    double block_start_cycles = 0;   // cycles the SM's block unit spends placing one block
    double block_retire_cycles = 0;  // cycles it spends retiring one (the kernel's end does not wait for it)
    double barrier_latency = 20;     // cycles from the last arrival to the release
    // interconnect
    double pcie_gbs = 50;
    double nvlink_gbs = 0;

    // The PTX/SASS target of the compute capability: "sm_90".
    std::string sm_target() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
    double dram_bytes_per_cycle() const { return dram_bandwidth_gbs * 1e9 / (sm_clock_mhz * 1e6); }
    // The L2 slice whose atomic unit serves the 128-byte line with index `line` (device address / 128).
    size_t l2_atomic_slice(uint64_t line) const {
        return static_cast<size_t>(line / static_cast<uint64_t>(l2_atomic_slice_lines) % static_cast<uint64_t>(l2_slices));
    }
    // dram_loaded_latency at `utilisation` (clamped to the first and last points).
    double dram_extra_latency(double utilisation) const;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Loading
// Parses an architecture file's text; `source` names it in errors. Throws ArchError.
ArchSpec parse_arch(std::string_view text, const std::string& source);
// Reads and parses a file.
ArchSpec load_arch(const std::string& path);
// "h200", "h100", "a100", "rtx4090", "v100": every file in gpusim/arch/*.json, compiled in.
ArchSpec builtin_arch(std::string_view name);
std::vector<std::string> builtin_arch_names();  // sorted

}  // namespace weft::gpusim
