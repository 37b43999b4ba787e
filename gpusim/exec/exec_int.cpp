// gpusim/exec/exec_int.cpp — integer and bit instructions: add/sub/mul/mad (lo/hi/wide, carry),
// mul24/mad24, sad, div/rem, abs/neg/min/max, logic, shifts, funnel shift, bfe/bfi/bfind,
// prmt, popc/clz/brev.
//
// Values are computed in 64 bits after sign- or zero-extending the operand's low bits, then
// truncated to the type's width when written. Cases PTX leaves "unspecified" get the values
// sm_70+ hardware produces and never a host trap: x / 0 is all ones (unsigned) or -1 (signed),
// x % 0 is x, INT_MIN / -1 is INT_MIN. Shift amounts are unsigned and clamp at the width.
#include <algorithm>
#include <bit>

#include "gpusim/exec/exec.h"

namespace weft::gpusim {
namespace {

struct IntType {
    int bits;
    bool is_signed;
    uint64_t ext(uint64_t v) const { return is_signed ? static_cast<uint64_t>(sign_extend(v, bits)) : low_bits(v, bits); }
    uint64_t trunc(uint64_t v) const { return low_bits(v, bits); }
    int64_t smin() const { return bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1)); }
    int64_t smax() const { return bits >= 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1; }
};

template <typename F>
inline void unary(BlockContext& c, Warp& w, const Instr& in, uint32_t mask, F f) {
    for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, f(rd(c, w, in.ops[1], l))); });
}
template <typename F>
inline void binary(BlockContext& c, Warp& w, const Instr& in, uint32_t mask, F f) {
    for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, f(rd(c, w, in.ops[1], l), rd(c, w, in.ops[2], l))); });
}
template <typename F>
inline void ternary(BlockContext& c, Warp& w, const Instr& in, uint32_t mask, F f) {
    for_lanes(mask,
              [&](int l) { wr(w, in.ops[0], l, f(rd(c, w, in.ops[1], l), rd(c, w, in.ops[2], l), rd(c, w, in.ops[3], l))); });
}

// High half of the 2*bits-bit product of two bits-wide values.
uint64_t mul_hi(uint64_t a, uint64_t b, IntType t) {
    if (t.bits == 64) {
        if (t.is_signed)
            return static_cast<uint64_t>((static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b)) >> 64);
        return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
    }
    const uint64_t p = t.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(a) * static_cast<int64_t>(b)) : a * b;
    return t.trunc(t.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(p) >> t.bits) : p >> t.bits);
}

uint64_t saturate_s32(int64_t v) { return static_cast<uint32_t>(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }

uint64_t bfe(uint64_t a, uint32_t pos, uint32_t len, IntType t) {
    const int msb = t.bits - 1;
    pos &= 0xff;
    len &= 0xff;
    uint64_t sbit = 0;
    if (t.is_signed && len > 0) sbit = (a >> std::min<uint32_t>(pos + len - 1, msb)) & 1;
    uint64_t d = 0;
    for (int i = 0; i <= msb; ++i) {
        const uint64_t bit =
            (static_cast<uint32_t>(i) < len && pos + i <= static_cast<uint32_t>(msb)) ? (a >> (pos + i)) & 1 : sbit;
        d |= bit << i;
    }
    return d;
}

uint64_t bfi(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int bits) {
    pos &= 0xff;
    len &= 0xff;
    uint64_t d = b;
    for (uint32_t i = 0; i < len && pos + i < static_cast<uint32_t>(bits); ++i) {
        const uint64_t bit = uint64_t{1} << (pos + i);
        d = ((a >> i) & 1) ? (d | bit) : (d & ~bit);
    }
    return low_bits(d, bits);
}

uint64_t prmt(uint32_t a, uint32_t b, uint32_t c, uint8_t mode) {
    const uint64_t src = (static_cast<uint64_t>(b) << 32) | a;
    auto byte = [&](uint32_t i) { return static_cast<uint32_t>((src >> (8 * (i & 7))) & 0xff); };
    uint32_t d = 0;
    const uint32_t n = c & 3;
    for (uint32_t i = 0; i < 4; ++i) {
        uint32_t v;
        switch (mode) {
            case 0: {  // default: nibble i selects a byte; bit 3 replicates its sign
                const uint32_t sel = (c >> (4 * i)) & 0xf;
                v = byte(sel & 7);
                if (sel & 8) v = (v & 0x80) ? 0xff : 0;
                break;
            }
            case 1: v = byte(n + i); break;                      // f4e
            case 2: v = byte(n - i); break;                      // b4e
            case 3: v = byte(n); break;                          // rc8
            case 4: v = byte(std::max(n, i)); break;             // ecl
            case 5: v = byte(std::min(n, i)); break;             // ecr
            default: v = byte(((c & 1) << 1) | (i & 1)); break;  // rc16
        }
        d |= v << (8 * i);
    }
    return d;
}

}  // namespace

