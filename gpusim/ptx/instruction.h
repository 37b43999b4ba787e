// gpusim/ptx/instruction.h — the decoded form of one PTX instruction.
//
// The parser turns each PTX instruction into an Instr once: opcode from opcodes.def, types,
// modifiers as small enums and flag bits, operands with their kind resolved (register index,
// immediate bits already converted to the instruction's type, address with its state space and
// symbol resolved to an offset or a host address), branch targets as instruction indices and
// the reconvergence point of every branch. The executor then reads only integers: no strings,
// no maps, no virtual calls on the hot path.
#pragma once

#include <cstdint>

#include "gpusim/ptx/types.h"

namespace weft::gpusim {

enum class Op : uint8_t {
#define OP_DEF(name, mnemonic, min_ops, max_ops, cls) name,
#include "gpusim/ptx/opcodes.def"
#undef OP_DEF
    kCount
};

enum class OpClass : uint8_t { Alu, Sfu, Mem, Atomic, Branch, Call, Ret, Exit, Barrier, Warp, Nop };

const char* op_mnemonic(Op op);
OpClass op_class(Op op);

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };
enum class Round : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };
enum class Cmp : uint8_t {
    None,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
};

// Instr::sub, by opcode family.
enum class BoolOp : uint8_t { None, And, Or, Xor };                                // setp
enum class MulMode : uint8_t { Lo, Hi, Wide };                                     // mul, mad, mul24
enum class AtomOp : uint8_t { Add, Min, Max, Exch, Cas, And, Or, Xor, Inc, Dec };  // atom, red, redux
enum class ShflMode : uint8_t { Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class TestpMode : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class BarMode : uint8_t { Sync, Arrive, Red };
// griddepcontrol (programmatic dependent launch, sm_90): .wait for the grids ahead in the stream,
// .launch_dependents to let the next grid be scheduled. Both no-ops in gpusim (execute.cpp).
enum class GriddepMode : uint8_t { None, Wait, LaunchDependents };

// Instr::flags bits.
enum InstrFlags : uint16_t {
    Flag_Ftz = 1 << 0,
    Flag_Sat = 1 << 1,
    Flag_Approx = 1 << 2,
    Flag_Full = 1 << 3,
    Flag_CarryOut = 1 << 4,   // .cc
    Flag_Uni = 1 << 5,        // bra.uni, call.uni
    Flag_Nan = 1 << 6,        // min/max .NaN
    Flag_To = 1 << 7,         // cvta.to
    Flag_Wrap = 1 << 8,       // shf.wrap (else .clamp)
    Flag_Left = 1 << 9,       // shf.l
    Flag_ShiftAmt = 1 << 10,  // bfind.shiftamt
    Flag_Volatile = 1 << 11,
};

enum class OperandKind : uint8_t {
    None,
    Reg,      // reg: register index
    Imm,      // imm: bits, already in the instruction's type
    Sreg,     // reg: dynamic special register (SregId) read at execution
    SymAddr,  // value of a symbol: base + imm (Local adds the frame base at run time)
    Addr,     // [reg + imm] or [symbol + imm]; base says which symbol space, reg < 0 if none
    Vec,      // {r0, r1, ...}: vregs[0..nvec), -1 for the sink '_'
    Label,    // imm: target instruction index
    Func,     // imm: function index
    Sink,     // '_'
};

// Where an address's symbol lives; the offset in Operand::imm is relative to it.
enum class AddrBase : uint8_t {
    None,         // plain register or absolute address
    Host,         // module .global/.const variable: imm holds the host address
    Shared,       // imm is an offset in the block's shared memory
    Local,        // imm is an offset in the current function frame (per thread)
    KernelParam,  // imm is an offset in the kernel's parameter buffer
    FrameParam,   // imm is an offset in the current function frame (call params, func params)
};

// Dynamic special registers (the static ones, like %tid.x, live in prefilled registers).
enum class SregId : uint8_t { Clock, Clock64, GlobalTimer, GlobalTimerLo, GlobalTimerHi };

struct Operand {
    OperandKind kind = OperandKind::None;
    AddrBase base = AddrBase::None;
    bool neg = false;  // "!%p"
    uint8_t nvec = 0;
    int32_t reg = -1;
    uint64_t imm = 0;
    int32_t vregs[4] = {-1, -1, -1, -1};
};

struct Instr {
    Op op = Op::Mov;
    Type type = Type::None;   // the instruction's (last) type: d's type for cvt, etc.
    Type type2 = Type::None;  // cvt: source type; slct: comparison type; setp: none
    Space space = Space::Generic;
    Round rnd = Round::None;
    Cmp cmp = Cmp::None;
    uint8_t sub = 0;  // BoolOp / MulMode / AtomOp / ShflMode / VoteMode / TestpMode / BarMode / GriddepMode / cvta space
    uint8_t vec = 1;  // 1, 2, 4 for ld/st .v2/.v4
    uint8_t nops = 0;
    bool guard_neg = false;
    uint16_t flags = 0;
    int32_t guard = -1;    // predicate register index, -1 if unguarded
    int32_t pdest = -1;    // second destination: setp's "|q", shfl's "|p"
    int32_t target = -1;   // bra: target index; call: function index
    int32_t rpc = -1;      // bra: reconvergence index (immediate post-dominator), -1 = function exit
    int32_t call = -1;     // call: index into Module's call table
    int32_t loc = -1;      // index into Module's source locations, -1 if no .loc
    int32_t ptx_line = 0;  // 1-based line in the PTX text
    Operand ops[5];
};

}  // namespace weft::gpusim
