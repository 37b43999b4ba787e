// gpusim/timing/sm_model.cpp — the cycle loop of one SM (sm_model.h; the model is described
// in timing.h and docs/gpusim.md).
//
// Each loop iteration is one cycle `now_`: free slots take blocks, then every scheduler looks
// at its warps. A warp is eligible when it is Ready, past its not_before time, its source and
// destination registers are ready (scoreboard) and its pipe is free. The policy picks one
// eligible warp, which the functional executor then runs for one instruction (plus any folded
// instructions that follow). Every other live warp records why it did not issue, at the PC it
// is waiting on. When no scheduler can issue, time jumps to the next event (a register
// becoming ready, a pipe freeing, a block slot opening) and the stall records are weighted by
// the jump, so idle stretches cost one iteration.
#include "gpusim/timing/sm_model.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace weft::gpusim {
namespace {

constexpr uint64_t kLocalTagBase = uint64_t{0xF} << 56;  // cache tags of local memory
constexpr int kMaxFolded = 16;

uint64_t ceil_cycle(double t) { return static_cast<uint64_t>(std::ceil(t - 1e-9)); }

Stall wait_kind(PipeClass p) {
    switch (p) {
        case PipeClass::Sfu:
        case PipeClass::Shfl:
        case PipeClass::Shared: return Stall::ShortScoreboard;
        case PipeClass::Global:
        case PipeClass::Local:
        case PipeClass::Atomic: return Stall::LongScoreboard;
        default: return Stall::Wait;
    }
}

}  // namespace

SmModel::SmModel(const SmEnv& env, int32_t index) : env_(env), index_(index), next_block_(static_cast<uint64_t>(index)) {
    if (next_block_ >= env.nblocks) {  // the grid has no block for this SM: it holds nothing
        done_ = true;
        return;
    }
    const ArchSpec& a = *env.arch;
    const size_t ninstr = static_cast<size_t>(env.pc_end - env.pc_begin);
    counts.assign(ninstr, Counters{});
    timing.assign(ninstr, TimingCounters{});
    slots_.resize(static_cast<size_t>(env.blocks_per_sm));
    warps_.resize(static_cast<size_t>(env.blocks_per_sm) * env.nwarps);
    sched_warps_.resize(static_cast<size_t>(a.schedulers_per_sm));
    for (size_t i = 0; i < warps_.size(); ++i) sched_warps_[i % sched_warps_.size()].push_back(static_cast<int32_t>(i));
    for (int s = 0; s < a.schedulers_per_sm; ++s) policies_.push_back(env.options->scheduler());
    pipe_free_.assign(static_cast<size_t>(a.schedulers_per_sm), {});
    sched_free_.assign(static_cast<size_t>(a.schedulers_per_sm), 0.0);
    l1_ = take_cache(static_cast<uint64_t>(std::max(0, env.l1_bytes)), static_cast<uint32_t>(a.l1_line_bytes),
                     static_cast<uint32_t>(a.l1_sector_bytes), static_cast<uint32_t>(a.l1_assoc), env.options->l1_policy.get());
    budget_ = env.options->launch.max_warp_instructions;
}

SmModel::~SmModel() {
    for (Slot& s : slots_) give_register_file(std::move(s.regs));
    give_cache(std::move(l1_));
}

