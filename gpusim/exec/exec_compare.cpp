// gpusim/exec/exec_compare.cpp — setp (all integer and float comparisons, ordered and unordered,
// with .and/.or/.xor combination and the p|q pair), selp, slct and testp.
#include <cmath>

#include "gpusim/exec/exec.h"
#include "gpusim/exec/float_ops.h"

namespace weft::gpusim {
namespace {

bool compare_int(Cmp cmp, uint64_t a, uint64_t b, bool is_signed) {
    const int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
    switch (cmp) {
        case Cmp::Eq: return a == b;
        case Cmp::Ne: return a != b;
        case Cmp::Lt: return is_signed ? sa < sb : a < b;
        case Cmp::Le: return is_signed ? sa <= sb : a <= b;
        case Cmp::Gt: return is_signed ? sa > sb : a > b;
        case Cmp::Ge: return is_signed ? sa >= sb : a >= b;
        case Cmp::Lo: return a < b;
        case Cmp::Ls: return a <= b;
        case Cmp::Hi: return a > b;
        case Cmp::Hs: return a >= b;
        default: return false;  // unordered forms are float-only; the parser lets them through
    }
}

template <typename T>
bool compare_float(Cmp cmp, T a, T b) {
    const bool unordered = a != a || b != b;
    switch (cmp) {
        case Cmp::Eq: return !unordered && a == b;
        case Cmp::Ne: return !unordered && a != b;
        case Cmp::Lt: return !unordered && a < b;
        case Cmp::Le: return !unordered && a <= b;
        case Cmp::Gt: return !unordered && a > b;
        case Cmp::Ge: return !unordered && a >= b;
        case Cmp::Equ: return unordered || a == b;
        case Cmp::Neu: return unordered || a != b;
        case Cmp::Ltu: return unordered || a < b;
        case Cmp::Leu: return unordered || a <= b;
        case Cmp::Gtu: return unordered || a > b;
        case Cmp::Geu: return unordered || a >= b;
        case Cmp::Num: return !unordered;
        case Cmp::Nan: return unordered;
        default: return false;
    }
}

bool combine(BoolOp op, bool x, bool c) {
    switch (op) {
        case BoolOp::And: return x && c;
        case BoolOp::Or: return x || c;
        case BoolOp::Xor: return x != c;
        default: return x;
    }
}

template <typename T>
bool testp(TestpMode mode, T v) {
    switch (mode) {
        case TestpMode::Finite: return std::isfinite(v);
        case TestpMode::Infinite: return std::isinf(v);
        case TestpMode::Number: return v == v;
        case TestpMode::NotANumber: return v != v;
        case TestpMode::Normal: return std::isnormal(v);
        case TestpMode::Subnormal: return std::fpclassify(v) == FP_SUBNORMAL;
    }
    return false;
}

}  // namespace

void exec_compare(BlockContext& c, Warp& w, const Instr& in, uint32_t mask) {
    switch (in.op) {
        case Op::Setp: {
            const BoolOp bop = static_cast<BoolOp>(in.sub);
            const bool ftz_on = (in.flags & Flag_Ftz) != 0;
            const int bits = type_bits(in.type);
            const bool is_signed = type_is_signed(in.type);
            for_lanes(mask, [&](int l) {
                const uint64_t a = rd(c, w, in.ops[1], l), b = rd(c, w, in.ops[2], l);
                bool x;
                if (in.type == Type::F32) {
                    float fa = f32_of(a), fb = f32_of(b);
                    if (ftz_on) {
                        fa = ftz(fa);
                        fb = ftz(fb);
                    }
                    x = compare_float(in.cmp, fa, fb);
                } else if (in.type == Type::F64) {
                    x = compare_float(in.cmp, f64_of(a), f64_of(b));
                } else if (is_signed) {
                    x = compare_int(in.cmp, static_cast<uint64_t>(sign_extend(a, bits)),
                                    static_cast<uint64_t>(sign_extend(b, bits)), true);
                } else {
                    x = compare_int(in.cmp, low_bits(a, bits), low_bits(b, bits), false);
                }
                const bool cv = bop == BoolOp::None ? true : rd_pred(w, in.ops[3], l);
                wr(w, in.ops[0], l, combine(bop, x, cv));
                if (in.pdest >= 0) reg_at(w, in.pdest, l) = combine(bop, !x, cv);
            });
            return;
        }
        case Op::Selp:
            for_lanes(mask, [&](int l) {
                wr(w, in.ops[0], l, rd_pred(w, in.ops[3], l) ? rd(c, w, in.ops[1], l) : rd(c, w, in.ops[2], l));
            });
            return;
        case Op::Slct:
            for_lanes(mask, [&](int l) {
                const uint64_t cv = rd(c, w, in.ops[3], l);
                bool take_a;
                if (in.type2 == Type::F32) {
                    float f = f32_of(cv);
                    if (in.flags & Flag_Ftz) f = ftz(f);
                    take_a = f >= 0.0f;
                } else {
                    take_a = sign_extend(cv, 32) >= 0;
                }
                wr(w, in.ops[0], l, take_a ? rd(c, w, in.ops[1], l) : rd(c, w, in.ops[2], l));
            });
            return;
        case Op::Testp:
            for_lanes(mask, [&](int l) {
                const uint64_t v = rd(c, w, in.ops[1], l);
                const TestpMode mode = static_cast<TestpMode>(in.sub);
                wr(w, in.ops[0], l, in.type == Type::F64 ? testp(mode, f64_of(v)) : testp(mode, f32_of(v)));
            });
            return;
        default: GPUSIM_ASSERT(false);
    }
}

}  // namespace weft::gpusim
