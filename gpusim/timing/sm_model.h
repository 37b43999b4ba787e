// gpusim/timing/sm_model.h — one simulated SM: resident blocks, warp schedulers, scoreboard,
// pipes, L1 and the SM's queues toward L2 and DRAM (internal header of the timing model).
//
// An SmModel runs on its own between epoch boundaries (run_until). Everything it shares with
// other SMs is read-only during an epoch (the module, the L2 tags); its L2 accesses are logged
// and applied by the launcher, in SM order, at the boundary (timing.h explains why).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpusim/exec/run_block.h"
#include "gpusim/timing/cache.h"
#include "gpusim/timing/instr_class.h"
#include "gpusim/timing/timing.h"

namespace weft::gpusim {

// Read-only during a launch, shared by every SM.
struct SmEnv {
    const Module* module = nullptr;
    const Function* kernel = nullptr;
    const std::vector<InstrClass>* classes = nullptr;
    const ArchSpec* arch = nullptr;
    const TimingOptions* options = nullptr;
    const SharedMemoryModel* shared_model = nullptr;
    const SectoredCache* l2 = nullptr;  // probed during an epoch, updated between epochs
    Dim3 grid, block;
    std::span<const std::byte> params;
    uint64_t shared_size = 0, local_per_thread = 0;
    uint32_t nthreads = 0, nwarps = 0;
    uint64_t nblocks = 0;
    int blocks_per_sm = 1;
    int l1_bytes = 0;
    double l2_cycles_per_sector = 1, dram_cycles_per_sector = 1;
    // The SM's share of the chip's store rate into L2 (cycles per line written) and atomic rate
    // (cycles per sector), and one L2 slice's cycles per atomic sector (slices / chip rate).
    double store_cycles_per_line = 1, atomic_cycles_per_sector = 1, atomic_cycles_per_lane = 0,
           slice_atomic_cycles_per_sector = 1;
    double dram_miss_share = 1;     // of a sector's DRAM service time, what one L2 miss pays in this
                                    // epoch: distinct sectors fetched / L2 misses of the launch's
                                    // epochs before (SMs missing on the same sector share one fill)
    double dram_extra_latency = 0;  // loaded DRAM latency (arch.dram_loaded_latency) for this epoch,
                                    // from the chip's DRAM traffic of the epochs before it
    // The L2 slices' atomic units as of the end of the epoch before (the launcher updates them
    // between epochs): when each slice and each word is free. An atomic whose result a warp
    // waits for (a compare-and-swap loop) waits for the queue it finds there as well.
    const std::vector<double>* slice_free = nullptr;
    const std::unordered_map<uint64_t, double>* word_free = nullptr;
    std::vector<uint8_t> trace_pc;    // per instruction: passes the trace's opcode and line filter
    std::vector<double> skip_weight;  // per if-converted branch: issue cycles of the code it skips
    std::vector<uint8_t> seg_leader;  // per instruction: starts a schedule segment (with load_hoist)
    size_t scoreboard_regs = 0;       // registers in the scoreboard (classes' src/dst are compacted)
    // The instructions the kernel can reach (its body and the module's .funcs): the SMs' counts
    // cover [pc_begin, pc_end), not the whole module (a module holds many kernels).
    int32_t pc_begin = 0, pc_end = 0;
    const std::vector<int32_t>* functions = nullptr;  // reachable_functions() of the kernel
};

struct TraceRecord {
    uint64_t cycle = 0;
    int32_t sm = 0, warp = 0, pc = 0;
    uint64_t block = 0;
    uint32_t active = 0;
};

class SmModel {
public:
    SmModel(const SmEnv& env, int32_t index);
    ~SmModel();  // gives the slots' register files back to their pool (run_block.h)
    SmModel(SmModel&&) = default;
    // Simulates until cycle `end` or until the SM has no work left.
    void run_until(uint64_t end);
    bool done() const { return done_; }

    // L2 traffic of the current epoch, cleared by the launcher. `dram`: this SM fetched the
    // sector from DRAM (the launcher refunds the fetch when an earlier SM fetched it in the same
    // epoch: on the GPU the second request would have merged with the first miss).
    struct L2Access {
        uint64_t addr;
        bool dirty;
        bool dram;
    };
    std::vector<L2Access> l2_log;
    std::unordered_set<uint64_t> l2_pending;  // sectors this SM filled in the current epoch
    // Global atomics of the current epoch, per 128-byte line of a request: when the line's
    // operations leave the SM and how long they occupy the line's L2 slice. The launcher queues
    // them at the slices (in cycle order) between epochs; a slice still busy after the last block
    // ended holds the kernel's end (hot-spot atomics, like a histogram's).
    // One line's part of an atomic request at its L2 slice (l2.atomic_slice_lines consecutive lines
    // per slice): it cannot start before the earlier operations on each of its words are done, and
    // holds the slice for its sectors (`slice_cycles`) or its busiest word's lanes at
    // atomic_same_address_cycles each, whichever is longer. Its words are
    // atomic_words[first, first + n) of the same SM (word address, lanes on it).
    struct AtomicAccess {
        double cycle;
        uint64_t line;
        double slice_cycles;
        uint32_t first, n;
        double same_cycles;  // per lane on one word: l2.atomic_same_address_cycles(_int for integer atomics)
    };
    std::vector<std::pair<uint64_t, uint32_t>> atomic_words;
    std::vector<AtomicAccess> atomic_log;
    double drain = 0;      // cycle the SM's last store or atomic left its L2 queue
    double dram_free = 0;  // DRAM queue (cycles); the launcher adds write-backs