void exec_int(BlockContext& c, Warp& w, const Instr& in, uint32_t mask) {
    const IntType t{type_bits(in.type), type_is_signed(in.type)};
    const bool cc = (in.flags & Flag_CarryOut) != 0;
    const MulMode mm = static_cast<MulMode>(in.sub);
    switch (in.op) {
        case Op::Add:
            if (in.flags & Flag_Sat)
                return binary(c, w, in, mask,
                              [&](uint64_t a, uint64_t b) { return saturate_s32(sign_extend(a, 32) + sign_extend(b, 32)); });
            if (cc) {
                for_lanes(mask, [&](int l) {
                    const uint64_t a = t.trunc(rd(c, w, in.ops[1], l)), b = t.trunc(rd(c, w, in.ops[2], l));
                    const uint64_t r = t.trunc(a + b);
                    w.carry = (w.carry & ~(1u << l)) | (uint32_t{r < a} << l);
                    wr(w, in.ops[0], l, r);
                });
                return;
            }
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a + b); });
        case Op::Sub:
            if (in.flags & Flag_Sat)
                return binary(c, w, in, mask,
                              [&](uint64_t a, uint64_t b) { return saturate_s32(sign_extend(a, 32) - sign_extend(b, 32)); });
            if (cc) {
                for_lanes(mask, [&](int l) {
                    const uint64_t a = t.trunc(rd(c, w, in.ops[1], l)), b = t.trunc(rd(c, w, in.ops[2], l));
                    w.carry = (w.carry & ~(1u << l)) | (uint32_t{a < b} << l);
                    wr(w, in.ops[0], l, t.trunc(a - b));
                });
                return;
            }
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a - b); });
        case Op::Addc:
        case Op::Subc:
            for_lanes(mask, [&](int l) {
                const unsigned __int128 a = t.trunc(rd(c, w, in.ops[1], l)), b = t.trunc(rd(c, w, in.ops[2], l));
                const unsigned __int128 cin = (w.carry >> l) & 1;
                const unsigned __int128 r = in.op == Op::Addc ? a + b + cin : a - b - cin;
                const bool cout = in.op == Op::Addc ? ((r >> t.bits) & 1) != 0 : (a < b + cin);
                if (cc) w.carry = (w.carry & ~(1u << l)) | (uint32_t{cout} << l);
                wr(w, in.ops[0], l, t.trunc(static_cast<uint64_t>(r)));
            });
            return;
        case Op::Mul:
            if (mm == MulMode::Wide)
                return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return low_bits(t.ext(a) * t.ext(b), 2 * t.bits); });
            if (mm == MulMode::Hi)
                return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return mul_hi(t.ext(a), t.ext(b), t); });
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a * b); });
        case Op::Mad:
        case Op::Madc: {
            const bool carry_in = in.op == Op::Madc;
            const bool sat = (in.flags & Flag_Sat) != 0;  // mad.hi.sat.s32
            const int rbits = mm == MulMode::Wide ? 2 * t.bits : t.bits;
            for_lanes(mask, [&](int l) {
                const uint64_t a = t.ext(rd(c, w, in.ops[1], l)), b = t.ext(rd(c, w, in.ops[2], l));
                const uint64_t cv = low_bits(rd(c, w, in.ops[3], l), rbits);
                const uint64_t p = mm == MulMode::Wide ? low_bits(a * b, rbits)
                                   : mm == MulMode::Hi ? mul_hi(a, b, t)
                                                       : t.trunc(a * b);
                if (sat && mm == MulMode::Hi) {
                    wr(w, in.ops[0], l, saturate_s32(sign_extend(p, 32) + sign_extend(cv, 32)));
                    return;
                }
                const unsigned __int128 r = static_cast<unsigned __int128>(p) + cv + (carry_in ? (w.carry >> l) & 1 : 0);
                if (cc) w.carry = (w.carry & ~(1u << l)) | (static_cast<uint32_t>((r >> rbits) & 1) << l);
                wr(w, in.ops[0], l, low_bits(static_cast<uint64_t>(r), rbits));
            });
            return;
        }
        case Op::Mul24:
        case Op::Mad24:
            for_lanes(mask, [&](int l) {
                const int64_t a = t.is_signed ? sign_extend(rd(c, w, in.ops[1], l), 24)
                                              : static_cast<int64_t>(low_bits(rd(c, w, in.ops[1], l), 24));
                const int64_t b = t.is_signed ? sign_extend(rd(c, w, in.ops[2], l), 24)
                                              : static_cast<int64_t>(low_bits(rd(c, w, in.ops[2], l), 24));
                const uint64_t p = static_cast<uint64_t>(a * b);
                uint64_t r = mm == MulMode::Hi ? (p >> 16) : p;
                if (in.op == Op::Mad24) r += rd(c, w, in.ops[3], l);
                wr(w, in.ops[0], l, low_bits(r, 32));
            });
            return;
        case Op::Sad:
            return ternary(c, w, in, mask, [&](uint64_t a, uint64_t b, uint64_t cc3) {
                a = t.ext(a);
                b = t.ext(b);
                const bool less = t.is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
                return t.trunc((less ? b - a : a - b) + cc3);
            });
        case Op::Div:
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) -> uint64_t {
                a = t.ext(a);
                b = t.ext(b);
                if (t.trunc(b) == 0) return t.trunc(~uint64_t{0});
                if (!t.is_signed) return t.trunc(a / b);
                const int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
                if (sb == -1) return t.trunc(0 - a);  // INT_MIN / -1 wraps to INT_MIN
                return t.trunc(static_cast<uint64_t>(sa / sb));
            });
        case Op::Rem:
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) -> uint64_t {
                a = t.ext(a);
                b = t.ext(b);
                if (t.trunc(b) == 0) return t.trunc(a);
                if (!t.is_signed) return t.trunc(a % b);
                const int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
                if (sb == -1) return 0;
                return t.trunc(static_cast<uint64_t>(sa % sb));
            });
        case Op::Abs:
            return unary(c, w, in, mask, [&](uint64_t a) {
                const int64_t s = static_cast<int64_t>(t.ext(a));
                return t.trunc(s < 0 ? 0 - static_cast<uint64_t>(s) : static_cast<uint64_t>(s));
            });
        case Op::Neg: return unary(c, w, in, mask, [&](uint64_t a) { return t.trunc(0 - a); });
        case Op::Min:
        case Op::Max: {
            const bool is_min = in.op == Op::Min;
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) {
                a = t.ext(a);
                b = t.ext(b);
                const bool less = t.is_signed ? static_cast<int64_t>(a) < static_cast<int64_t>(b) : a < b;
                return t.trunc(is_min == less ? a : b);
            });
        }
        case Op::And: return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a & b); });
        case Op::Or: return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a | b); });
        case Op::Xor: return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) { return t.trunc(a ^ b); });
        case Op::Not: return unary(c, w, in, mask, [&](uint64_t a) { return t.trunc(~a); });
        case Op::Cnot: return unary(c, w, in, mask, [&](uint64_t a) { return uint64_t{t.trunc(a) == 0}; });
        case Op::Shl:
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) {
                const uint32_t n = static_cast<uint32_t>(b);
                return n >= static_cast<uint32_t>(t.bits) ? 0 : t.trunc(a << n);
            });
        case Op::Shr:
            return binary(c, w, in, mask, [&](uint64_t a, uint64_t b) {
                uint32_t n = static_cast<uint32_t>(b);
                if (t.is_signed) {
                    if (n >= static_cast<uint32_t>(t.bits)) n = t.bits - 1;
                    return t.trunc(static_cast<uint64_t>(static_cast<int64_t>(t.ext(a)) >> n));
                }
                return n >= static_cast<uint32_t>(t.bits) ? 0 : t.trunc(a) >> n;
            });
        case Op::Shf: {
            const bool left = (in.flags & Flag_Left) != 0, wrap = (in.flags & Flag_Wrap) != 0;
            return ternary(c, w, in, mask, [&](uint64_t a, uint64_t b, uint64_t s) {
                const uint32_t sv = static_cast<uint32_t>(s);
                const uint32_t n = wrap ? (sv & 31) : std::min<uint32_t>(sv, 32);
                const uint64_t v = (low_bits(b, 32) << 32) | low_bits(a, 32);
                return left ? low_bits((v << n) >> 32, 32) : low_bits(v >> n, 32);
            });
        }
        case Op::Bfe:
            return ternary(c, w, in, mask, [&](uint64_t a, uint64_t b, uint64_t len) {
                return t.trunc(bfe(a, static_cast<uint32_t>(b), static_cast<uint32_t>(len), t));
            });
        case Op::Bfi:
            for_lanes(mask, [&](int l) {
                wr(w, in.ops[0], l,
                   bfi(rd(c, w, in.ops[1], l), rd(c, w, in.ops[2], l), static_cast<uint32_t>(rd(c, w, in.ops[3], l)),
                       static_cast<uint32_t>(rd(c, w, in.ops[4], l)), t.bits));
            });
            return;
        case Op::Bfind:
            return unary(c, w, in, mask, [&](uint64_t a) -> uint64_t {
                uint64_t v = t.trunc(a);
                if (t.is_signed && ((v >> (t.bits - 1)) & 1)) v = t.trunc(~v);
                if (v == 0) return 0xffffffffu;
                const int msb = 63 - std::countl_zero(v);
                return (in.flags & Flag_ShiftAmt) ? static_cast<uint64_t>(t.bits - 1 - msb) : static_cast<uint64_t>(msb);
            });
        case Op::Prmt:
            return ternary(c, w, in, mask, [&](uint64_t a, uint64_t b, uint64_t s) {
                return prmt(static_cast<uint32_t>(a), static_cast<uint32_t>(b), static_cast<uint32_t>(s), in.sub);
            });
        case Op::Popc: return unary(c, w, in, mask, [&](uint64_t a) { return static_cast<uint64_t>(std::popcount(t.trunc(a))); });
        case Op::Clz:
            return unary(c, w, in, mask,
                         [&](uint64_t a) { return static_cast<uint64_t>(std::countl_zero(t.trunc(a)) - (64 - t.bits)); });
        case Op::Brev:
            return unary(c, w, in, mask, [&](uint64_t a) {
                uint64_t r = 0;
                for (int i = 0; i < t.bits; ++i) r |= ((a >> i) & 1) << (t.bits - 1 - i);
                return r;
            });
        default: GPUSIM_ASSERT(false);
    }
}

}  // namespace weft::gpusim
