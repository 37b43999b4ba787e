// gpusim/exec/exec_move.cpp — mov (registers, literals, special registers, symbol addresses, and
// packing/unpacking vectors such as mov.b64 %rd, {%r0, %r1}) and cvt (every integer/float
// conversion: widening, narrowing, .sat, rounding to integral, f16/bf16).
//
// cvt semantics (PTX ISA, "cvt"): integer -> integer truncates or extends by the source type,
// .sat clamps to the destination range; float -> integer rounds as its .rni/.rzi/.rmi/.rpi
// says and saturates (NaN becomes 0); integer -> float and float -> narrower float round as
// .rn/.rz/.rm/.rp says; float -> same float with .rXi rounds to an integral value.
#include <algorithm>
#include <cmath>
#include <limits>

#include "gpusim/exec/exec.h"
#include "gpusim/exec/float_ops.h"

namespace weft::gpusim {
namespace {

// The source value as a long double-free union: either an exact integer or a double.
struct Value {
    bool is_float;
    double f;    // when is_float (f16/f32 widened exactly)
    int64_t s;   // when integer and signed
    uint64_t u;  // when integer and unsigned
    bool is_signed;
};

Value read_source(uint64_t raw, Type t, bool ftz_on) {
    Value v{};
    switch (t) {
        case Type::F16:
            v.is_float = true;
            v.f = f32_from_f16(static_cast<uint16_t>(raw));
            return v;
        case Type::BF16:
            v.is_float = true;
            v.f = f32_from_bf16(static_cast<uint16_t>(raw));
            return v;
        case Type::F32: {
            float f = f32_of(raw);
            if (ftz_on) f = ftz(f);
            v.is_float = true;
            v.f = f;
            return v;
        }
        case Type::F64:
            v.is_float = true;
            v.f = f64_of(raw);
            return v;
        default: break;
    }
    const int bits = type_bits(t);
    v.is_signed = type_is_signed(t);
    v.s = sign_extend(raw, bits);
    v.u = low_bits(raw, bits);
    return v;
}

uint64_t clamp_to_int(double d, Type dst) {
    const int bits = type_bits(dst);
    if (d != d) return 0;
    if (type_is_signed(dst)) {
        const double lo = -std::ldexp(1.0, bits - 1), hi = std::ldexp(1.0, bits - 1);
        if (d <= lo) return low_bits(static_cast<uint64_t>(bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))), bits);
        if (d >= hi) return bits == 64 ? static_cast<uint64_t>(INT64_MAX) : (uint64_t{1} << (bits - 1)) - 1;
        return low_bits(static_cast<uint64_t>(static_cast<int64_t>(d)), bits);
    }
    if (d <= 0) return 0;
    if (d >= std::ldexp(1.0, bits)) return bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    return static_cast<uint64_t>(d);
}

uint64_t convert(uint64_t raw, const Instr& in) {
    const Type dst = in.type, src = in.type2;
    const bool ftz_on = (in.flags & Flag_Ftz) != 0;
    const bool sat_on = (in.flags & Flag_Sat) != 0;
    const Value v = read_source(raw, src, ftz_on);
    if (type_is_float(dst)) {
        const Round r = in.rnd == Round::None ? Round::Rn : in.rnd;
        const bool integral = r == Round::Rni || r == Round::Rzi || r == Round::Rmi || r == Round::Rpi;
        if (dst == Type::F64) {
            double d;
            if (v.is_float)
                d = integral ? round_integral(v.f, r) : v.f;
            else
                d = v.is_signed ? f64_from_i64(v.s, r) : f64_from_u64(v.u, r);
            if (sat_on) d = sat(d);
            return canon(d);
        }
        float f;
        if (v.is_float) {
            if (src == Type::F64)
                f = integral ? static_cast<float>(round_integral(v.f, r)) : f32_from_f64(v.f, r);
            else
                f = integral ? round_integral(static_cast<float>(v.f), r) : static_cast<float>(v.f);
        } else {
            f = v.is_signed ? f32_from_i64(v.s, r) : f32_from_u64(v.u, r);
        }
        if (ftz_on && (dst == Type::F32)) f = ftz(f);
        if (sat_on) f = sat(f);
        if (dst == Type::F16) return f16_from_f32(f, r);
        if (dst == Type::BF16) return bf16_from_f32(f, r);
        return canon(f);
    }
    // Integer destination.
    const int bits = type_bits(dst);
    if (v.is_float) {
        const Round r = in.rnd == Round::None ? Round::Rzi : in.rnd;
        return clamp_to_int(round_integral(v.f, r == Round::Rn   ? Round::Rni
                                                : r == Round::Rz ? Round::Rzi
                                                : r == Round::Rm ? Round::Rmi
                                                : r == Round::Rp ? Round::Rpi
                                                                 : r),
                            dst);
    }
    if (!sat_on) return low_bits(v.is_signed ? static_cast<uint64_t>(v.s) : v.u, bits);
    // .sat between integer types: clamp the exact source value into the destination range.
    if (type_is_signed(dst)) {
        const int64_t lo = bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1));
        const int64_t hi = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
        if (v.is_signed) return low_bits(static_cast<uint64_t>(std::clamp(v.s, lo, hi)), bits);
        return v.u > static_cast<uint64_t>(hi) ? static_cast<uint64_t>(hi) : v.u;
    }
    const uint64_t hi = bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
    if (v.is_signed && v.s < 0) return 0;
    const uint64_t u = v.is_signed ? static_cast<uint64_t>(v.s) : v.u;
    return u > hi ? hi : u;
}

}  // namespace

void exec_move(BlockContext& c, Warp& w, const Instr& in, uint32_t mask) {
    if (in.op == Op::Cvt) {
        for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, convert(rd(c, w, in.ops[1], l), in)); });
        return;
    }
    GPUSIM_ASSERT(in.op == Op::Mov);
    const Operand& d = in.ops[0];
    const Operand& s = in.ops[1];
    const int bits = in.type == Type::Pred ? 1 : type_bits(in.type);
    if (s.kind == OperandKind::Vec) {  // pack: element k goes to bits [k*w, (k+1)*w)
        const int ew = bits / s.nvec;
        for_lanes(mask, [&](int l) {
            uint64_t v = 0;
            for (int k = 0; k < s.nvec; ++k)
                if (s.vregs[k] >= 0) v |= low_bits(reg_at(w, s.vregs[k], l), ew) << (k * ew);
            wr(w, d, l, v);
        });
        return;
    }
    if (d.kind == OperandKind::Vec) {  // unpack
        const int ew = bits / d.nvec;
        for_lanes(mask, [&](int l) {
            const uint64_t v = rd(c, w, s, l);
            for (int k = 0; k < d.nvec; ++k)
                if (d.vregs[k] >= 0) reg_at(w, d.vregs[k], l) = low_bits(v >> (k * ew), ew);
        });
        return;
    }
    for_lanes(mask, [&](int l) { wr(w, d, l, low_bits(rd(c, w, s, l), bits)); });
}

}  // namespace weft::gpusim
