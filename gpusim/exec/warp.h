// gpusim/exec/warp.h — the state of one warp and of one block while it runs (internal header).
//
//   registers   [reg][lane], 64-bit slots: an instruction loops over the 32 lanes of one
//               register row, so a warp instruction touches contiguous memory
//   SIMT stack  entries {pc, rpc, mask, frame}; the top entry runs. A divergent branch turns
//               the top into its reconvergence entry (pc = rpc of the branch) and pushes the
//               not-taken then the taken path; an entry pops when its pc reaches its rpc or its
//               mask empties. A call pushes a marker (frame of the callee, lanes that have
//               returned) and the callee's entry; when the marker is back on top the call is
//               complete: return values are copied and the marker pops.
//   carry       one bit per lane: the CC.CF flag of add.cc/addc/madc
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gpusim/exec/counters.h"
#include "gpusim/exec/launch.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

inline constexpr int kWarpSize = 32;

struct SimtEntry {
    int32_t pc = 0;
    int32_t rpc = -1;       // pop when pc reaches this; -1: never
    uint32_t mask = 0;      // lanes on this path
    uint32_t frame = 0;     // per-thread frame base (bytes into local memory)
    int32_t call = -1;      // >= 0: a call marker for Module::calls()[call]
    uint32_t returned = 0;  // call marker: lanes that executed ret
    int64_t saved = -1;     // call marker: offset into Warp::saved_regs for a recursive callee
};

enum class WarpState : uint8_t { Ready, AtBarrier, Done };

// What the last memory instruction of a warp touched, filled by exec_memory only when
// BlockContext::mem_log is set (the timing model reads it; functional runs leave it null).
enum class MemWhere : uint8_t { Global, Shared, Local, Param };
struct MemAccessLog {
    uint32_t lanes = 0;  // lanes that accessed memory
    MemWhere where = MemWhere::Global;
    uint8_t bytes = 0;  // per lane (vector width included)
    bool write = false;
    bool atomic = false;
    uint64_t addr[32] = {};  // global: host address; shared: byte offset; local: offset in the thread's frame
};

struct Warp {
    int32_t index = 0;    // warp index in the block
    uint32_t exists = 0;  // lanes that are threads of the block (last warp may be partial)
    uint32_t exited = 0;  // lanes that executed exit
    uint32_t carry = 0;   // CC.CF per lane
    WarpState state = WarpState::Ready;
    int32_t barrier = -1;        // barrier id while AtBarrier
    int32_t barrier_pc = -1;     // the bar instruction
    uint32_t barrier_lanes = 0;  // lanes that arrived
    uint64_t issued = 0;         // warp instructions so far (drives %clock without a timing model)
    uint64_t* regs = nullptr;    // [num_registers][32]
    std::vector<SimtEntry> stack;
    std::vector<uint64_t> saved_regs;   // register ranges saved around recursive calls
    std::vector<LoopPass> loop_passes;  // passes through PTX loops in flight (when counting trips)
};

// The registers of a block's warps, [warp][register][lane]. Allocated uninitialised and reused
// across blocks: run_block zeroes only the rows the kernel and the module's .func bodies own
// (the special registers are written explicitly), because a module with many kernels numbers
// its registers module-wide and zeroing every kernel's rows per block dominated run time.
struct RegisterFile {
    std::unique_ptr<uint64_t[]> data;
    size_t size = 0;  // elements
};

// Everything a block's warps share while it runs.
struct BlockContext {
    const Module* module = nullptr;
    const Function* kernel = nullptr;
    const Instr* code = nullptr;
    // The functions the kernel can run (gpusim/ptx/call_graph.h), whose register rows each block
    // zeroes; null: the kernel and every .func of the module (a module's .funcs may be huge, and
    // most kernels call none of them).
    const std::vector<int32_t>* functions = nullptr;
    Dim3 grid, block, ctaid;
    uint64_t block_linear = 0;
    std::span<const std::byte> params;
    std::byte* shared = nullptr;
    uint64_t shared_size = 0;
    // Bytes [lo, hi) of shared memory that stores and atomics have written (kept by exec_memory):
    // the timing model zeroes only those before a slot's next block, not the module's whole
    // shared size (the sum over all its kernels).
    uint64_t shared_written_lo = UINT64_MAX, shared_written_hi = 0;
    std::byte* local = nullptr;  // [thread][local_per_thread]
    uint64_t local_per_thread = 0;
    uint32_t nthreads = 0;
    std::vector<Warp> warps;
    Counters* per_instr = nullptr;  // per_instr[pc - per_instr_base]; nullptr when not counting
    int32_t per_instr_base = 0;     // first instruction per_instr covers (the timing model's SMs count
                                    // only the instructions the kernel can reach)
    Counters* total = nullptr;
    const LaunchOptions* options = nullptr;
    bool concurrent = false;             // other blocks run at the same time on other host threads
    uint64_t* budget = nullptr;          // warp instructions left (this worker's share)
    LoopTripLog* loop_log = nullptr;     // per-lane loop trip counts (loop_trips.h), nullptr when not counting
    MemAccessLog* mem_log = nullptr;     // timing mode: the last memory instruction's accesses
    const uint64_t* sm_cycle = nullptr;  // timing mode: the issuing SM's cycle, read by %clock/%clock64
                                         // (null: they read the warp's instruction count)
    // Barriers: arrivals per id (PTX has 16 named barriers per CTA).
    uint32_t arrived[16] = {};
    uint32_t expected[16] = {};  // 0: all non-exited threads of the block
};

inline uint64_t& reg_at(Warp& w, int32_t r, int lane) { return w.regs[static_cast<size_t>(r) * kWarpSize + lane]; }
inline uint64_t reg_at(const Warp& w, int32_t r, int lane) { return w.regs[static_cast<size_t>(r) * kWarpSize + lane]; }

// Runs warp `w` for up to `quantum` instructions, or until it waits at a barrier or finishes.
void run_warp(BlockContext& ctx, Warp& w, uint32_t quantum);

// Throws SimError with kernel, block, thread (warp*32+lane; lane < 0: the warp), PTX line and
// source line of instruction `pc`.
[[noreturn]] void fault(const BlockContext& ctx, const Warp& w, int lane, int32_t pc, const std::string& message);
// "kernel 'k' block (x,y,z)" and "PTX line N (file:line)" pieces for messages.
std::string describe_block(const BlockContext& ctx);
std::string describe_pc(const BlockContext& ctx, int32_t pc);

}  // namespace weft::gpusim
