// gpusim/ptx/parse_instruction.cpp — decodes one PTX instruction into an Instr.
//
// Three steps: the mnemonic ("setp.lt.and.f32") is split at its dots into the opcode, looked up
// in opcodes.def, and modifiers classified into the Instr's enums and flags; the operands are
// read syntactically (register, !pred, literal, [address], {vector}, d|p pair, (list)); then each
// operand is resolved against the scopes: registers to indices, special registers to their
// prefilled slots, symbols to their state space and offset, literals converted to the type the
// instruction reads at that position (so 0f3F800000 in an f64 add becomes 1.0 as f64 bits).
#include <cstring>
#include <unordered_map>

#include "gpusim/errors.h"
#include "gpusim/ptx/parser.h"

namespace weft::gpusim {
namespace {

struct OpInfo {
    Op op;
    const char* mnemonic;
    int min_ops;
    int max_ops;
    OpClass cls;
};
constexpr OpInfo kOps[] = {
#define OP_DEF(name, mnemonic, min_ops, max_ops, cls) {Op::name, mnemonic, min_ops, max_ops, OpClass::cls},
#include "gpusim/ptx/opcodes.def"
#undef OP_DEF
};

const std::unordered_map<std::string_view, Op>& op_table() {
    static const auto* table = [] {
        auto* t = new std::unordered_map<std::string_view, Op>;
        for (const OpInfo& info : kOps) t->emplace(info.mnemonic, info.op);
        return t;
    }();
    return *table;
}

template <typename E>
bool lookup(std::string_view s, std::initializer_list<std::pair<std::string_view, E>> table, E& out) {
    for (const auto& [name, value] : table)
        if (name == s) {
            out = value;
            return true;
        }
    return false;
}

bool ignored_hint(std::string_view m) {
    static constexpr std::string_view kHints[] = {
        "nc",   "ca",   "cg",  "cs",  "lu",  "cv",      "wb", "wt",      "relaxed", "acquire", "release", "acq_rel", "sc",
        "weak", "mmio", "sys", "gpu", "cta", "cluster", "gl", "aligned", "sync",    "L1",      "L2",      "unified", "noftz"};
    for (std::string_view h : kHints)
        if (m == h) return true;
    return m.rfind("L1::", 0) == 0 || m.rfind("L2::", 0) == 0 || m.rfind("level::", 0) == 0 || m.rfind("proxy", 0) == 0;
}

// Static special registers (prefilled per warp) and dynamic ones.
bool lookup_sreg(std::string_view name, int32_t& index, bool& dynamic) {
    static const std::pair<std::string_view, int32_t> kStatic[] = {{"%tid.x", kSregTidX},
                                                                   {"%tid.y", kSregTidY},
                                                                   {"%tid.z", kSregTidZ},
                                                                   {"%ntid.x", kSregNtidX},
                                                                   {"%ntid.y", kSregNtidY},
                                                                   {"%ntid.z", kSregNtidZ},
                                                                   {"%ctaid.x", kSregCtaidX},
                                                                   {"%ctaid.y", kSregCtaidY},
                                                                   {"%ctaid.z", kSregCtaidZ},
                                                                   {"%nctaid.x", kSregNctaidX},
                                                                   {"%nctaid.y", kSregNctaidY},
                                                                   {"%nctaid.z", kSregNctaidZ},
                                                                   {"%laneid", kSregLaneid},
                                                                   {"%warpid", kSregWarpid},
                                                                   {"%nwarpid", kSregNwarpid},
                                                                   {"%smid", kSregSmid},
                                                                   {"%nsmid", kSregNsmid},
                                                                   {"%gridid", kSregGridid},
                                                                   {"%lanemask_eq", kSregLanemaskEq},
                                                                   {"%lanemask_le", kSregLanemaskLe},
                                                                   {"%lanemask_lt", kSregLanemaskLt},
                                                                   {"%lanemask_ge", kSregLanemaskGe},
                                                                   {"%lanemask_gt", kSregLanemaskGt},
                                                                   {"%dynamic_smem_size", kSregDynamicSmemSize},
                                                                   {"%total_smem_size", kSregTotalSmemSize}};
    static const std::pair<std::string_view, SregId> kDynamic[] = {{"%clock", SregId::Clock},
                                                                   {"%clock64", SregId::Clock64},
                                                                   {"%globaltimer", SregId::GlobalTimer},
                                                                   {"%globaltimer_lo", SregId::GlobalTimerLo},
                                                                   {"%globaltimer_hi", SregId::GlobalTimerHi}};
    for (const auto& [n, i] : kStatic)
        if (n == name) {
            index = i;
            dynamic = false;
            return true;
        }
    for (const auto& [n, i] : kDynamic)
        if (n == name) {
            index = static_cast<int32_t>(i);
            dynamic = true;
            return true;
        }
    return false;
}

Type wide_type(Type t) {
    switch (t) {
        case Type::U16: return Type::U32;
        case Type::S16: return Type::S32;
        case Type::U32: return Type::U64;
        case Type::S32: return Type::S64;
        default: return t;
    }
}

}  // namespace

const char* op_mnemonic(Op op) { return kOps[static_cast<int>(op)].mnemonic; }
OpClass op_class(Op op) { return kOps[static_cast<int>(op)].cls; }

void Parser::decode_modifiers(Instr& in, std::string_view mnemonic, const Token& at) {
    const std::string base(mnemonic.substr(0, mnemonic.find('.')));
    std::vector<Type> types;
    size_t pos = mnemonic.find('.');
    while (pos != std::string_view::npos) {
        const size_t next = mnemonic.find('.', pos + 1);
        std::string_view m = mnemonic.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1);
        pos = next;
        const std::string_view plain = m.substr(0, m.find("::"));
        const Op op = in.op;
        auto bad = [&](const std::string& why) {
            fail(at, "unknown modifier '." + std::string(m) + "' on '" + base + "'" + why);
        };
        // Opcode-specific words first: "lo" is a multiply half on mul and a comparison on setp.
        if ((op == Op::Mul || op == Op::Mad || op == Op::Mul24 || op == Op::Mad24 || op == Op::Madc) &&
            lookup<MulMode>(m, {{"lo", MulMode::Lo}, {"hi", MulMode::Hi}, {"wide", MulMode::Wide}},
                            reinterpret_cast<MulMode&>(in.sub)))
            continue;
        if (op == Op::Setp && lookup<BoolOp>(m, {{"and", BoolOp::And}, {"or", BoolOp::Or}, {"xor", BoolOp::Xor}},
                                             reinterpret_cast<BoolOp&>(in.sub)))
            continue;
        if ((op == Op::Atom || op == Op::Red || op == Op::Redux) && lookup<AtomOp>(m,
                                                                                   {{"add", AtomOp::Add},
                                                                                    {"min", AtomOp::Min},
                                                                                    {"max", AtomOp::Max},
                                                                                    {"exch", AtomOp::Exch},
                                                                                    {"cas", AtomOp::Cas},
                                                                                    {"and", AtomOp::And},
                                                                                    {"or", AtomOp::Or},
                                                                                    {"xor", AtomOp::Xor},
                                                                                    {"inc", AtomOp::Inc},
                                                                                    {"dec", AtomOp::Dec}},
                                                                                   reinterpret_cast<AtomOp&>(in.sub)))
            continue;
        if (op == Op::Shfl &&
            lookup<ShflMode>(m,
                             {{"up", ShflMode::Up}, {"down", ShflMode::Down}, {"bfly", ShflMode::Bfly}, {"idx", ShflMode::Idx}},
                             reinterpret_cast<ShflMode&>(in.sub)))
            continue;
        if (op == Op::Vote &&
            lookup<VoteMode>(
                m, {{"all", VoteMode::All}, {"any", VoteMode::Any}, {"uni", VoteMode::Uni}, {"ballot", VoteMode::Ballot}},
                reinterpret_cast<VoteMode&>(in.sub)))
            continue;
        if (op == Op::Testp && lookup<TestpMode>(m,
                                                 {{"finite", TestpMode::Finite},
                                                  {"infinite", TestpMode::Infinite},
                                                  {"number", TestpMode::Number},
                                                  {"notanumber", TestpMode::NotANumber},
                                                  {"normal", TestpMode::Normal},
                                                  {"subnormal", TestpMode::Subnormal}},
                                                 reinterpret_cast<TestpMode&>(in.sub)))
            continue;
        if (op == Op::Bar || op == Op::Barrier) {
            BarMode mode;
            if (lookup<BarMode>(m, {{"sync", BarMode::Sync}, {"arrive", BarMode::Arrive}, {"red", BarMode::Red}}, mode)) {
                if (mode == BarMode::Red) fail(at, "bar.red is not supported");
                in.sub = static_cast<uint8_t>(mode);
                continue;
            }
        }
        if (op == Op::Griddepcontrol &&
            lookup<GriddepMode>(m, {{"wait", GriddepMode::Wait}, {"launch_dependents", GriddepMode::LaunchDependents}},
                                reinterpret_cast<GriddepMode&>(in.sub)))
            continue;
        if (op == Op::Cvta && m == "to") {
            in.flags |= Flag_To;
            continue;
        }
        if (op == Op::Shf) {
            if (m == "l") {
                in.flags |= Flag_Left;
                continue;
            }
            if (m == "r") continue;
            if (m == "wrap") {
                in.flags |= Flag_Wrap;
                continue;
            }
            if (m == "clamp") continue;
        }
        if (op == Op::Bfind && m == "shiftamt") {
            in.flags |= Flag_ShiftAmt;
            continue;
        }
        if ((op == Op::Min || op == Op::Max) && m == "NaN") {
            in.flags |= Flag_Nan;
            continue;
        }
        if ((op == Op::Bra || op == Op::Call || op == Op::Ret) && m == "uni") {
            in.flags |= Flag_Uni;
            continue;
        }
        if (op == Op::Prmt) {
            uint8_t mode;
            if (lookup<uint8_t>(m, {{"f4e", 1}, {"b4e", 2}, {"rc8", 3}, {"ecl", 4}, {"ecr", 5}, {"rc16", 6}}, mode)) {
                in.sub = mode;
                continue;
            }
        }
        if (op == Op::Setp && lookup<Cmp>(m,
                                          {{"eq", Cmp::Eq},
                                           {"ne", Cmp::Ne},
                                           {"lt", Cmp::Lt},
                                           {"le", Cmp::Le},
                                           {"gt", Cmp::Gt},
                                           {"ge", Cmp::Ge},
                                           {"lo", Cmp::Lo},
                                           {"ls", Cmp::Ls},
                                           {"hi", Cmp::Hi},
                                           {"hs", Cmp::Hs},
                                           {"equ", Cmp::Equ},
                                           {"neu", Cmp::Neu},
                                           {"ltu", Cmp::Ltu},
                                           {"leu", Cmp::Leu},
                                           {"gtu", Cmp::Gtu},
                                           {"geu", Cmp::Geu},
                                           {"num", Cmp::Num},
                                           {"nan", Cmp::Nan}},
                                          in.cmp))
            continue;
        // Generic words.
        const Type t = parse_type_name(m);
        if (t != Type::None) {
            types.push_back(t);
            continue;
        }
        Space sp;
        if (lookup<Space>(plain,
                          {{"global", Space::Global},
                           {"shared", Space::Shared},
                           {"local", Space::Local},
                           {"param", Space::Param},
                           {"const", Space::Const}},
                          sp)) {
            if (op == Op::Cvta || op == Op::Isspacep || op == Op::Ld || op == Op::Ldu || op == Op::St || op == Op::Atom ||
                op == Op::Red || op == Op::Prefetch) {
                in.space = sp;
                continue;
            }
            bad(": a state space only applies to memory instructions");
        }
        Round r;
        if (lookup<Round>(m,
                          {{"rn", Round::Rn},
                           {"rz", Round::Rz},
                           {"rm", Round::Rm},
                           {"rp", Round::Rp},
                           {"rni", Round::Rni},
                           {"rzi", Round::Rzi},
                           {"rmi", Round::Rmi},
                           {"rpi", Round::Rpi},
                           {"rna", Round::Rna}},
                          r)) {
            if (in.rnd != Round::None) bad(": a rounding mode was already given");
            in.rnd = r;
            continue;
        }
        if (m == "ftz") {
            in.flags |= Flag_Ftz;
            continue;
        }
        if (m == "sat") {
            in.flags |= Flag_Sat;
            continue;
        }
        if (m == "approx") {
            in.flags |= Flag_Approx;
            continue;
        }
        if (m == "full") {
            in.flags |= Flag_Full;
            continue;
        }
        if (m == "cc") {
            in.flags |= Flag_CarryOut;
            continue;
        }
        if (m == "volatile") {
            in.flags |= Flag_Volatile;
            continue;
        }
        if (m == "v2" || m == "v4") {
            if (op != Op::Ld && op != Op::Ldu && op != Op::St) bad(": vectors only apply to ld and st here");
            in.vec = m == "v2" ? 2 : 4;
            continue;
        }
        if (ignored_hint(m)) continue;
        bad("");
    }
    // Types.
    const Op op = in.op;
    if (op == Op::Cvt || op == Op::Slct) {
        if (types.size() != 2)
            fail(at, "'" + base + "' needs two types, such as ." +
                         (op == Op::Cvt ? std::string("f32.s32") : std::string("f32.s32")) + ", found " +
                         std::to_string(types.size()));
        in.type = types[0];
        in.type2 = types[1];
    } else {
        if (types.size() > 1) fail(at, "'" + base + "' takes one type, found " + std::to_string(types.size()));
        if (!types.empty()) in.type = types[0];
    }
    const OpClass cls = op_class(op);
    const bool needs_type = !(op == Op::Bra || op == Op::Call || op == Op::Ret || op == Op::Exit || op == Op::Trap ||
                              op == Op::Bar || op == Op::Barrier || op == Op::Membar || op == Op::Fence || op == Op::Prefetch ||
                              op == Op::Nanosleep || op == Op::Isspacep || op == Op::Griddepcontrol);
    if (op == Op::Griddepcontrol && in.sub == static_cast<uint8_t>(GriddepMode::None))
        fail(at, "'griddepcontrol' needs .wait or .launch_dependents");
    if (needs_type && in.type == Type::None) fail(at, "'" + base + "' needs a type, such as .u32 or .f32");
    (void)cls;
    if (type_bits(in.type) > 64 && op != Op::Ld && op != Op::St) fail(at, "128-bit types are not supported on '" + base + "'");
    if (in.type == Type::B128) fail(at, "128-bit loads and stores are not supported");
    const bool half = in.type == Type::F16 || in.type == Type::F16x2 || in.type == Type::BF16 || in.type == Type::BF16x2;
    if (half && !(op == Op::Cvt || op == Op::Mov || op == Op::Ld || op == Op::St || op == Op::Selp))
        fail(at, "half-precision arithmetic ('" + std::string(mnemonic) + "') is not supported yet");
    if ((op == Op::Cvt) &&
        (in.type2 == Type::F16x2 || in.type2 == Type::BF16x2 || in.type == Type::F16x2 || in.type == Type::BF16x2))
        fail(at, "packed half conversions are not supported yet");
}

