// gpusim/exec/exec_float.cpp — f32/f64 arithmetic: add/sub/mul/fma/mad/div, abs/neg/min/max,
// copysign, rcp/sqrt/rsqrt and the .approx special functions (sin, cos, lg2, ex2, tanh).
//
// IEEE-rounded operations (.rn default, .rz/.rm/.rp via float_ops) are exact to the bit.
// .approx operations use the host's correctly-rounded-or-close math, which is within the error
// bounds PTX documents for them (for example ex2.approx.f32: 2 ulp; sin/cos: 2^-20.9 absolute
// in [-pi, pi]), so results match a GPU within those bounds, not bit for bit.
// .ftz flushes subnormal f32 inputs and results to signed zero; .sat clamps to [0, 1].
// NaN results are the canonical NaN (0x7fffffff for f32).
#include <algorithm>
#include <cmath>

#include "gpusim/exec/exec.h"
#include "gpusim/exec/float_ops.h"

namespace weft::gpusim {
namespace {

template <typename T>
T from_bits(uint64_t b) {
    if constexpr (sizeof(T) == 4)
        return f32_of(b);
    else
        return f64_of(b);
}

template <typename T>
struct FloatCtx {
    bool ftz_;
    bool sat_;
    T in(uint64_t b) const {
        T v = from_bits<T>(b);
        if constexpr (sizeof(T) == 4) {
            if (ftz_) v = ftz(v);
        }
        return v;
    }
    uint64_t out(T v) const {
        if constexpr (sizeof(T) == 4) {
            if (ftz_) v = ftz(v);
        }
        if (sat_) v = sat(v);
        return canon(v);
    }
};

template <typename T>
T fmin_ptx(T a, T b, bool nan_prop) {
    if (a != a || b != b) {
        if (nan_prop || (a != a && b != b)) return std::numeric_limits<T>::quiet_NaN();
        return a != a ? b : a;
    }
    if (a == b) return std::signbit(a) ? a : b;  // -0 < +0
    return a < b ? a : b;
}
template <typename T>
T fmax_ptx(T a, T b, bool nan_prop) {
    if (a != a || b != b) {
        if (nan_prop || (a != a && b != b)) return std::numeric_limits<T>::quiet_NaN();
        return a != a ? b : a;
    }
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
}

template <typename T>
void run(BlockContext& c, Warp& w, const Instr& in, uint32_t mask) {
    const FloatCtx<T> f{(in.flags & Flag_Ftz) != 0, (in.flags & Flag_Sat) != 0};
    const Round r = in.rnd;
    const bool directed = is_directed(r);
    const bool approx = (in.flags & Flag_Approx) != 0;
    auto unary = [&](auto op) { for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, f.out(op(f.in(rd(c, w, in.ops[1], l))))); }); };
    auto binary = [&](auto op) {
        for_lanes(mask,
                  [&](int l) { wr(w, in.ops[0], l, f.out(op(f.in(rd(c, w, in.ops[1], l)), f.in(rd(c, w, in.ops[2], l))))); });
    };
    switch (in.op) {
        case Op::Add:
            if (directed) return binary([&](T a, T b) { return add_rounded(a, b, r); });
            return binary([](T a, T b) { return a + b; });
        case Op::Sub:
            if (directed) return binary([&](T a, T b) { return add_rounded(a, -b, r); });
            return binary([](T a, T b) { return a - b; });
        case Op::Mul:
            if (directed) return binary([&](T a, T b) { return mul_rounded(a, b, r); });
            return binary([](T a, T b) { return a * b; });
        case Op::Fma:
        case Op::Mad:  // mad.f32/.f64 with a rounding mode is fma; without one (sm_1x) it is too here
            for_lanes(mask, [&](int l) {
                const T a = f.in(rd(c, w, in.ops[1], l)), b = f.in(rd(c, w, in.ops[2], l)), cc = f.in(rd(c, w, in.ops[3], l));
                wr(w, in.ops[0], l, f.out(directed ? fma_rounded(a, b, cc, r) : std::fma(a, b, cc)));
            });
            return;
        case Op::Div:
            if (directed) return binary([&](T a, T b) { return div_rounded(a, b, r); });
            return binary([](T a, T b) { return a / b; });
        case Op::Abs:
            for_lanes(mask, [&](int l) {
                T a = f.in(rd(c, w, in.ops[1], l));
                wr(w, in.ops[0], l, a != a ? canon(a) : bits_of(std::fabs(a)));
            });
            return;
        case Op::Neg:
            for_lanes(mask, [&](int l) {
                T a = f.in(rd(c, w, in.ops[1], l));
                wr(w, in.ops[0], l, a != a ? canon(a) : bits_of(static_cast<T>(-a)));
            });
            return;
        case Op::Min: return binary([&](T a, T b) { return fmin_ptx(a, b, (in.flags & Flag_Nan) != 0); });
        case Op::Max: return binary([&](T a, T b) { return fmax_ptx(a, b, (in.flags & Flag_Nan) != 0); });
        case Op::Copysign:  // copysign d, a, b: b's magnitude with a's sign
            for_lanes(mask, [&](int l) {
                const T a = from_bits<T>(rd(c, w, in.ops[1], l)), b = from_bits<T>(rd(c, w, in.ops[2], l));
                wr(w, in.ops[0], l, bits_of(std::copysign(b, a)));
            });
            return;
        case Op::Rcp:
            if (directed) return unary([&](T a) { return rcp_rounded(a, r); });
            return unary([](T a) { return T(1) / a; });
        case Op::Sqrt:
            if (directed) return unary([&](T a) { return sqrt_rounded(a, r); });
            return unary([](T a) { return std::sqrt(a); });
        case Op::Rsqrt: return unary([](T a) { return T(1) / std::sqrt(a); });
        case Op::Sin: return unary([](T a) { return std::sin(a); });
        case Op::Cos: return unary([](T a) { return std::cos(a); });
        case Op::Lg2: return unary([](T a) { return std::log2(a); });
        case Op::Ex2: return unary([](T a) { return std::exp2(a); });
        case Op::Tanh: return unary([](T a) { return std::tanh(a); });
        default: GPUSIM_ASSERT(false);
    }
    (void)approx;
}

}  // namespace

void exec_float(BlockContext& c, Warp& w, const Instr& in, uint32_t mask) {
    if (in.type == Type::F64) {
        run<double>(c, w, in, mask);
    } else {
        run<float>(c, w, in, mask);
    }
}

}  // namespace weft::gpusim