    // Results.
    std::vector<Counters> counts;        // functional counts per instruction, [pc - env.pc_begin]
    LoopTripLog loops;                   // per-lane loop trip counts (loop_trips.h)
    std::vector<TimingCounters> timing;  // per instruction, [pc - env.pc_begin]
    uint64_t finish = 0;                 // cycle the last block ended
    uint64_t active_cycles = 0;
    double warp_cycles = 0;  // integral of resident warps over time
    uint64_t issued = 0;
    uint64_t dram_read_bytes = 0;
    std::vector<BlockSpan> spans;
    std::vector<WarpSpan> warp_spans;
    std::vector<TraceRecord> trace;

private:
    struct Slot {
        bool busy = false;
        uint64_t block = 0;
        uint64_t start = 0;
        uint64_t free_at = 0;
        uint32_t live = 0;  // warps not done
        BlockContext ctx;
        std::vector<std::byte> shared, local;
        RegisterFile regs;
    };
    struct WarpRec {
        bool live = false;
        int32_t slot = 0;
        int32_t widx = 0;
        uint64_t age = 0;
        uint64_t not_before = 0;  // barrier release, block launch
        uint64_t start = 0;       // cycle the block was placed
        uint64_t issued = 0;
        uint64_t seg_start = 0;       // cycle the warp issued its current schedule segment's first instruction
        double wide_shared_done = 0;  // data-ready cycle of its last shared load ptxas widened (SharedIssue)
        std::vector<uint64_t> reg_ready;
        // Per register: when its value would be ready had every instruction since the last memory
        // access issued as soon as its operands were (memory results: when they arrived). ptxas
        // schedules a load's address arithmetic ahead with the load (LoadHoist); in the PTX order
        // that arithmetic may sit behind an instruction waiting on an earlier load.
        std::vector<double> reg_flow;
        std::vector<uint8_t> reg_kind;  // Stall reason a wait on the register counts as
        std::vector<int32_t> reg_src;   // the instruction that produced the register's value (-1: none)
        // The scoreboard's answer for the instruction at `ready_pc` (its registers' latest ready
        // cycle and that register's kind), kept until the warp issues: only its own issue changes
        // its registers or its PC, and the cycle loop asks every cycle.
        int32_t ready_pc = -1;
        uint64_t ready_at = 0;
        uint8_t ready_kind = 0;
        int32_t ready_src = -1;  // the producer of that register
    };

    void start_blocks();
    void issue(int sched, int32_t wi);
    // `at`: the cycle the request leaves the warp (now, or earlier for a load ptxas hoisted).
    uint64_t memory_done(int32_t wi, const Instr& in, const MemAccessLog& log, uint8_t* kind, double at);
    // A sector's L2 lookup (a hit, or already on its way from DRAM for this SM), logged for the
    // launcher; true on a miss, which this SM fetches. `dirty`: the access writes the sector.
    bool l2_lookup(uint64_t addr, bool dirty, TimingCounters& k);
    // `n` missed sectors through this SM's DRAM queue from cycle `t`: when their data has come.
    double dram_fetch(double t, int n);
    void finish_warp(int32_t wi);
    TimingCounters& timing_at(int32_t pc) { return timing[static_cast<size_t>(pc - env_.pc_begin)]; }
    // Where a warp at `pc` waiting (stall `kind`) for a value of instruction `src` counts as stalled:
    // for a scoreboard wait, the machine code's first waiter for `src` (TimingOptions::stall_site),
    // which ptxas's reordering may put on another line than the PTX's; else `pc`.
    int32_t stall_site(int32_t pc, int32_t src, uint8_t kind) const {
        const std::vector<int32_t>& site = env_.options->stall_site;
        if (src < 0 || static_cast<size_t>(src) >= site.size() ||
            (kind != static_cast<uint8_t>(Stall::LongScoreboard) && kind != static_cast<uint8_t>(Stall::ShortScoreboard)))
            return pc;
        const int32_t at = site[static_cast<size_t>(src)];
        return at >= env_.pc_begin && at < env_.pc_end ? at : pc;
    }

    const SmEnv& env_;
    int32_t index_;
    bool done_ = false;
    uint64_t now_ = 0;
    uint64_t next_block_;  // linear index of the next block this SM takes
    uint64_t age_ = 0;
    uint64_t block_unit_free_ = 0;  // cycle the SM's block unit (placing, retiring blocks) is free
    double l1_free_ = 0, l2_free_ = 0;
    std::vector<Slot> slots_;
    std::vector<WarpRec> warps_;  // [slot * nwarps + warp]
    std::vector<std::vector<int32_t>> sched_warps_;
    std::vector<std::unique_ptr<WarpSchedulerPolicy>> policies_;
    std::vector<std::array<double, kNumPipeClasses>> pipe_free_;
    std::vector<double> sched_free_;  // per scheduler: cycle its dispatch is free (issue_weights)
    SectoredCache l1_;
    MemAccessLog log_;
    uint64_t budget_ = 0;
    std::vector<SchedulerCandidate> eligible_;
    struct Pending {
        int32_t pc;
        Stall why;
    };
    std::vector<Pending> pending_;  // this cycle's stall records
};

}  // namespace weft::gpusim