Parser::RawOperand Parser::parse_operand() {
    RawOperand r;
    r.tok = tok_;
    if (at_punct('{')) {
        bump();
        r.kind = RawOperand::Vector;
        for (;;) {
            r.names.push_back(expect_ident("a register in the vector"));
            if (at_punct('}')) break;
            expect_punct(',', "between vector elements");
        }
        bump();
        if (r.names.size() > 4) fail(r.tok, "vectors have at most 4 elements");
        return r;
    }
    if (at_punct('[')) {
        bump();
        r.kind = RawOperand::Address;
        if (tok_.kind == TokKind::Ident) {
            r.name = tok_.text;
            r.addr_has_name = true;
            bump();
        } else if (tok_.kind == TokKind::Int) {
            r.offset = static_cast<int64_t>(tok_.bits);
            bump();
        } else {
            fail(tok_, "expected a register, a variable or an address inside '[ ]', found " + describe(tok_));
        }
        if (at_punct('+') || at_punct('-')) {
            bool negative = at_punct('-');
            bump();
            if (at_punct('-')) {
                negative = !negative;
                bump();
            }
            const int64_t off = static_cast<int64_t>(expect_int("an address offset"));
            r.offset += negative ? -off : off;
        }
        expect_punct(']', "to close the address");
        return r;
    }
    if (at_punct('!')) {
        bump();
        r.kind = RawOperand::Neg;
        r.name = expect_ident("a predicate register after '!'");
        return r;
    }
    if (at_punct('(')) {
        bump();
        r.kind = RawOperand::List;
        while (!at_punct(')')) {
            if (!r.names.empty()) expect_punct(',', "between call arguments");
            r.names.push_back(expect_ident("a parameter name"));
        }
        bump();
        return r;
    }
    if (at_punct('-') || tok_.kind == TokKind::Int || tok_.kind == TokKind::F32Bits || tok_.kind == TokKind::F64Bits ||
        tok_.kind == TokKind::Decimal) {
        r.kind = RawOperand::Number;
        if (at_punct('-')) {
            r.negative = true;
            bump();
        }
        if (!(tok_.kind == TokKind::Int || tok_.kind == TokKind::F32Bits || tok_.kind == TokKind::F64Bits ||
              tok_.kind == TokKind::Decimal))
            fail(tok_, "expected a number after '-', found " + describe(tok_));
        r.number = tok_;
        bump();
        return r;
    }
    if (tok_.kind == TokKind::Ident) {
        r.name = tok_.text;
        bump();
        if (at_punct('|')) {
            bump();
            r.kind = RawOperand::Pair;
            r.name2 = expect_ident("a predicate register after '|'");
            return r;
        }
        if (at_punct('+') && ahead().kind == TokKind::Int) {
            bump();
            r.offset = static_cast<int64_t>(tok_.bits);
            bump();
        }
        r.kind = RawOperand::Name;
        return r;
    }
    fail(tok_, "expected an operand, found " + describe(tok_));
}