void SmModel::start_blocks() {
    const ArchSpec& a = *env_.arch;
    for (size_t si = 0; si < slots_.size(); ++si) {
        Slot& s = slots_[si];
        if (s.busy || next_block_ >= env_.nblocks || s.free_at > now_ || block_unit_free_ > now_) continue;
        block_unit_free_ = now_ + static_cast<uint64_t>(a.block_start_cycles);
        const uint64_t b = next_block_;
        next_block_ += static_cast<uint64_t>(a.sm_count);
        s.busy = true;
        s.block = b;
        s.start = now_;
        BlockContext& ctx = s.ctx;
        // Shared memory starts zeroed: a new slot's is allocated so, a reused slot's has only what
        // its last block wrote cleared.
        if (s.shared.size() != env_.shared_size)
            s.shared.assign(env_.shared_size, std::byte{0});
        else if (ctx.shared_written_lo < ctx.shared_written_hi)
            std::fill(s.shared.begin() + static_cast<long>(ctx.shared_written_lo),
                      s.shared.begin() + static_cast<long>(ctx.shared_written_hi), std::byte{0});
        ctx = BlockContext{};
        ctx.module = env_.module;
        ctx.kernel = env_.kernel;
        ctx.code = env_.module->instructions().data();
        ctx.functions = env_.functions;
        ctx.grid = env_.grid;
        ctx.block = env_.block;
        ctx.params = env_.params;
        s.local.assign(env_.local_per_thread * env_.nthreads, std::byte{0});
        ctx.shared = s.shared.data();
        ctx.shared_size = env_.shared_size;
        ctx.local = s.local.data();
        ctx.local_per_thread = env_.local_per_thread;
        ctx.nthreads = env_.nthreads;
        ctx.per_instr = counts.data();
        ctx.per_instr_base = env_.pc_begin;
        ctx.loop_log = &loops;
        ctx.options = &env_.options->launch;
        ctx.concurrent = env_.options->threads > 1;
        ctx.budget = &budget_;
        ctx.mem_log = &log_;
        ctx.sm_cycle = &now_;
        ctx.block_linear = b;
        const Dim3 g = env_.grid;
        ctx.ctaid = {static_cast<uint32_t>(b % g.x), static_cast<uint32_t>((b / g.x) % g.y),
                     static_cast<uint32_t>(b / (uint64_t{g.x} * g.y))};
        if (!s.regs.data) s.regs = take_register_file(block_register_elements(ctx));
        init_block_warps(ctx, s.regs);
        s.live = static_cast<uint32_t>(ctx.warps.size());
        const size_t nregs = env_.scoreboard_regs;
        for (uint32_t w = 0; w < env_.nwarps; ++w) {
            WarpRec& r = warps_[si * env_.nwarps + w];
            r.live = true;
            r.slot = static_cast<int32_t>(si);
            r.widx = static_cast<int32_t>(w);
            r.age = age_++;
            r.start = now_;
            r.issued = 0;
            r.not_before = now_ + static_cast<uint64_t>(a.block_launch_cycles);
            r.reg_ready.assign(nregs, 0);
            r.reg_flow.assign(nregs, static_cast<double>(now_));
            r.reg_kind.assign(nregs, static_cast<uint8_t>(Stall::Wait));
            r.reg_src.assign(nregs, -1);
            r.ready_pc = -1;
        }
    }
}

