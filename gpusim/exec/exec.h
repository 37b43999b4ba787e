// gpusim/exec/exec.h — operand access and the per-family executors (internal header).
//
// execute.cpp owns the fetch/issue loop and control flow; it hands every other instruction to
// one of the family functions below with the mask of lanes that execute it (active lanes with
// the guard predicate applied). Each family switches once on the opcode and type, then loops
// over lanes with the operation inlined.
#pragma once

#include <bit>
#include <cstdint>

#include "gpusim/exec/warp.h"

namespace weft::gpusim {

uint64_t read_operand_slow(const BlockContext& ctx, const Warp& w, const Operand& o, int lane);

// The raw 64-bit value of a source operand for one lane.
inline uint64_t rd(const BlockContext& ctx, const Warp& w, const Operand& o, int lane) {
    if (o.kind == OperandKind::Reg) return reg_at(w, o.reg, lane);
    if (o.kind == OperandKind::Imm) return o.imm;
    return read_operand_slow(ctx, w, o, lane);
}
// A predicate operand (with '!').
inline bool rd_pred(const Warp& w, const Operand& o, int lane) {
    const uint64_t v = o.kind == OperandKind::Reg ? reg_at(w, o.reg, lane) : o.imm;
    return ((v & 1) != 0) != o.neg;
}
inline void wr(Warp& w, const Operand& d, int lane, uint64_t v) {
    if (d.kind == OperandKind::Reg) reg_at(w, d.reg, lane) = v;
}

// Calls f(lane) for each set lane of mask, in lane order.
template <typename F>
inline void for_lanes(uint32_t mask, F&& f) {
    if (mask == 0xffffffffu) {
        for (int lane = 0; lane < 32; ++lane) f(lane);
    } else {
        while (mask) {
            const int lane = std::countr_zero(mask);
            mask &= mask - 1;
            f(lane);
        }
    }
}

// Lanes of `mask` whose predicate register `reg` is (not, if neg) set.
inline uint32_t pred_mask(const Warp& w, int32_t reg, bool neg, uint32_t mask) {
    uint32_t out = 0;
    for_lanes(mask, [&](int lane) {
        if (((reg_at(w, reg, lane) & 1) != 0) != neg) out |= 1u << lane;
    });
    return out;
}

void exec_int(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask);
void exec_float(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask);
void exec_compare(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask);                   // setp selp slct testp
void exec_move(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask);                      // mov cvt
void exec_memory(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask, int32_t pc);        // ld st atom red cvta isspacep
void exec_warp_op(BlockContext& ctx, Warp& w, const Instr& in, uint32_t mask, uint32_t active);  // shfl vote activemask redux

}  // namespace weft::gpusim