Type Parser::operand_type(const Instr& in, int i) const {
    const bool wide = in.sub == static_cast<uint8_t>(MulMode::Wide);
    switch (in.op) {
        case Op::Shl:
        case Op::Shr: return i == 2 ? Type::U32 : in.type;
        case Op::Shf: return i == 3 ? Type::U32 : in.type;
        case Op::Bfe: return i >= 2 ? Type::U32 : in.type;
        case Op::Bfi: return i >= 3 ? Type::U32 : in.type;
        case Op::Setp: return i == 0 || i == 3 ? Type::Pred : in.type;
        case Op::Selp: return i == 3 ? Type::Pred : in.type;
        case Op::Slct: return i == 3 ? in.type2 : in.type;
        case Op::Cvt: return i == 1 ? in.type2 : in.type;
        case Op::Mul:
        case Op::Mad: return (wide && (i == 0 || i == 3)) ? wide_type(in.type) : in.type;
        case Op::Popc:
        case Op::Clz:
        case Op::Bfind: return i == 0 ? Type::U32 : in.type;
        case Op::Testp: return i == 0 ? Type::Pred : in.type;
        case Op::Shfl: return i >= 2 ? Type::B32 : in.type;
        case Op::Vote:
            if (i == 2) return Type::B32;
            if (i == 1) return Type::Pred;
            return in.type;
        case Op::Redux: return i == 2 ? Type::B32 : in.type;
        case Op::Isspacep: return i == 0 ? Type::Pred : Type::U64;
        case Op::Bar:
        case Op::Barrier:
        case Op::Nanosleep: return Type::U32;
        default: return in.type;
    }
}

