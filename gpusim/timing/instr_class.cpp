// gpusim/timing/instr_class.cpp — pipe classes and register read/write sets (instr_class.h).
#include "gpusim/timing/instr_class.h"

namespace weft::gpusim {
namespace {

bool writes_ops0(Op op) {
    switch (op) {
        case Op::St:
        case Op::Red:
        case Op::Bra:
        case Op::Call:
        case Op::Ret:
        case Op::Exit:
        case Op::Trap:
        case Op::Bar:
        case Op::Barrier:
        case Op::Membar:
        case Op::Fence:
        case Op::Nanosleep:
        case Op::Prefetch:
        case Op::Griddepcontrol: return false;
        default: return true;
    }
}

bool is_float(Type t) { return type_is_float(t); }

PipeClass pipe_of(const Instr& in) {
    switch (op_class(in.op)) {
        case OpClass::Sfu: return in.type == Type::F64 ? PipeClass::Fp64 : PipeClass::Sfu;
        case OpClass::Mem:
            return in.space == Space::Shared  ? PipeClass::Shared
                   : in.space == Space::Local ? PipeClass::Local
                                              : PipeClass::Global;
        case OpClass::Atomic: return in.space == Space::Shared ? PipeClass::Shared : PipeClass::Atomic;
        case OpClass::Branch:
        case OpClass::Call:
        case OpClass::Ret:
        case OpClass::Exit: return PipeClass::Branch;
        case OpClass::Barrier: return PipeClass::Barrier;
        case OpClass::Warp: return PipeClass::Shfl;
        case OpClass::Nop: return in.op == Op::Membar || in.op == Op::Fence ? PipeClass::Barrier : PipeClass::Alu;
        default: break;
    }
    switch (in.op) {
        case Op::Div:
        case Op::Rem: return in.type == Type::F64 ? PipeClass::Fp64 : PipeClass::Sfu;
        case Op::Cvt: {
            const bool fd = is_float(in.type), fs = is_float(in.type2);
            if (in.type == Type::F64 || in.type2 == Type::F64) return PipeClass::Fp64;
            return (fd || fs) ? PipeClass::Conv : PipeClass::Alu;
        }
        default: break;
    }
    if (in.type == Type::F64) return PipeClass::Fp64;
    if (is_float(in.type)) return PipeClass::Fma;
    switch (in.op) {
        case Op::Mul:
        case Op::Mad:
        case Op::Mul24:
        case Op::Mad24:
        case Op::Madc:
        case Op::Sad: return PipeClass::Imad;
        default: return PipeClass::Alu;
    }
}

// Precise square roots, reciprocals and divisions, and integer divisions of up to 32 bits by a
// register: ptxas expands each into a routine (the .approx / .full forms are one or two
// instructions; a division by an immediate becomes a multiply and a shift).
int expanded_of(const Instr& in) {
    const bool approx = (in.flags & (Flag_Approx | Flag_Full)) != 0;
    const bool f32 = in.type == Type::F32, f64 = in.type == Type::F64;
    switch (in.op) {
        case Op::Sqrt:
            if (approx) return -1;
            return f32 ? static_cast<int>(ExpandedOp::SqrtF32) : f64 ? static_cast<int>(ExpandedOp::SqrtF64) : -1;
        case Op::Rcp:
            if (approx) return -1;
            return f32 ? static_cast<int>(ExpandedOp::RcpF32) : f64 ? static_cast<int>(ExpandedOp::RcpF64) : -1;
        case Op::Div:
        case Op::Rem:
            if (f32) return approx || in.op == Op::Rem ? -1 : static_cast<int>(ExpandedOp::DivF32);
            if (f64) return in.op == Op::Div ? static_cast<int>(ExpandedOp::DivF64) : -1;
            // By a constant, ptxas multiplies and shifts instead.
            if (in.ops[2].kind == OperandKind::Imm) return -1;
            return !type_is_float(in.type) && type_bits(in.type) <= 32 ? static_cast<int>(ExpandedOp::DivInt) : -1;
        default: return -1;
    }
}

bool folded(const Instr& in, const Function* fn, int32_t index) {
    switch (in.op) {
        case Op::Ld: return in.space == Space::Param && fn && index >= fn->begin && index < fn->end && fn->is_entry;
        case Op::Cvta: return in.space == Space::Global;
        case Op::Mov:
            return in.ops[1].kind == OperandKind::Reg || in.ops[1].kind == OperandKind::Imm ||
                   in.ops[1].kind == OperandKind::Vec || in.ops[1].kind == OperandKind::SymAddr;
        case Op::Cvt:
            return !is_float(in.type) && !is_float(in.type2) && in.ops[0].kind == OperandKind::Reg &&
                   type_bits(in.type) >= type_bits(in.type2) && in.guard < 0;
        default: return false;
    }
}

void add(int32_t* arr, uint8_t& n, int cap, int32_t r) {
    if (r < kNumStaticSregs || n >= cap) return;  // static special registers are always ready
    for (int i = 0; i < n; ++i)
        if (arr[i] == r) return;
    arr[n++] = r;
}

}  // namespace

std::vector<InstrClass> classify_instructions(const Module& m) {
    const auto& code = m.instructions();
    std::vector<InstrClass> out(code.size());
    // The function each instruction belongs to (for ld.param of kernel parameters).
    std::vector<const Function*> owner(code.size(), nullptr);
    for (const Function& f : m.functions())
        for (int32_t i = f.begin; i < f.end && i < static_cast<int32_t>(code.size()); ++i) owner[i] = &f;
    for (size_t i = 0; i < code.size(); ++i) {
        const Instr& in = code[i];
        InstrClass& c = out[i];
        c.pipe = pipe_of(in);
        c.memory = op_class(in.op) == OpClass::Mem || op_class(in.op) == OpClass::Atomic;
        c.folded = folded(in, owner[i], static_cast<int32_t>(i));
        c.expanded = static_cast<int8_t>(expanded_of(in));
        if (c.folded) c.memory = false;
        if (in.guard >= 0) add(c.src, c.nsrc, 10, in.guard);
        const bool w0 = writes_ops0(in.op);
        for (int k = 0; k < in.nops; ++k) {
            const Operand& o = in.ops[k];
            const bool is_dst = k == 0 && w0;
            switch (o.kind) {
                case OperandKind::Reg:
                    if (is_dst)
                        add(c.dst, c.ndst, 5, o.reg);
                    else
                        add(c.src, c.nsrc, 10, o.reg);
                    break;
                case OperandKind::Vec:
                    for (int e = 0; e < o.nvec; ++e)
                        if (o.vregs[e] >= 0) {
                            if (is_dst)
                                add(c.dst, c.ndst, 5, o.vregs[e]);
                            else
                                add(c.src, c.nsrc, 10, o.vregs[e]);
                        }
                    break;
                case OperandKind::Addr:
                    if (o.reg >= 0) add(c.src, c.nsrc, 10, o.reg);
                    break;
                default: break;
            }
        }
        if (in.pdest >= 0) add(c.dst, c.ndst, 5, in.pdest);
    }
    return out;
}

}  // namespace weft::gpusim
