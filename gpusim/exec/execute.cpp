// gpusim/exec/execute.cpp — the issue loop of one warp: fetch the top SIMT entry's instruction,
// apply the guard, count, execute, and maintain the SIMT stack (branches, calls, returns,
// exits, barriers). Everything that is not control flow goes to an exec_*.cpp family.
#include <cstring>

#include "gpusim/exec/exec.h"

namespace weft::gpusim {

uint64_t read_operand_slow(const BlockContext& ctx, const Warp& w, const Operand& o, int lane) {
    switch (o.kind) {
        case OperandKind::Sreg:
            switch (static_cast<SregId>(o.reg)) {
                // The timing model's cycle of the SM that issues the read, as on the GPU (each SM's
                // counter; they start together at the launch). Functional runs have no cycles: there
                // the warp's instruction count stands in, which still grows along the warp's path.
                case SregId::Clock: return low_bits(ctx.sm_cycle ? *ctx.sm_cycle : w.issued, 32);
                case SregId::Clock64: return ctx.sm_cycle ? *ctx.sm_cycle : w.issued;
                case SregId::GlobalTimer: return w.issued;
                case SregId::GlobalTimerLo: return low_bits(w.issued, 32);
                case SregId::GlobalTimerHi: return w.issued >> 32;
            }
            return 0;
        case OperandKind::SymAddr:
            if (o.base == AddrBase::Local || o.base == AddrBase::FrameParam) return o.imm + w.stack.back().frame;
            return o.imm;
        default: return 0;
    }
    (void)lane;
}

std::string describe_block(const BlockContext& ctx) {
    return "kernel '" + ctx.kernel->name + "' block (" + std::to_string(ctx.ctaid.x) + "," + std::to_string(ctx.ctaid.y) + "," +
           std::to_string(ctx.ctaid.z) + ")";
}

std::string describe_pc(const BlockContext& ctx, int32_t pc) {
    const Instr& in = ctx.code[pc];
    std::string s = "PTX line " + std::to_string(in.ptx_line);
    if (in.loc >= 0) {
        const SourceLoc& loc = ctx.module->locations()[in.loc];
        auto file = [&](int32_t f) {
            const auto& files = ctx.module->files();
            return (f >= 0 && static_cast<size_t>(f) < files.size() && !files[f].empty()) ? files[f]
                                                                                          : "file " + std::to_string(f);
        };
        s += " (" + file(loc.file) + ":" + std::to_string(loc.line);
        if (loc.at_file >= 0) s += ", inlined at " + file(loc.at_file) + ":" + std::to_string(loc.at_line);
        s += ")";
    }
    s += ": " + ctx.module->instruction_text(pc);
    return s;
}

void fault(const BlockContext& ctx, const Warp& w, int lane, int32_t pc, const std::string& message) {
    std::string who = describe_block(ctx);
    if (lane >= 0) {
        const uint32_t t = static_cast<uint32_t>(w.index) * kWarpSize + static_cast<uint32_t>(lane);
        const uint32_t tx = t % ctx.block.x, ty = (t / ctx.block.x) % ctx.block.y, tz = t / (ctx.block.x * ctx.block.y);
        who += " thread (" + std::to_string(tx) + "," + std::to_string(ty) + "," + std::to_string(tz) + ")";
    } else {
        who += " warp " + std::to_string(w.index);
    }
    throw SimError(who + ": " + message + "\n  at " + describe_pc(ctx, pc));
}

namespace {

// Pops finished paths; completes calls whose marker reached the top.
void settle(BlockContext& ctx, Warp& w) {
    while (!w.stack.empty()) {
        SimtEntry& t = w.stack.back();
        if (t.call >= 0) {
            const CallArgs& call = ctx.module->calls()[t.call];
            const uint32_t lanes = t.mask & ~w.exited;
            if (call.ret.size > 0 && w.stack.size() >= 2) {
                const uint32_t caller_frame = w.stack[w.stack.size() - 2].frame;
                for_lanes(lanes, [&](int l) {
                    std::byte* base = ctx.local + (static_cast<uint64_t>(w.index) * kWarpSize + l) * ctx.local_per_thread;
                    std::memmove(base + caller_frame + call.ret.caller_offset, base + t.frame + call.ret.callee_offset,
                                 call.ret.size);
                });
            }
            if (t.saved >= 0) {
                const Function& f = ctx.module->functions()[call.callee];
                const size_t n = static_cast<size_t>(f.reg_end - f.reg_begin) * kWarpSize;
                std::memcpy(w.regs + static_cast<size_t>(f.reg_begin) * kWarpSize, w.saved_regs.data() + t.saved,
                            n * sizeof(uint64_t));
                w.saved_regs.resize(static_cast<size_t>(t.saved));
            }
            w.stack.pop_back();
            continue;
        }
        if (t.mask == 0 || t.pc == t.rpc) {
            w.stack.pop_back();
            continue;
        }
        return;
    }
    w.state = WarpState::Done;
    w.exited = w.exists;
}

}  // namespace

void run_warp(BlockContext& ctx, Warp& w, uint32_t quantum) {
    const Instr* code = ctx.code;
    Counters* per_instr = ctx.per_instr;
    const int32_t base = ctx.per_instr_base;
    uint64_t issued = 0;
    while (quantum-- > 0) {
        if (w.stack.empty()) {
            w.state = WarpState::Done;
            break;
        }
        SimtEntry& top = w.stack.back();
        const int32_t pc = top.pc;
        const Instr& in = code[pc];
        const uint32_t active = top.mask;
        const uint32_t mask = in.guard >= 0 ? pred_mask(w, in.guard, in.guard_neg, active) : active;
        ++issued;
        ++w.issued;
        if (per_instr) {
            Counters& k = per_instr[pc - base];
            ++k.warp_instructions;
            k.thread_instructions += static_cast<uint32_t>(std::popcount(active));
        }
        switch (in.op) {
            case Op::Bra: {
                if (per_instr) ++per_instr[pc - base].branches;
                const uint32_t taken = mask, not_taken = active & ~mask;
                if (ctx.loop_log && in.target <= pc) ctx.loop_log->backward_branch(w.loop_passes, pc, in.target, active, taken);
                if (not_taken == 0) {
                    top.pc = in.target;
                } else if (taken == 0) {
                    top.pc = pc + 1;
                } else {
                    if (per_instr) ++per_instr[pc - base].divergent_branches;
                    const SimtEntry base = top;
                    top.pc = in.rpc;               // the reconvergence entry (rpc -1: lanes meet only when both paths end)
                    if (in.rpc < 0) top.mask = 0;  // no reconvergence point: nothing continues after the paths
                    w.stack.push_back({pc + 1, in.rpc, not_taken, base.frame, -1, 0, -1});
                    w.stack.push_back({in.target, in.rpc, taken, base.frame, -1, 0, -1});
                }
                break;
            }
            case Op::Call: {
                top.pc = pc + 1;
                if (mask == 0) break;
                const CallArgs& call = ctx.module->calls()[in.call];
                const Function& callee = ctx.module->functions()[call.callee];
                if (!callee.has_body)
                    fault(ctx, w, -1, pc, "call to '" + callee.name + "', which is declared but has no body in this module");
                const Function& caller = ctx.module->functions()[call.caller];
                const uint64_t frame = uint64_t{top.frame} + caller.frame_bytes;
                if (frame + callee.frame_bytes > ctx.local_per_thread)
                    fault(ctx, w, -1, pc,
                          "stack overflow calling '" + callee.name + "': each thread has " +
                              std::to_string(ctx.local_per_thread) +
                              " bytes of stack (LaunchOptions::stack_bytes when recursion is reachable)");
                const uint32_t caller_frame = top.frame;
                for_lanes(mask, [&](int l) {
                    std::byte* base = ctx.local + (static_cast<uint64_t>(w.index) * kWarpSize + l) * ctx.local_per_thread;
                    for (int32_t a = 0; a < call.nargs; ++a) {
                        const CallArgSlot& s = ctx.module->call_arg_slots()[call.first_arg + a];
                        std::memmove(base + frame + s.callee_offset, base + caller_frame + s.caller_offset, s.size);
                    }
                });
                int64_t saved = -1;
                if (callee.recursive) {
                    saved = static_cast<int64_t>(w.saved_regs.size());
                    const size_t n = static_cast<size_t>(callee.reg_end - callee.reg_begin) * kWarpSize;
                    const uint64_t* src = w.regs + static_cast<size_t>(callee.reg_begin) * kWarpSize;
                    w.saved_regs.insert(w.saved_regs.end(), src, src + n);
                }
                w.stack.push_back({-1, -1, mask, static_cast<uint32_t>(frame), in.call, 0, saved});
                w.stack.push_back({callee.begin, -1, mask, static_cast<uint32_t>(frame), -1, 0, -1});
                break;
            }
            case Op::Ret: {
                top.pc = pc + 1;
                // Lanes leave the current function: drop them from every path above the call marker.
                size_t m = w.stack.size();
                while (m > 0 && w.stack[m - 1].call < 0) --m;
                if (m == 0) {  // ret in the kernel itself: like exit
                    w.exited |= mask;
                    for (SimtEntry& e : w.stack) e.mask &= ~mask;
                } else {
                    w.stack[m - 1].returned |= mask;
                    for (size_t i = m; i < w.stack.size(); ++i) w.stack[i].mask &= ~mask;
                }
                break;
            }
            case Op::Exit:
                top.pc = pc + 1;
                w.exited |= mask;
                for (SimtEntry& e : w.stack) e.mask &= ~mask;
                break;
            case Op::Trap:
                if (mask) fault(ctx, w, std::countr_zero(mask), pc, "trap instruction executed");
                top.pc = pc + 1;
                break;
            case Op::Bar:
            case Op::Barrier: {
                top.pc = pc + 1;
                if (mask == 0) break;
                const int lane0 = std::countr_zero(mask);
                const uint64_t id = rd(ctx, w, in.ops[0], lane0);
                if (id >= 16) fault(ctx, w, lane0, pc, "barrier id " + std::to_string(id) + " is out of range (0..15)");
                const uint32_t expected = in.nops > 1 ? static_cast<uint32_t>(rd(ctx, w, in.ops[1], lane0)) : 0;
                if (in.nops > 1 && (expected == 0 || expected % kWarpSize != 0))
                    fault(ctx, w, lane0, pc,
                          "barrier thread count " + std::to_string(expected) + " must be a positive multiple of 32");
                ctx.arrived[id] += static_cast<uint32_t>(std::popcount(mask));
                if (expected) ctx.expected[id] = expected;
                if (static_cast<BarMode>(in.sub) == BarMode::Arrive) break;
                w.state = WarpState::AtBarrier;
                w.barrier = static_cast<int32_t>(id);
                w.barrier_pc = pc;
                w.barrier_lanes = mask;
                settle(ctx, w);
                if (w.state == WarpState::Done) w.state = WarpState::AtBarrier;  // cannot happen: top.pc moved on
                *ctx.budget -= std::min(*ctx.budget, issued);
                return;
            }
            case Op::Membar:
            case Op::Fence:
            case Op::Nanosleep:
            case Op::Prefetch:
            case Op::Griddepcontrol:  // a launch runs alone: its predecessors have ended, and nothing follows it early
                top.pc = pc + 1;
                break;
            case Op::Mov:
            case Op::Cvt:
                exec_move(ctx, w, in, mask);
                top.pc = pc + 1;
                break;
            case Op::Setp:
            case Op::Selp:
            case Op::Slct:
            case Op::Testp:
                exec_compare(ctx, w, in, mask);
                top.pc = pc + 1;
                break;
            case Op::Ld:
            case Op::Ldu:
            case Op::St:
            case Op::Atom:
            case Op::Red:
            case Op::Cvta:
            case Op::Isspacep:
                exec_memory(ctx, w, in, mask, pc);
                top.pc = pc + 1;
                break;
            case Op::Shfl:
            case Op::Vote:
            case Op::Activemask:
            case Op::Redux:
                exec_warp_op(ctx, w, in, mask, active);
                top.pc = pc + 1;
                break;
            case Op::Rcp:
            case Op::Sqrt:
            case Op::Rsqrt:
            case Op::Sin:
            case Op::Cos:
            case Op::Lg2:
            case Op::Ex2:
            case Op::Tanh:
            case Op::Copysign:
            case Op::Fma:
                exec_float(ctx, w, in, mask);
                top.pc = pc + 1;
                break;
            default:
                if (type_is_float(in.type))
                    exec_float(ctx, w, in, mask);
                else
                    exec_int(ctx, w, in, mask);
                top.pc = pc + 1;
                break;
        }
        // Cheap check first: the common case leaves the top entry running.
        const SimtEntry& t = w.stack.back();
        if (t.mask == 0 || t.pc == t.rpc || t.call >= 0) settle(ctx, w);
        if (w.state == WarpState::Done) break;
    }
    if (*ctx.budget < issued) {
        fault(ctx, w, -1, w.stack.empty() ? ctx.kernel->begin : w.stack.back().pc,
              "the launch exceeded LaunchOptions::max_warp_instructions (" + std::to_string(ctx.options->max_warp_instructions) +
                  "); is the kernel in an endless loop?");
    }
    *ctx.budget -= issued;
    if (ctx.options->cancel && ctx.options->cancel->load(std::memory_order_relaxed))
        fault(ctx, w, -1, w.stack.empty() ? ctx.kernel->begin : w.stack.back().pc, "the launch was cancelled");
}

}  // namespace weft::gpusim
