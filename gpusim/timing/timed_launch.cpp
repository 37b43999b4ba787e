// gpusim/timing/timed_launch.cpp — launch_timed(): checks the launch, computes occupancy,
// builds the SMs and runs them epoch by epoch (on one or several host threads), applies each
// epoch's L2 traffic in SM order, and gathers counts and timing per instruction and line.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <unordered_set>

#include "gpusim/ptx/call_graph.h"
#include "gpusim/timing/epoch_pool.h"
#include "gpusim/timing/sm_model.h"

namespace weft::gpusim {

const char* stall_name(Stall s) {
    switch (s) {
        case Stall::Selected: return "selected";
        case Stall::NotSelected: return "not_selected";
        case Stall::Wait: return "wait";
        case Stall::ShortScoreboard: return "short_scoreboard";
        case Stall::LongScoreboard: return "long_scoreboard";
        case Stall::Barrier: return "barrier";
        case Stall::MathPipeThrottle: return "math_pipe_throttle";
        case Stall::MioThrottle: return "mio_throttle";
        case Stall::LgThrottle: return "lg_throttle";
        case Stall::kCount: break;
    }
    return "?";
}

uint64_t TimingCounters::total_stall_cycles() const {
    uint64_t t = 0;
    for (int i = 1; i < kNumStalls; ++i) t += stall_cycles[i];
    return t;
}

TimingCounters& TimingCounters::operator+=(const TimingCounters& o) {
    for (int i = 0; i < kNumStalls; ++i) stall_cycles[i] += o.stall_cycles[i];
    shared_wavefronts += o.shared_wavefronts;
    shared_ideal_wavefronts += o.shared_ideal_wavefronts;
    global_requests += o.global_requests;
    global_sectors += o.global_sectors;
    l1_hits += o.l1_hits;
    l1_misses += o.l1_misses;
    l2_hits += o.l2_hits;
    l2_misses += o.l2_misses;
    memory_latency_cycles += o.memory_latency_cycles;
    return *this;
}

namespace {

std::string dims(Dim3 d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }

const Function& checked_kernel(const Module& module, std::string_view name, Dim3 grid, Dim3 block,
                               std::span<const std::byte> params) {
    const Function* k = module.find_function(name);
    if (!k || !k->is_entry || !k->has_body)
        throw SimError("module '" + module.name() + "' has no defined kernel named '" + std::string(name) + "'");
    const std::string who = "launch of kernel '" + k->name + "'";
    if (params.size() != k->param_bytes)
        throw SimError(who + ": the kernel takes " + std::to_string(k->param_bytes) + " bytes of parameters, " +
                       std::to_string(params.size()) + " were given");
    if (grid.count() == 0 || block.count() == 0)
        throw SimError(who + ": grid " + dims(grid) + " and block " + dims(block) + " must not be empty");
    if (block.count() > 1024) throw SimError(who + ": block " + dims(block) + " has more than 1024 threads");
    return *k;
}

// Can code the kernel runs (its body or any .func) name shared memory? A shared address starts
// as a shared symbol, a .shared state space or a cvta from shared; without one, the block's
// shared memory cannot be reached, and the SMs skip allocating and clearing it per block (the
// module's shared size is the sum over all its kernels).
bool may_use_shared(const Module& module, const Function& kernel) {
    for (const Function& f : module.functions()) {
        if (f.is_entry && &f != &kernel) continue;
        for (int32_t i = f.begin; i < f.end; ++i) {
            const Instr& in = module.instructions()[static_cast<size_t>(i)];
            if (in.space == Space::Shared || (in.op == Op::Cvta && in.sub == static_cast<uint8_t>(Space::Shared))) return true;
            for (const Operand& o : in.ops)
                if (o.base == AddrBase::Shared) return true;
        }
    }
    return false;
}

// Does the kernel read what a global atomic returned (an `atom` on global or generic memory whose
// destination register appears in any other instruction it can run)? Then its path depends on the
// order in which SMs' atomics reach a word (a CAS loop retries as often as it loses), and SMs
// simulated at the same time on several host threads would make that order the host's: such a
// launch runs on one thread, in SM order, so that its report does not depend on the thread count.
// An atomic whose result is never read (NVRTC gives it a register of its own) leaves the path
// alone; only the rounding of float sums can then differ with threads.
bool reads_global_atomic_results(const Module& module, const std::vector<int32_t>& functions) {
    std::vector<int32_t> dests;
    for (const int32_t f : functions)
        for (int32_t i = module.functions()[static_cast<size_t>(f)].begin; i < module.functions()[static_cast<size_t>(f)].end;
             ++i) {
            const Instr& in = module.instructions()[static_cast<size_t>(i)];
            if (in.op == Op::Atom && in.space != Space::Shared && in.nops > 0 && in.ops[0].kind == OperandKind::Reg)
                dests.push_back(in.ops[0].reg);
        }
    if (dests.empty()) return false;
    std::sort(dests.begin(), dests.end());
    std::vector<int32_t> uses(dests.size(), 0);  // instructions naming each destination register
    auto note = [&](int32_t r) {
        const auto it = std::lower_bound(dests.begin(), dests.end(), r);
        if (it != dests.end() && *it == r) ++uses[static_cast<size_t>(it - dests.begin())];
    };
    for (const int32_t f : functions)
        for (int32_t i = module.functions()[static_cast<size_t>(f)].begin; i < module.functions()[static_cast<size_t>(f)].end;
             ++i) {
            const Instr& in = module.instructions()[static_cast<size_t>(i)];
            note(in.guard);
            note(in.pdest);
            for (int k = 0; k < in.nops && k < 5; ++k) {
                const Operand& o = in.ops[k];
                if (o.kind == OperandKind::Reg || o.kind == OperandKind::Addr) note(o.reg);
                if (o.kind == OperandKind::Vec)
                    for (int v = 0; v < o.nvec && v < 4; ++v) note(o.vregs[v]);
            }
        }
    // Each destination is named once by its own atom; a second naming may read it.
    for (size_t k = 0; k < dests.size(); ++k)
        if (uses[k] > 1 || (k + 1 < dests.size() && dests[k + 1] == dests[k])) return true;
    return false;
}

}  // namespace

TimingResult launch_timed(const Module& module, std::string_view kernel_name, Dim3 grid, Dim3 block,
                          std::span<const std::byte> params, const TimingOptions& options) {
    const Function& kernel = checked_kernel(module, kernel_name, grid, block, params);
    const ArchSpec& a = options.arch;
    if (options.threads < 1) throw SimError("TimingOptions::threads must be at least 1");
    if (options.epoch_cycles < 1) throw SimError("TimingOptions::epoch_cycles must be at least 1");
    if (options.instruction_trace) check_trace_filter(options.trace_filter);
    int regs = options.registers_per_thread;
    int64_t static_shared = options.static_shared_bytes;
    if (regs < 0) {
        if (options.ptx_text.empty())
            throw OccupancyError(
                "launch_timed: set TimingOptions::registers_per_thread, or ptx_text so that ptxas can report the kernel's "
                "registers");
        std::map<std::string, KernelResources> res;
        try {
            res = ptxas_resources(options.ptx_text, a, options.ptxas);
        } catch (const PtxasError& e) { throw OccupancyError(e.what()); }
        const auto it = res.find(kernel.name);
        if (it == res.end()) throw OccupancyError("ptxas reported no kernel named '" + kernel.name + "'");
        regs = it->second.registers;
        if (static_shared < 0) static_shared = it->second.shared_bytes;
    }
    if (static_shared < 0) static_shared = module.static_shared_bytes();
    const uint64_t shared_size = options.launch.dynamic_shared_bytes
                                     ? uint64_t{module.dynamic_shared_offset()} + options.launch.dynamic_shared_bytes
                                 : may_use_shared(module, kernel) ? module.static_shared_bytes()
                                                                  : 0;
    TimingResult result;
    result.arch = a.name;
    result.occupancy = compute_occupancy(a, static_cast<int>(block.count()), regs,
                                         static_cast<uint32_t>(static_shared) + options.launch.dynamic_shared_bytes);
    if (result.occupancy.blocks_per_sm == 0)
        throw OccupancyError("kernel '" + kernel.name + "': no block fits on an SM of " + a.name + " (limited by " +
                             occupancy_limit_name(result.occupancy.limiter) + ")");

    // The scoreboard holds only the registers this kernel can touch: the special registers, then
    // the span of the kernel's and the .funcs' register ranges (the module numbers registers
    // across all its kernels, and a scoreboard of all of them per warp dominated short blocks).
    // Registers outside (other kernels' code, never run here) share one spare entry.
    std::vector<InstrClass> classes = classify_instructions(module);
    // Only the functions the kernel can call count: a module's other .funcs may hold thousands of
    // registers (a backward body), which every block would clear and every warp would track.
    const std::vector<int32_t> functions = reachable_functions(module, static_cast<int32_t>(&kernel - module.functions().data()));
    int32_t reg_lo = INT32_MAX, reg_hi = 0;
    for (const int32_t i : functions) {
        const Function& f = module.functions()[static_cast<size_t>(i)];
        if (f.reg_end > f.reg_begin) {
            reg_lo = std::min(reg_lo, f.reg_begin);
            reg_hi = std::max(reg_hi, f.reg_end);
        }
    }
    if (reg_lo > reg_hi) reg_lo = reg_hi = kNumStaticSregs;
    reg_lo = std::max<int32_t>(reg_lo, kNumStaticSregs);
    reg_hi = std::max(reg_hi, reg_lo);
    const int32_t spare = kNumStaticSregs + (reg_hi - reg_lo);
    auto compact = [&](int32_t r) {
        return r < kNumStaticSregs ? r : r >= reg_lo && r < reg_hi ? kNumStaticSregs + (r - reg_lo) : spare;
    };
    int32_t pc_begin = kernel.begin, pc_end = kernel.end;
    for (const int32_t i : functions) {
        const Function& f = module.functions()[static_cast<size_t>(i)];
        if (f.has_body && f.end > f.begin) {
            pc_begin = std::min(pc_begin, f.begin);
            pc_end = std::max(pc_end, f.end);
        }
    }
    for (InstrClass& c : classes) {
        for (int k = 0; k < c.nsrc; ++k) c.src[k] = compact(c.src[k]);
        for (int k = 0; k < c.ndst; ++k) c.dst[k] = compact(c.dst[k]);
    }
    const NvidiaBankModel default_banks;
    const int64_t stack = stack_bytes_needed(module, static_cast<int32_t>(&kernel - module.functions().data()));
    SectoredCache l2 =
        take_cache(static_cast<uint64_t>(a.l2_bytes), static_cast<uint32_t>(a.l2_line_bytes),
                   static_cast<uint32_t>(a.l2_sector_bytes), static_cast<uint32_t>(a.l2_assoc), options.l2_policy.get());
    struct GiveBack {
        SectoredCache& cache;
        ~GiveBack() { give_cache(std::move(cache)); }
    } l2_back{l2};
    SmEnv env;
    env.module = &module;
    env.kernel = &kernel;
    env.classes = &classes;
    env.scoreboard_regs = static_cast<size_t>(spare) + 1;
    env.pc_begin = pc_begin;
    env.functions = &functions;
    env.pc_end = pc_end;
    // A forward conditional branch that ptxas if-converted (no SASS of its own) still costs the
    // SASS of the code it skips: on the GPU that code issues, predicated off.
    if (!options.issue_weights.empty()) {
        const auto& code = module.instructions();
        if (options.issue_weights.size() != code.size())
            throw SimError("TimingOptions::issue_weights must have one entry per instruction of the module");
        env.skip_weight.assign(code.size(), 0.0);
        for (size_t i = 0; i < code.size(); ++i) {
            const Instr& in = code[i];
            if (in.op != Op::Bra || in.guard < 0 || options.issue_weights[i] != 0 || in.target <= static_cast<int32_t>(i))
                continue;
            for (size_t j = i + 1; j < static_cast<size_t>(in.target) && j < code.size(); ++j)
                env.skip_weight[i] += options.issue_weights[j];
        }
    }
    if (!options.stall_site.empty() && options.stall_site.size() != module.instructions().size())
        throw SimError("TimingOptions::stall_site must have one entry per instruction of the module");
    if (!options.shared_issue.empty() && options.shared_issue.size() != module.instructions().size())
        throw SimError("TimingOptions::shared_issue must have one entry per instruction of the module");
    if (!options.load_hoist.empty()) {
        if (options.load_hoist.size() != module.instructions().size())
            throw SimError("TimingOptions::load_hoist must have one entry per instruction of the module");
        const std::vector<bool> leaders = schedule_segments(module);
        env.seg_leader.assign(leaders.begin(), leaders.begin() + static_cast<long>(module.instructions().size()));
    }
    env.arch = &a;
    env.options = &options;
    env.shared_model = options.shared_model ? options.shared_model.get() : &default_banks;
    env.l2 = &l2;
    env.grid = grid;
    env.block = block;
    env.params = params;
    env.shared_size = shared_size;
    env.local_per_thread = stack < 0 ? options.launch.stack_bytes : static_cast<uint64_t>(stack);
    env.nthreads = static_cast<uint32_t>(block.count());
    env.nwarps = (env.nthreads + 31) / 32;
    env.nblocks = grid.count();
    env.blocks_per_sm = result.occupancy.blocks_per_sm;
    env.l1_bytes = result.occupancy.l1_bytes;
    const double active_sms = static_cast<double>(std::min<uint64_t>(static_cast<uint64_t>(a.sm_count), env.nblocks));
    const double l2_per_sm = std::min(a.l2_bandwidth_bytes_per_cycle / active_sms, static_cast<double>(a.l1_wavefront_bytes));
    env.l2_cycles_per_sector = a.l2_sector_bytes / l2_per_sm;
    env.dram_cycles_per_sector = a.l2_sector_bytes / (a.dram_bytes_per_cycle() / active_sms);
    env.store_cycles_per_line = active_sms / a.l2_store_lines_per_cycle;
    env.atomic_cycles_per_sector = active_sms / a.l2_atomic_sectors_per_cycle;
    env.atomic_cycles_per_lane = active_sms / a.l2_atomic_lane_ops_per_cycle;
    env.slice_atomic_cycles_per_sector = 1.0 / a.l2_atomic_slice_sectors_per_cycle;
    std::vector<double> slice_free(static_cast<size_t>(a.l2_slices), 0.0);
    std::unordered_map<uint64_t, double> word_free;  // atomics: when each word's last operation is done
    double slices_done = 0;
    env.slice_free = &slice_free;
    env.word_free = &word_free;
    if (options.instruction_trace) {
        const TraceFilter& f = options.trace_filter;
        env.trace_pc.assign(module.instructions().size(), 0);
        for (size_t i = 0; i < env.trace_pc.size(); ++i) {
            const Instr& in = module.instructions()[i];
            bool ok = trace_opcode_matches(module.instruction_text(static_cast<int32_t>(i)), f.opcode);
            if (ok && f.source_line >= 0)
                ok = in.loc >= 0 && module.locations()[static_cast<size_t>(in.loc)].report_line() == f.source_line;
            env.trace_pc[i] = ok;
        }
    }

    std::vector<SmModel> sms;
    sms.reserve(static_cast<size_t>(a.sm_count));
    for (int i = 0; i < a.sm_count; ++i) sms.emplace_back(env, i);

    uint64_t dram_write_sectors = 0;
    // Loaded DRAM latency: the chip's DRAM sectors (fetched and written back) of the last
    // `window` epochs, about one unloaded DRAM latency, as a fraction of what the DRAM can move
    // in that time, sets the extra latency of the next epoch's accesses. Computed between
    // epochs from the merged traffic, so it does not depend on the host threads.
    const bool loaded_latency = a.dram_loaded_latency.size() > 1 || a.dram_loaded_latency.front().second != 0;
    const size_t window = static_cast<size_t>(std::max(1.0, std::ceil(a.dram_latency / options.epoch_cycles)));
    std::vector<uint64_t> dram_sectors_per_epoch(window, 0);
    uint64_t epoch_index = 0;
    uint64_t launch_misses = 0, launch_fetched = 0;  // L2 misses to DRAM, distinct sectors fetched
    env.dram_extra_latency = a.dram_extra_latency(0);
    EpochPool pool(reads_global_atomic_results(module, functions) ? 1 : std::max(1, std::min(options.threads, a.sm_count)));
    std::vector<size_t> active;
    for (uint64_t end = options.epoch_cycles;; end += options.epoch_cycles) {
        bool all_done = true;
        for (const SmModel& s : sms) all_done &= s.done();
        if (all_done) break;
        // The SMs with work left, shared out among the host threads (an SM's epoch depends only on
        // what was merged before it, so who runs it does not matter).
        active.clear();
        for (size_t i = 0; i < sms.size(); ++i)
            if (!sms[i].done()) active.push_back(i);
        pool.run(active.size(), [&](size_t k) { sms[active[k]].run_until(end); });
        // The epoch's L2 traffic, in SM order: fills, LRU, dirty write-backs to DRAM; a sector
        // that several SMs fetched from DRAM in this epoch is paid for once.
        // Each miss was charged `dram_miss_share` of a sector's DRAM time; the queue is set right
        // here: the first SM to miss on a sector pays all of it, the others (waiting on the same
        // fill, as an L2's miss merging does) nothing. The launch's ratio so far of distinct sectors
        // fetched to misses is the next epoch's share (one epoch's alone swings with its tail).
        std::unordered_set<uint64_t> fetched;
        uint64_t epoch_dram_sectors = 0, epoch_misses = 0;
        for (SmModel& s : sms) {
            uint64_t evicted = 0;
            for (const SmModel::L2Access& e : s.l2_log) {
                if (e.dram) {
                    ++epoch_misses;
                    const bool first = fetched.insert(e.addr).second;
                    s.dram_free += env.dram_cycles_per_sector * ((first ? 1.0 : 0.0) - env.dram_miss_share);
                    if (!first) s.dram_read_bytes -= static_cast<uint64_t>(a.l2_sector_bytes);
                }
                l2.access(e.addr, e.dirty, &evicted);
            }
            s.l2_log.clear();
            s.l2_pending.clear();
            dram_write_sectors += evicted;
            epoch_dram_sectors += evicted;
            s.dram_free += static_cast<double>(evicted) * env.dram_cycles_per_sector;
        }
        launch_misses += epoch_misses;
        launch_fetched += fetched.size();
        if (launch_misses) env.dram_miss_share = static_cast<double>(launch_fetched) / static_cast<double>(launch_misses);
        if (loaded_latency) {
            epoch_dram_sectors += fetched.size();
            dram_sectors_per_epoch[epoch_index++ % window] = epoch_dram_sectors;
            uint64_t recent = 0;
            for (uint64_t n : dram_sectors_per_epoch) recent += n;
            const double capacity = a.dram_bytes_per_cycle() * static_cast<double>(window * options.epoch_cycles);
            env.dram_extra_latency = a.dram_extra_latency(
                std::min(1.0, static_cast<double>(recent * static_cast<uint64_t>(a.l2_sector_bytes)) / capacity));
        }
        // The epoch's global atomics at their L2 slices, in the order they left the SMs.
        std::vector<SmModel::AtomicAccess> atomics;
        std::vector<std::pair<uint64_t, uint32_t>> atomic_words;
        for (SmModel& s : sms) {
            const uint32_t base = static_cast<uint32_t>(atomic_words.size());
            for (SmModel::AtomicAccess e : s.atomic_log) {
                e.first += base;
                atomics.push_back(e);
            }
            atomic_words.insert(atomic_words.end(), s.atomic_words.begin(), s.atomic_words.end());
            s.atomic_log.clear();
            s.atomic_words.clear();
        }
        std::stable_sort(atomics.begin(), atomics.end(),
                         [](const SmModel::AtomicAccess& x, const SmModel::AtomicAccess& y) { return x.cycle < y.cycle; });
        for (const SmModel::AtomicAccess& e : atomics) {
            double& f = slice_free[a.l2_atomic_slice(e.line)];
            double start = std::max(f, e.cycle);
            for (uint32_t k = e.first; k < e.first + e.n; ++k) start = std::max(start, word_free[atomic_words[k].first]);
            f = start + e.slice_cycles;
            // The unit holds the line for its busiest word's further lanes too (each waits for the one
            // before it on that word): the store/atomic probes of microbench.cu fit this better than
            // words pipelining past each other (docs/gpusim.md). A word's first lane costs the unit
            // only its sector's time; a later request's lane on the word still waits for `word_free`.
            for (uint32_t k = e.first; k < e.first + e.n; ++k)
                f = std::max(f, start + (atomic_words[k].second - 1) * e.same_cycles + env.slice_atomic_cycles_per_sector);
            slices_done = std::max(slices_done, f);
            for (uint32_t k = e.first; k < e.first + e.n; ++k) {
                const double w = start + atomic_words[k].second * e.same_cycles;
                word_free[atomic_words[k].first] = w;
                slices_done = std::max(slices_done, w);
            }
        }
    }

    // Gather.
    const size_t ninstr = module.instructions().size();
    std::vector<Counters> counts(ninstr);
    std::vector<TimingCounters> timing(ninstr);
    uint64_t finish = 0;
    double warp_cycles = 0;
    const size_t first = static_cast<size_t>(pc_begin);
    for (const SmModel& s : sms) {
        if (s.counts.empty()) continue;  // an SM the grid gave no block
        for (size_t i = first; i < static_cast<size_t>(pc_end); ++i) {
            counts[i] += s.counts[i - first];
            timing[i] += s.timing[i - first];
        }
        finish = std::max({finish, s.finish, static_cast<uint64_t>(std::ceil(s.drain))});
        result.sm_active_cycles += s.active_cycles;
        warp_cycles += s.warp_cycles;
        result.issued_instructions += s.issued;
        result.dram_read_bytes += s.dram_read_bytes;
        result.blocks.insert(result.blocks.end(), s.spans.begin(), s.spans.end());
        result.warps.insert(result.warps.end(), s.warp_spans.begin(), s.warp_spans.end());
    }
    finish = std::max(finish, static_cast<uint64_t>(std::ceil(slices_done)));
    result.dram_write_bytes = dram_write_sectors * static_cast<uint64_t>(a.l2_sector_bytes);
    result.cycles = finish + static_cast<uint64_t>(a.launch_overhead_cycles);
    result.time_us = static_cast<double>(result.cycles) / a.sm_clock_mhz;
    result.achieved_occupancy =
        result.sm_active_cycles ? warp_cycles / (static_cast<double>(result.sm_active_cycles) * a.max_warps_per_sm) : 0;
    result.scheduler = options.scheduler()->name();
    result.shared_model = env.shared_model->name();
    result.l1_policy = options.l1_policy ? options.l1_policy->name() : "lru";
    result.l2_policy = options.l2_policy ? options.l2_policy->name() : "lru";

    LaunchResult& lr = result.counts;
    {
        LoopTripLog loops;
        for (const SmModel& s : sms) loops.merge(s.loops);
        lr.loops = loops.loops();
    }
    lr.kernel = kernel.name;
    lr.grid = grid;
    lr.block = block;
    std::map<std::pair<int32_t, int32_t>, std::pair<Counters, TimingCounters>> lines;
    for (size_t i = 0; i < ninstr; ++i) {
        const Counters& k = counts[i];
        if (k.warp_instructions == 0 && timing[i].total_stall_cycles() == 0) continue;
        lr.total += k;
        result.total += timing[i];
        const Instr& in = module.instructions()[i];
        InstructionCounters ic;
        ic.index = static_cast<int32_t>(i);
        ic.ptx_line = in.ptx_line;
        ic.counts = k;
        if (in.loc >= 0) {
            const SourceLoc& loc = module.locations()[static_cast<size_t>(in.loc)];
            ic.file = loc.report_file();
            ic.line = loc.report_line();
            auto& e = lines[{ic.file, ic.line}];
            e.first += k;
            e.second += timing[i];
        }
        ic.text = module.instruction_text(static_cast<int32_t>(i));
        lr.per_instruction.push_back(std::move(ic));
        result.per_instruction.push_back(timing[i]);
    }
    for (const auto& [key, e] : lines) {
        LineCounters lc;
        lc.file = key.first;
        if (key.first >= 0 && static_cast<size_t>(key.first) < module.files().size())
            lc.file_name = module.files()[static_cast<size_t>(key.first)];
        lc.line = key.second;
        lc.counts = e.first;
        lr.per_line.push_back(std::move(lc));
        result.per_line.push_back(e.second);
    }
    result.ipc = result.sm_active_cycles
                     ? static_cast<double>(lr.total.warp_instructions) / static_cast<double>(result.sm_active_cycles)
                     : 0;
    std::sort(result.blocks.begin(), result.blocks.end(),
              [](const BlockSpan& x, const BlockSpan& y) { return x.block < y.block; });
    std::sort(result.warps.begin(), result.warps.end(),
              [](const WarpSpan& x, const WarpSpan& y) { return x.block != y.block ? x.block < y.block : x.warp < y.warp; });

    if (options.instruction_trace) {
        std::vector<TraceRecord> all;
        for (const SmModel& s : sms) all.insert(all.end(), s.trace.begin(), s.trace.end());
        std::sort(all.begin(), all.end(), [](const TraceRecord& x, const TraceRecord& y) {
            return x.cycle != y.cycle ? x.cycle < y.cycle : x.sm != y.sm ? x.sm < y.sm : x.warp < y.warp;
        });
        if (all.size() > options.trace_filter.max_records) all.resize(options.trace_filter.max_records);
        std::ostream& o = *options.instruction_trace;
        for (const TraceRecord& t : all) {
            const Instr& in = module.instructions()[static_cast<size_t>(t.pc)];
            int32_t line = 0;
            if (in.loc >= 0) line = module.locations()[static_cast<size_t>(in.loc)].report_line();
            std::string text = module.instruction_text(t.pc);
            std::string esc;
            for (char c : text) {
                if (c == '"' || c == '\\') esc += '\\';
                if (static_cast<unsigned char>(c) >= 0x20) esc += c;
            }
            o << "{\"kernel\": \"" << kernel.name << "\", \"cycle\": " << t.cycle << ", \"sm\": " << t.sm
              << ", \"block\": " << t.block << ", \"warp\": " << t.warp << ", \"pc\": " << t.pc
              << ", \"ptx_line\": " << in.ptx_line << ", \"line\": " << line << ", \"active\": " << std::popcount(t.active)
              << ", \"text\": \"" << esc << "\"}\n";
        }
    }
    return result;
}

}  // namespace weft::gpusim