void SmModel::run_until(uint64_t end) {
    const std::vector<InstrClass>& cls = *env_.classes;
    while (!done_ && now_ < end) {
        start_blocks();
        uint32_t resident = 0, live_warps = 0;
        for (const Slot& s : slots_) resident += s.busy;
        if (resident == 0) {
            if (next_block_ >= env_.nblocks) {
                done_ = true;
                break;
            }
            uint64_t t = UINT64_MAX;
            for (const Slot& s : slots_) t = std::min(t, s.free_at);
            now_ = std::max({now_ + 1, t, block_unit_free_});
            continue;
        }
        bool issued_any = false;
        uint64_t next_event = UINT64_MAX;
        pending_.clear();
        for (size_t sch = 0; sch < sched_warps_.size(); ++sch) {
            eligible_.clear();
            for (const int32_t wi : sched_warps_[sch]) {
                WarpRec& r = warps_[static_cast<size_t>(wi)];
                if (!r.live) continue;
                ++live_warps;
                const Warp& w = slots_[static_cast<size_t>(r.slot)].ctx.warps[static_cast<size_t>(r.widx)];
                if (w.state == WarpState::AtBarrier) {
                    pending_.push_back({w.barrier_pc, Stall::Barrier});
                    continue;
                }
                const int32_t pc = w.stack.back().pc;
                if (r.not_before > now_) {
                    next_event = std::min(next_event, r.not_before);
                    // Waiting for a barrier's release or for the block to launch: only the former is a stall.
                    if (r.not_before - now_ <= static_cast<uint64_t>(env_.arch->barrier_latency) &&
                        now_ > slots_[static_cast<size_t>(r.slot)].start + static_cast<uint64_t>(env_.arch->block_launch_cycles))
                        pending_.push_back({pc, Stall::Barrier});
                    continue;
                }
                const InstrClass& c = cls[static_cast<size_t>(pc)];
                if (r.ready_pc != pc) {
                    uint64_t ready = 0;
                    uint8_t kind = static_cast<uint8_t>(Stall::Wait);
                    int32_t src = -1;
                    for (int k = 0; k < c.nsrc; ++k)
                        if (r.reg_ready[static_cast<size_t>(c.src[k])] > ready) {
                            ready = r.reg_ready[static_cast<size_t>(c.src[k])];
                            kind = r.reg_kind[static_cast<size_t>(c.src[k])];
                            src = r.reg_src[static_cast<size_t>(c.src[k])];
                        }
                    for (int k = 0; k < c.ndst; ++k)
                        if (r.reg_ready[static_cast<size_t>(c.dst[k])] > ready) {
                            ready = r.reg_ready[static_cast<size_t>(c.dst[k])];
                            kind = r.reg_kind[static_cast<size_t>(c.dst[k])];
                            src = r.reg_src[static_cast<size_t>(c.dst[k])];
                        }
                    r.ready_pc = pc;
                    r.ready_at = ready;
                    r.ready_kind = kind;
                    r.ready_src = src;
                }
                const uint64_t ready = r.ready_at;
                const uint8_t kind = r.ready_kind;
                if (ready > now_) {
                    next_event = std::min(next_event, ready);
                    pending_.push_back({stall_site(pc, r.ready_src, kind), static_cast<Stall>(kind)});
                    continue;
                }
                const double pf = pipe_free_[sch][static_cast<size_t>(c.pipe)];
                if (pf > static_cast<double>(now_)) {
                    next_event = std::min(next_event, ceil_cycle(pf));
                    pending_.push_back(
                        {pc, c.memory || c.pipe == PipeClass::Shared ? Stall::MioThrottle : Stall::MathPipeThrottle});
                    continue;
                }
                eligible_.push_back(
                    {wi, r.age, pc, c.pipe == PipeClass::Global || c.pipe == PipeClass::Local || c.pipe == PipeClass::Atomic});
            }
            if (eligible_.empty()) continue;
            if (sched_free_[sch] > static_cast<double>(now_)) {
                // The scheduler is still dispatching the SASS of its previous instruction.
                next_event = std::min(next_event, ceil_cycle(sched_free_[sch]));
                for (const SchedulerCandidate& c : eligible_) {
                    const WarpRec& r = warps_[static_cast<size_t>(c.slot)];
                    pending_.push_back(
                        {slots_[static_cast<size_t>(r.slot)].ctx.warps[static_cast<size_t>(r.widx)].stack.back().pc,
                         Stall::NotSelected});
                }
                continue;
            }
            const size_t pick = policies_[sch]->pick(eligible_);
            for (size_t i = 0; i < eligible_.size(); ++i) {
                if (i == pick) continue;
                const WarpRec& r = warps_[static_cast<size_t>(eligible_[i].slot)];
                pending_.push_back({slots_[static_cast<size_t>(r.slot)].ctx.warps[static_cast<size_t>(r.widx)].stack.back().pc,
                                    Stall::NotSelected});
            }
            const SchedulerCandidate chosen = eligible_[pick];
            policies_[sch]->issued(chosen);
            issue(static_cast<int>(sch), chosen.slot);
            issued_any = true;
        }
        uint64_t dt = 1;
        if (!issued_any) {
            for (const Slot& s : slots_)
                if (!s.busy && next_block_ < env_.nblocks)
                    next_event = std::min(next_event, std::max({s.free_at, block_unit_free_, now_ + 1}));
            if (next_event == UINT64_MAX) {
                // Nothing can ever issue: every live warp waits at a barrier that cannot complete.
                for (const Slot& s : slots_)
                    if (s.busy) throw_barrier_deadlock(s.ctx);
                next_event = now_ + 1;
            }
            dt = std::max<uint64_t>(1, next_event - now_);
        }
        for (const Pending& p : pending_) timing_at(p.pc).stall_cycles[static_cast<int>(p.why)] += dt;
        warp_cycles += static_cast<double>(live_warps) * static_cast<double>(dt);
        active_cycles += dt;
        now_ += dt;
        bool any = next_block_ < env_.nblocks;
        for (const Slot& s : slots_) any |= s.busy;
        if (!any) done_ = true;
    }
}