namespace {
uint64_t float_bits(double d, Type t) {
    if (t == Type::F32) {
        const float f = static_cast<float>(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
}  // namespace

Operand Parser::resolve_operand(const Instr& in, const RawOperand& raw, Type expected, bool is_dest) {
    Operand o;
    const std::string what = "'" + std::string(op_mnemonic(in.op)) + "'";
    switch (raw.kind) {
        case RawOperand::Name:
        case RawOperand::Neg: {
            if (raw.name == "_") {
                o.kind = OperandKind::Sink;
                return o;
            }
            const int32_t reg = find_register(raw.name);
            if (reg >= 0) {
                if (raw.offset != 0) fail(raw.tok, "a register cannot take an offset outside '[ ]'");
                o.kind = OperandKind::Reg;
                o.reg = reg;
                o.neg = raw.kind == RawOperand::Neg;
                if (o.neg && expected != Type::Pred) fail(raw.tok, "'!' applies only to predicate operands");
                return o;
            }
            if (raw.kind == RawOperand::Neg) fail(raw.tok, "undeclared predicate register '" + std::string(raw.name) + "'");
            int32_t index;
            bool dynamic;
            if (lookup_sreg(raw.name, index, dynamic)) {
                if (is_dest) fail(raw.tok, "special register '" + std::string(raw.name) + "' cannot be written");
                o.kind = dynamic ? OperandKind::Sreg : OperandKind::Reg;
                o.reg = index;
                return o;
            }
            if (const Symbol* sym = find_symbol(raw.name)) {
                if (is_dest)
                    fail(raw.tok,
                         "destination of " + what + " must be a register, found variable '" + std::string(raw.name) + "'");
                o.kind = OperandKind::SymAddr;
                o.base = sym->base;
                o.imm = sym->value + static_cast<uint64_t>(raw.offset);
                if (sym->dynamic_shared) dynamic_shared_uses_.emplace_back(static_cast<int32_t>(m_.code_.size()), -1);
                return o;
            }
            if (raw.name.size() > 0 && raw.name[0] == '%') fail(raw.tok, "undeclared register '" + std::string(raw.name) + "'");
            fail(raw.tok, "undeclared identifier '" + std::string(raw.name) + "'");
        }
        case RawOperand::Number: {
            if (is_dest) fail(raw.tok, "destination of " + what + " must be a register, found a literal");
            o.kind = OperandKind::Imm;
            const Token& n = raw.number;
            const bool want_float = expected == Type::F32 || expected == Type::F64;
            if (n.kind == TokKind::Int) {
                if (want_float) {
                    const double v = raw.negative ? -static_cast<double>(n.bits) : static_cast<double>(n.bits);
                    o.imm = float_bits(v, expected);
                } else {
                    o.imm = raw.negative ? ~n.bits + 1 : n.bits;
                }
            } else if (n.kind == TokKind::Decimal) {
                if (!want_float)
                    fail(raw.tok, "a decimal float literal cannot be used where " + what + " expects ." +
                                      std::string(type_name(expected)));
                o.imm = float_bits(raw.negative ? -n.decimal : n.decimal, expected);
            } else {
                double v;
                if (n.kind == TokKind::F32Bits) {
                    float f;
                    const uint32_t b = static_cast<uint32_t>(n.bits);
                    std::memcpy(&f, &b, 4);
                    v = f;
                } else {
                    std::memcpy(&v, &n.bits, 8);
                }
                if (want_float) {
                    o.imm = float_bits(raw.negative ? -v : v, expected);
                } else {
                    // Bit pattern into an integer/bit-typed operand (mov.b32 %r, 0f3F800000).
                    o.imm = n.bits;
                    if (raw.negative) o.imm ^= n.kind == TokKind::F32Bits ? 0x80000000u : 0x8000000000000000ull;
                }
            }
            if (expected == Type::Pred) o.imm &= 1;
            return o;
        }
        case RawOperand::Address: {
            Operand a = resolve_address(raw);
            return a;
        }
        case RawOperand::Vector: {
            o.kind = OperandKind::Vec;
            o.nvec = static_cast<uint8_t>(raw.names.size());
            for (size_t k = 0; k < raw.names.size(); ++k) {
                if (raw.names[k] == "_") continue;
                const int32_t reg = find_register(raw.names[k]);
                if (reg < 0) fail(raw.tok, "undeclared register '" + std::string(raw.names[k]) + "' in vector operand");
                o.vregs[k] = reg;
            }
            return o;
        }
        case RawOperand::Pair: fail(raw.tok, "a 'd|p' register pair is only allowed as the destination of setp or shfl");
        case RawOperand::List: fail(raw.tok, "a parenthesised operand list is only allowed in call");
    }
    GPUSIM_ASSERT(false);
}

Operand Parser::resolve_address(const RawOperand& raw) {
    Operand o;
    o.kind = OperandKind::Addr;
    o.imm = static_cast<uint64_t>(raw.offset);
    if (!raw.addr_has_name) return o;
    const int32_t reg = find_register(raw.name);
    if (reg >= 0) {
        o.reg = reg;
        return o;
    }
    if (const Symbol* sym = find_symbol(raw.name)) {
        o.base = sym->base;
        o.imm += sym->value;
        if (sym->dynamic_shared) dynamic_shared_uses_.emplace_back(static_cast<int32_t>(m_.code_.size()), -1);
        return o;
    }
    int32_t index;
    bool dynamic;
    if (lookup_sreg(raw.name, index, dynamic))
        fail(raw.tok, "special register '" + std::string(raw.name) + "' cannot be used as an address");
    fail(raw.tok, "undeclared identifier '" + std::string(raw.name) + "' in address");
}

void Parser::resolve_call(Instr& in, const std::vector<RawOperand>& raw, const Token& at) {
    size_t i = 0;
    const RawOperand* rets = nullptr;
    const RawOperand* args = nullptr;
    if (i < raw.size() && raw[i].kind == RawOperand::List) rets = &raw[i++];
    if (i >= raw.size() || raw[i].kind != RawOperand::Name) fail(at, "call needs a function name");
    const RawOperand& callee_raw = raw[i++];
    if (find_register(callee_raw.name) >= 0) fail(callee_raw.tok, "indirect calls through a register are not supported");
    auto it = m_.function_index_.find(std::string(callee_raw.name));
    if (it == m_.function_index_.end())
        fail(callee_raw.tok, "call to undeclared function '" + std::string(callee_raw.name) + "'");
    const Function& callee = m_.functions_[it->second];
    if (callee.is_entry) fail(callee_raw.tok, "call to kernel '" + callee.name + "': only .func functions can be called");
    if (i < raw.size()) {
        if (raw[i].kind != RawOperand::List) fail(raw[i].tok, "expected '(' with the call's arguments");
        args = &raw[i++];
    }
    if (i < raw.size()) fail(raw[i].tok, "indirect calls with a prototype are not supported");
    CallArgs call;
    call.callee = it->second;
    call.caller = fn_;
    auto frame_param = [&](std::string_view name, const Token& tok) -> const Symbol& {
        const Symbol* s = find_symbol(name);
        if (!s) fail(tok, "undeclared call parameter '" + std::string(name) + "'");
        if (s->base != AddrBase::FrameParam)
            fail(tok, "call argument '" + std::string(name) + "' must be a .param variable declared in the calling function");
        return *s;
    };
    const size_t nrets = rets ? rets->names.size() : 0;
    if (nrets != callee.returns.size())
        fail(at, "call to '" + callee.name + "' names " + std::to_string(nrets) + " return values, the function has " +
                     std::to_string(callee.returns.size()));
    if (nrets > 1) fail(at, "calls with more than one return value are not supported");
    if (nrets == 1) {
        const Symbol& s = frame_param(rets->names[0], rets->tok);
        if (s.size < callee.returns[0].size)
            fail(rets->tok, "return variable '" + std::string(rets->names[0]) + "' is smaller than the return value of '" +
                                callee.name + "'");
        call.ret = {static_cast<int32_t>(s.value), static_cast<int32_t>(callee.returns[0].offset),
                    static_cast<int32_t>(callee.returns[0].size)};
    }
    const size_t nargs = args ? args->names.size() : 0;
    if (nargs != callee.params.size())
        fail(at, "call to '" + callee.name + "' passes " + std::to_string(nargs) + " arguments, the function takes " +
                     std::to_string(callee.params.size()));
    call.first_arg = static_cast<int32_t>(m_.call_arg_slots_.size());
    call.nargs = static_cast<int32_t>(nargs);
    for (size_t k = 0; k < nargs; ++k) {
        const Symbol& s = frame_param(args->names[k], args->tok);
        if (s.size < callee.params[k].size)
            fail(args->tok, "argument '" + std::string(args->names[k]) + "' is smaller than parameter " + std::to_string(k) +
                                " of '" + callee.name + "'");
        m_.call_arg_slots_.push_back({static_cast<int32_t>(s.value), static_cast<int32_t>(callee.params[k].offset),
                                      static_cast<int32_t>(callee.params[k].size)});
    }
    in.call = static_cast<int32_t>(m_.calls_.size());
    in.target = call.callee;
    m_.calls_.push_back(call);
}

void Parser::parse_instruction(int32_t guard, bool guard_neg, const Token& first) {
    const Token op_tok = tok_;
    const std::string_view mnemonic = tok_.text;
    bump();
    const std::string_view base = mnemonic.substr(0, mnemonic.find('.'));
    auto found = op_table().find(base);
    if (found == op_table().end()) fail(op_tok, "unknown instruction '" + std::string(base) + "'");
    Instr in;
    in.op = found->second;
    in.guard = guard;
    in.guard_neg = guard_neg;
    decode_modifiers(in, mnemonic, op_tok);

    std::vector<RawOperand> raw;
    if (!at_punct(';')) {
        raw.push_back(parse_operand());
        while (at_punct(',')) {
            bump();
            raw.push_back(parse_operand());
        }
    }
    if (!at_punct(';')) fail(tok_, "expected ';' after the operands of '" + std::string(mnemonic) + "', found " + describe(tok_));
    const size_t end_offset = static_cast<size_t>(tok_.text.data() - text_.data()) + 1;
    bump();

    const OpInfo& info = kOps[static_cast<int>(in.op)];
    if (in.op == Op::Call) {
        resolve_call(in, raw, op_tok);
        add_instr(in, first, end_offset);
        return;
    }
    const int nraw = static_cast<int>(raw.size());
    if (nraw < info.min_ops || nraw > info.max_ops) {
        const std::string expect = info.min_ops == info.max_ops
                                       ? std::to_string(info.min_ops)
                                       : std::to_string(info.min_ops) + " to " + std::to_string(info.max_ops);
        fail(op_tok, "'" + std::string(base) + "' takes " + expect + " operand" + (info.max_ops == 1 ? "" : "s") + ", found " +
                         std::to_string(nraw));
    }
    in.nops = static_cast<uint8_t>(nraw);
    // Which operands are destinations (written).
    const bool first_is_dest = !(in.op == Op::St || in.op == Op::Red || in.op == Op::Bra || in.op == Op::Bar ||
                                 in.op == Op::Barrier || in.op == Op::Nanosleep || in.op == Op::Prefetch);
    for (int k = 0; k < nraw; ++k) {
        const RawOperand& r = raw[k];
        const bool is_dest = k == 0 && first_is_dest;
        if (in.op == Op::Bra) {
            if (r.kind != RawOperand::Name) fail(r.tok, "bra needs a label");
            in.ops[0].kind = OperandKind::Label;
            label_uses_.push_back({static_cast<int32_t>(m_.code_.size()), std::string(r.name), r.tok});
            continue;
        }
        if (r.kind == RawOperand::Pair) {
            if (!(k == 0 && (in.op == Op::Setp || in.op == Op::Shfl)))
                fail(r.tok, "a 'd|p' register pair is only allowed as the destination of setp or shfl");
            RawOperand first_reg = r;
            first_reg.kind = RawOperand::Name;
            in.ops[0] = resolve_operand(in, first_reg, operand_type(in, 0), true);
            const int32_t p = find_register(r.name2);
            if (p < 0) fail(r.tok, "undeclared predicate register '" + std::string(r.name2) + "'");
            in.pdest = p;
            continue;
        }
        in.ops[k] = resolve_operand(in, r, operand_type(in, k), is_dest);
        if (!dynamic_shared_uses_.empty() && dynamic_shared_uses_.back().first == static_cast<int32_t>(m_.code_.size()) &&
            dynamic_shared_uses_.back().second < 0)
            dynamic_shared_uses_.back().second = k;
        if (is_dest && in.ops[k].kind != OperandKind::Reg && in.ops[k].kind != OperandKind::Vec &&
            in.ops[k].kind != OperandKind::Sink)
            fail(r.tok, "destination of '" + std::string(base) + "' must be a register");
    }
    // Shape checks the executor relies on.
    auto need = [&](int k, OperandKind kind, const std::string& what) {
        if (in.ops[k].kind != kind)
            fail(raw[k].tok, "operand " + std::to_string(k + 1) + " of '" + std::string(base) + "' must be " + what);
    };
    switch (in.op) {
        case Op::Ld:
        case Op::Ldu:
            need(1, OperandKind::Addr, "an address in '[ ]'");
            if (in.vec > 1) {
                need(0, OperandKind::Vec, "a vector {..} for ." + std::string(in.vec == 2 ? "v2" : "v4"));
                if (in.ops[0].nvec != in.vec)
                    fail(raw[0].tok, "vector has " + std::to_string(in.ops[0].nvec) + " elements, the instruction moves " +
                                         std::to_string(in.vec));
            } else {
                need(0, OperandKind::Reg, "a register");
            }
            break;
        case Op::St:
            need(0, OperandKind::Addr, "an address in '[ ]'");
            if (in.vec > 1) {
                need(1, OperandKind::Vec, "a vector {..}");
                if (in.ops[1].nvec != in.vec)
                    fail(raw[1].tok, "vector has " + std::to_string(in.ops[1].nvec) + " elements, the instruction moves " +
                                         std::to_string(in.vec));
            } else if (in.ops[1].kind == OperandKind::Vec || in.ops[1].kind == OperandKind::Addr) {
                fail(raw[1].tok, "operand 2 of 'st' must be a register or a literal");
            }
            break;
        case Op::Atom:
            need(1, OperandKind::Addr, "an address in '[ ]'");
            if ((in.sub == static_cast<uint8_t>(AtomOp::Cas)) != (nraw == 4))
                fail(op_tok,
                     in.sub == static_cast<uint8_t>(AtomOp::Cas) ? "atom.cas takes 4 operands" : "'atom' takes 3 operands");
            break;
        case Op::Red: need(0, OperandKind::Addr, "an address in '[ ]'"); break;
        case Op::Prefetch: need(0, OperandKind::Addr, "an address in '[ ]'"); break;
        case Op::Cvta:
            if (in.space == Space::Generic) fail(op_tok, "cvta needs a state space such as .global or .shared");
            break;
        default:
            for (int k = 0; k < nraw; ++k) {
                const OperandKind kind = in.ops[k].kind;
                const bool mov_vec = in.op == Op::Mov && kind == OperandKind::Vec;
                if (kind == OperandKind::Addr) fail(raw[k].tok, "'" + std::string(base) + "' does not take a memory operand");
                if (kind == OperandKind::Vec && !mov_vec)
                    fail(raw[k].tok, "'" + std::string(base) + "' does not take a vector operand");
                if (kind == OperandKind::Sink && !(in.op == Op::Shfl || in.op == Op::Mov))
                    fail(raw[k].tok, "'_' is not allowed here");
            }
            if (in.op == Op::Setp && nraw == 4 && in.sub == 0) fail(op_tok, "setp with a fourth operand needs .and, .or or .xor");
            if (in.op == Op::Setp && nraw == 3 && in.sub != 0)
                fail(op_tok, "setp with .and/.or/.xor needs a fourth (predicate) operand");
            if (in.op == Op::Setp && in.cmp == Cmp::None) fail(op_tok, "setp needs a comparison such as .lt or .eq");
            break;
    }
    if (in.op == Op::Mov && in.ops[1].kind == OperandKind::Vec && in.ops[0].kind == OperandKind::Vec)
        fail(op_tok, "mov cannot move a vector to a vector");
    add_instr(in, first, end_offset);
}

}  // namespace weft::gpusim