void SmModel::finish_warp(int32_t wi) {
    WarpRec& r = warps_[static_cast<size_t>(wi)];
    r.live = false;
    Slot& s = slots_[static_cast<size_t>(r.slot)];
    if (env_.options->block_timeline)
        warp_spans.push_back({s.block, index_, r.slot, r.widx,
                              static_cast<int32_t>(static_cast<size_t>(wi) % sched_warps_.size()), r.start, now_ + 1, r.issued});
    if (--s.live == 0) {
        s.busy = false;
        // The block unit retires the block (after any placement or retirement it is busy with);
        // the slot takes its next block after that.
        block_unit_free_ = std::max(block_unit_free_, now_ + 1) + static_cast<uint64_t>(env_.arch->block_retire_cycles);
        s.free_at = block_unit_free_;
        finish = std::max(finish, now_ + 1);
        if (env_.options->block_timeline) spans.push_back({s.block, index_, r.slot, s.start, now_ + 1});
    }
}

void SmModel::issue(int sched, int32_t wi) {
    const ArchSpec& a = *env_.arch;
    const std::vector<InstrClass>& cls = *env_.classes;
    WarpRec& r = warps_[static_cast<size_t>(wi)];
    Slot& s = slots_[static_cast<size_t>(r.slot)];
    Warp& w = s.ctx.warps[static_cast<size_t>(r.widx)];
    r.ready_pc = -1;  // its registers change
    for (int n = 0; n <= kMaxFolded; ++n) {
        if (w.state != WarpState::Ready) break;
        const int32_t pc = w.stack.back().pc;
        const InstrClass& c = cls[static_cast<size_t>(pc)];
        if (n > 0 && !c.folded) break;
        const Instr& in = env_.module->instructions()[static_cast<size_t>(pc)];
        const uint32_t active = w.stack.back().mask;
        const size_t depth = w.stack.size();
        if (!env_.seg_leader.empty() && env_.seg_leader[static_cast<size_t>(pc)]) r.seg_start = now_;
        log_.lanes = 0;
        run_warp(s.ctx, w, 1);
        if (c.folded) {
            // No slot, no latency: the result is ready when its sources are.
            uint64_t ready = 0;
            uint8_t kind = static_cast<uint8_t>(Stall::Wait);
            int32_t src = -1;
            for (int k = 0; k < c.nsrc; ++k)
                if (r.reg_ready[static_cast<size_t>(c.src[k])] > ready) {
                    ready = r.reg_ready[static_cast<size_t>(c.src[k])];
                    kind = r.reg_kind[static_cast<size_t>(c.src[k])];
                    src = r.reg_src[static_cast<size_t>(c.src[k])];
                }
            double flow = 0;
            for (int k = 0; k < c.nsrc; ++k) flow = std::max(flow, r.reg_flow[static_cast<size_t>(c.src[k])]);
            for (int k = 0; k < c.ndst; ++k) {
                r.reg_ready[static_cast<size_t>(c.dst[k])] = ready;
                r.reg_kind[static_cast<size_t>(c.dst[k])] = kind;
                r.reg_flow[static_cast<size_t>(c.dst[k])] = flow;
                r.reg_src[static_cast<size_t>(c.dst[k])] = src;  // a copy forwards its source's producer
            }
            if (n == 0) timing_at(pc).stall_cycles[static_cast<int>(Stall::Selected)] += 1;
        } else {
            ++issued;
            ++r.issued;
            timing_at(pc).stall_cycles[static_cast<int>(Stall::Selected)] += 1;
            uint64_t done_at;
            uint8_t kind;
            PipeClass pipe = c.pipe;
            if (c.memory && log_.lanes != 0 && log_.where != MemWhere::Param) {
                double at = static_cast<double>(now_);
                const std::vector<LoadHoist>& hoist = env_.options->load_hoist;
                if (!hoist.empty() && hoist[static_cast<size_t>(pc)].offset >= 0 && !log_.write && !log_.atomic) {
                    // ptxas issues this load earlier than the PTX order puts it: once its segment has
                    // issued what the machine code places before it (their operands ready), and its
                    // address is ready.
                    const LoadHoist& h = hoist[static_cast<size_t>(pc)];
                    // Its address arithmetic goes ahead with it: the operands count from when their
                    // values could have been ready (reg_flow), not from when the PTX order computed them.
                    double early = static_cast<double>(r.seg_start) + h.offset;
                    for (int k = 0; k < c.nsrc; ++k) early = std::max(early, r.reg_flow[static_cast<size_t>(c.src[k])]);
                    for (int32_t j : h.after) {
                        const InstrClass& p = cls[static_cast<size_t>(j)];
                        for (int k = 0; k < p.nsrc; ++k) early = std::max(early, r.reg_flow[static_cast<size_t>(p.src[k])]);
                    }
                    at = std::min(at, early);
                }
                done_at = memory_done(wi, in, log_, &kind, at);
                pipe = log_.where == MemWhere::Shared ? PipeClass::Shared
                       : c.pipe == PipeClass::Shared  ? PipeClass::Global
                                                      : c.pipe;
            } else {
                done_at = now_ + static_cast<uint64_t>(c.expanded >= 0 ? a.expanded_latency[c.expanded]
                                                                       : a.pipes[static_cast<size_t>(c.pipe)].latency);
                kind = static_cast<uint8_t>(wait_kind(c.pipe));
            }
            // Dataflow time of the result: a memory access's when it arrives; anything else's its
            // operands' dataflow time plus its latency.
            double flow = static_cast<double>(done_at);
            if (!(c.memory && log_.lanes != 0 && log_.where != MemWhere::Param)) {
                flow = 0;
                for (int k = 0; k < c.nsrc; ++k) flow = std::max(flow, r.reg_flow[static_cast<size_t>(c.src[k])]);
                flow += static_cast<double>(done_at - now_);
            }
            for (int k = 0; k < c.ndst; ++k) {
                r.reg_ready[static_cast<size_t>(c.dst[k])] = done_at;
                r.reg_kind[static_cast<size_t>(c.dst[k])] = kind;
                r.reg_flow[static_cast<size_t>(c.dst[k])] = flow;
                r.reg_src[static_cast<size_t>(c.dst[k])] = pc;
            }
            pipe_free_[static_cast<size_t>(sched)][static_cast<size_t>(c.pipe)] =
                static_cast<double>(now_) + a.pipes[static_cast<size_t>(pipe)].issue_cycles;
            const std::vector<double>& iw = env_.options->issue_weights;
            if (!iw.empty()) {
                double cost = iw[static_cast<size_t>(pc)];
                // The whole warp jumped over code ptxas if-converted: the GPU issues it predicated off.
                if (!env_.skip_weight.empty() && env_.skip_weight[static_cast<size_t>(pc)] > 0 && w.state == WarpState::Ready &&
                    w.stack.size() == depth && w.stack.back().pc == in.target)
                    cost += env_.skip_weight[static_cast<size_t>(pc)];
                sched_free_[static_cast<size_t>(sched)] =
                    std::max(sched_free_[static_cast<size_t>(sched)], static_cast<double>(now_)) + cost;
            }
            const TraceFilter& f = env_.options->trace_filter;
            if (env_.options->instruction_trace && trace.size() < f.max_records && (f.sm < 0 || f.sm == index_) &&
                (f.block < 0 || static_cast<uint64_t>(f.block) == s.block) && (f.warp < 0 || f.warp == r.widx) &&
                now_ >= f.first_cycle && now_ <= f.last_cycle && env_.trace_pc[static_cast<size_t>(pc)])
                trace.push_back({now_, index_, r.widx, pc, s.block, active});
        }
        if (w.state == WarpState::AtBarrier) {
            std::vector<WarpState> before;
            for (const Warp& x : s.ctx.warps) before.push_back(x.state);
            if (release_barriers(s.ctx)) {
                for (size_t k = 0; k < s.ctx.warps.size(); ++k) {
                    if (before[k] != WarpState::AtBarrier || s.ctx.warps[k].state == WarpState::AtBarrier) continue;
                    WarpRec& o = warps_[static_cast<size_t>(r.slot) * env_.nwarps + k];
                    o.not_before = now_ + static_cast<uint64_t>(a.barrier_latency);
                    if (s.ctx.warps[k].state == WarpState::Done && o.live)
                        finish_warp(static_cast<int32_t>(static_cast<size_t>(r.slot) * env_.nwarps + k));
                }
            }
            break;
        }
        if (w.state == WarpState::Done) {
            finish_warp(wi);
            break;
        }
    }
}

uint64_t SmModel::memory_done(int32_t wi, const Instr& in, const MemAccessLog& log, uint8_t* kind, double at) {
    const ArchSpec& a = *env_.arch;
    WarpRec& r = warps_[static_cast<size_t>(wi)];
    TimingCounters& k = timing_at(static_cast<int32_t>(&in - env_.module->instructions().data()));
    const double now = at;
    if (log.where == MemWhere::Shared) {
        uint32_t addr[32];
        for (int l = 0; l < 32; ++l) addr[l] = static_cast<uint32_t>(log.addr[l]);
        uint32_t bytes = log.bytes;
        bool widened = false;
        const std::vector<SharedIssue>& si = env_.options->shared_issue;
        if (!si.empty() && !log.atomic) {
            const SharedIssue& issue = si[static_cast<size_t>(&in - env_.module->instructions().data())];
            if (issue.requests == 0) {
                // ptxas merged this access into a neighbour's wider instruction: its data come with that
                // request, which has paid the wavefronts (when the neighbour comes later in the PTX, as
                // if it were issued now).
                *kind = static_cast<uint8_t>(Stall::ShortScoreboard);
                const double done = issue.after_head
                                        ? r.wide_shared_done
                                        : std::max(now, l1_free_) - 1 + a.pipes[static_cast<size_t>(PipeClass::Shared)].latency;
                k.memory_latency_cycles += static_cast<uint64_t>(std::max(0.0, done - now));
                return ceil_cycle(done);
            }
            if (issue.requests == 1 && static_cast<uint32_t>(issue.width) > bytes) {
                bytes = static_cast<uint32_t>(issue.width);
                for (int l = 0; l < 32; ++l) addr[l] &= ~(bytes - 1);
                widened = true;
            }
        }
        const BankCost cost = env_.shared_model->cost(addr, log.lanes, bytes);
        k.shared_wavefronts += cost.wavefronts;
        k.shared_ideal_wavefronts += cost.ideal;
        const double start = std::max(now, l1_free_);
        l1_free_ = start + cost.wavefronts * (log.atomic ? 2.0 : 1.0);
        *kind = static_cast<uint8_t>(Stall::ShortScoreboard);
        const double lat = log.atomic ? a.pipes[static_cast<size_t>(PipeClass::Shared)].latency * 2
                                      : a.pipes[static_cast<size_t>(PipeClass::Shared)].latency;
        const double done = l1_free_ - 1 + lat;
        if (widened) r.wide_shared_done = done;
        k.memory_latency_cycles += static_cast<uint64_t>(done - now);
        return ceil_cycle(done);
    }
    // Global or local: sectors and lines of the request.
    uint64_t sectors[64];
    int nsec = 0;
    const uint64_t warp_tag =
        (static_cast<uint64_t>(slots_[static_cast<size_t>(r.slot)].block) * env_.nwarps + static_cast<uint64_t>(r.widx)) *
        ((env_.local_per_thread + 3) / 4 * 128);
    // Global addresses as the device would see them (global_memory.h): host addresses vary from
    // run to run, and the sectors, sets and slices they select must not.
    const GlobalMemoryMap* global_map = env_.options->launch.global_memory;
    for (uint32_t m = log.lanes; m; m &= m - 1) {
        const int l = std::countr_zero(m);
        uint64_t addr = log.addr[l];
        if (log.where == MemWhere::Local)
            addr = kLocalTagBase + warp_tag + (addr / 4) * 128 + static_cast<uint64_t>(l) * 4;
        else if (global_map)
            addr = global_map->device_address(addr);
        const uint64_t first = addr / 32,
                       last = (addr + (log.where == MemWhere::Local ? std::min<uint32_t>(log.bytes, 4) : log.bytes) - 1) / 32;
        for (uint64_t sct = first; sct <= last && nsec < 64; ++sct) sectors[nsec++] = sct;
    }
    std::sort(sectors, sectors + nsec);
    nsec = static_cast<int>(std::unique(sectors, sectors + nsec) - sectors);
    int nlines = 0;
    for (int i = 0; i < nsec; ++i)
        if (i == 0 || sectors[i] / 4 != sectors[i - 1] / 4) ++nlines;
    ++k.global_requests;
    k.global_sectors += static_cast<uint64_t>(nsec);
    const double t1 = std::max(now, l1_free_);
    l1_free_ = t1 + nlines;
    *kind = static_cast<uint8_t>(Stall::LongScoreboard);
    if (log.atomic) {
        // The L2 performs the atomic on its copy of the sector: a sector not in L2 is read from
        // DRAM first (the H200 reads the 4 MB of atomic_spread's counters from DRAM; ncu
        // dram__bytes_read), and that line's operations wait for it.
        bool missed[64] = {};
        int nmissed = 0;
        for (int i = 0; i < nsec; ++i) {
            missed[i] = l2_lookup(sectors[i] * 32, true, k);
            nmissed += missed[i];
        }
        const double fill = nmissed ? dram_fetch(t1, nmissed) : 0;  // when the missed sectors have come
        const double start = std::max(t1, l2_free_);
        // The SM's path into L2 carries a request's sectors and each active lane's operand: a
        // request of one sector per lane costs more than one of 32 lanes on 4 sectors, but less than
        // 8 times more (the H200's scattered vs coalesced atomic microbenchmarks).
        l2_free_ = start + nsec * env_.atomic_cycles_per_sector + std::popcount(log.lanes) * env_.atomic_cycles_per_lane;
        drain = std::max(drain, l2_free_);
        // Per line of the request: its sectors pass the slice's atomic unit one after the other, and
        // its busiest word's lanes wait for that word's earlier operations (the launcher serialises
        // them at atomic_same_address_cycles per lane, across requests and SMs).
        const double same_cycles = type_is_float(in.type) ? a.l2_atomic_same_address_cycles : a.l2_atomic_same_address_cycles_int;
        int same = 1;
        double last_fill = 0, queued = 0;
        for (int i = 0; i < nsec;) {
            const uint64_t line = sectors[i] / 4;
            int n = 0;
            bool line_missed = false;
            for (; i + n < nsec && sectors[i + n] / 4 == line; ++n) line_missed |= missed[i + n];
            const uint32_t first = static_cast<uint32_t>(atomic_words.size());
            uint32_t seen = 0;  // lanes already counted with an earlier lane on the same word
            for (uint32_t m = log.lanes; m; m &= m - 1) {
                const int l = std::countr_zero(m);
                // The word's device address, as the sectors' (the host's would never match `line`).
                const uint64_t x = global_map ? global_map->device_address(log.addr[l]) : log.addr[l];
                if (x / 128 != line || (seen >> l & 1)) continue;
                uint32_t c = 0;
                for (uint32_t q = log.lanes; q; q &= q - 1) {
                    const int o = std::countr_zero(q);
                    if (log.addr[o] == log.addr[l]) ++c, seen |= 1u << o;
                }
                atomic_words.push_back({x, c});
                same = std::max(same, static_cast<int>(c));
                if (env_.word_free) {
                    auto w = env_.word_free->find(x);
                    if (w != env_.word_free->end()) queued = std::max(queued, w->second);
                }
            }
            if (env_.slice_free) queued = std::max(queued, (*env_.slice_free)[a.l2_atomic_slice(line)]);
            // A line waiting for its DRAM fill reaches its slice's unit when the data has come (the
            // launcher orders the slices' work by this time: the miss does not hold the others up).
            const double arrive = line_missed ? std::max(l2_free_, fill) : l2_free_;
            if (line_missed) last_fill = std::max(last_fill, arrive);
            atomic_log.push_back({arrive, line, n * env_.slice_atomic_cycles_per_sector, first,
                                  static_cast<uint32_t>(atomic_words.size()) - first, same_cycles});
            i += n;
        }
        // The value comes back after the atomic latency, once the request's slices and words have
        // worked off what the SMs' atomics had queued there by the end of the epoch before (a
        // compare-and-swap loop on lines every SM hammers retries at the slices' pace, not its own
        // round trip's). Read from the launcher's state between epochs: the same on any thread count.
        const double done = std::max({l2_free_, last_fill, queued}) + a.pipes[static_cast<size_t>(PipeClass::Atomic)].latency +
                            (same - 1) * same_cycles;
        k.memory_latency_cycles += static_cast<uint64_t>(done - now);
        return ceil_cycle(done);
    }
    if (log.write) {
        // Stores share the SM's path into L2 with loads: one write request per 128-byte line (its
        // sectors masked), at the chip's measured rate for one-line-per-lane stores, and no faster
        // than the L2's sector bandwidth. The warp does not wait, but a load behind them does, and
        // the kernel ends after they drain.
        for (int i = 0; i < nsec; ++i) {
            l2_log.push_back({sectors[i] * 32, true, false});
            l2_pending.insert(sectors[i] * 32);
        }
        l2_free_ = std::max(t1, l2_free_) + std::max(nlines * env_.store_cycles_per_line, nsec * env_.l2_cycles_per_sector);
        drain = std::max(drain, l2_free_);
        return now_ + 1;
    }
    int l2_n = 0, dram_n = 0;
    for (int i = 0; i < nsec; ++i) {
        const uint64_t addr = sectors[i] * 32;
        if (l1_.access(addr, false)) {
            ++k.l1_hits;
            continue;
        }
        ++k.l1_misses;
        ++l2_n;
        dram_n += l2_lookup(addr, false, k);
    }
    double done = t1 + a.l1_hit_latency;
    if (l2_n) {
        const double start = std::max(t1, l2_free_);
        l2_free_ = start + l2_n * env_.l2_cycles_per_sector;
        done = std::max(done, l2_free_ + a.l2_hit_latency);
    }
    if (dram_n) done = std::max(done, dram_fetch(t1, dram_n));
    k.memory_latency_cycles += static_cast<uint64_t>(done - now);
    return ceil_cycle(done);
}

bool SmModel::l2_lookup(uint64_t addr, bool dirty, TimingCounters& k) {
    const bool miss = !(env_.l2->probe(addr) || l2_pending.count(addr));
    if (miss) {
        ++k.l2_misses;
        l2_pending.insert(addr);
    } else {
        ++k.l2_hits;
        if (dirty) l2_pending.insert(addr);
    }
    l2_log.push_back({addr, dirty, miss});
    return miss;
}

double SmModel::dram_fetch(double t, int n) {
    dram_free = std::max(t, dram_free) + n * env_.dram_cycles_per_sector * env_.dram_miss_share;
    dram_read_bytes += static_cast<uint64_t>(n) * static_cast<uint64_t>(env_.arch->l2_sector_bytes);
    return dram_free + env_.arch->dram_latency + env_.dram_extra_latency;
}

}  // namespace weft::gpusim
