// gpusim/exec/float_ops.cpp — directed rounding and half-precision conversion (see float_ops.h).
// Built with -frounding-math (gpusim/CMakeLists.txt).
#include "gpusim/exec/float_ops.h"

#include <cfenv>

namespace weft::gpusim {
namespace {
int fe_mode(Round r) {
    switch (r) {
        case Round::Rz:
        case Round::Rzi: return FE_TOWARDZERO;
        case Round::Rm:
        case Round::Rmi: return FE_DOWNWARD;
        case Round::Rp:
        case Round::Rpi: return FE_UPWARD;
        default: return FE_TONEAREST;
    }
}
// Runs f() with the host rounding mode set for r.
template <typename F>
auto rounded(Round r, F f) {
    const int old = std::fegetround();
    std::fesetround(fe_mode(r));
    volatile auto result = f();
    std::fesetround(old);
    return result;
}
}  // namespace

float add_rounded(float a, float b, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return x + b;
    });
}
double add_rounded(double a, double b, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return x + b;
    });
}
float mul_rounded(float a, float b, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return x * b;
    });
}
double mul_rounded(double a, double b, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return x * b;
    });
}
float fma_rounded(float a, float b, float c, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return std::fma(x, b, c);
    });
}
double fma_rounded(double a, double b, double c, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return std::fma(x, b, c);
    });
}
float div_rounded(float a, float b, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return x / b;
    });
}
double div_rounded(double a, double b, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return x / b;
    });
}
float sqrt_rounded(float a, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return std::sqrt(x);
    });
}
double sqrt_rounded(double a, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return std::sqrt(x);
    });
}
float rcp_rounded(float a, Round r) {
    return rounded(r, [&] {
        volatile float x = a;
        return 1.0f / x;
    });
}
double rcp_rounded(double a, Round r) {
    return rounded(r, [&] {
        volatile double x = a;
        return 1.0 / x;
    });
}

float f32_from_f64(double d, Round r) {
    if (r == Round::Rna) {
        // Nearest, ties away from zero: take the truncation and compare the halfway point.
        const float t = rounded(Round::Rz, [&] {
            volatile double x = d;
            return static_cast<float>(x);
        });
        const float up = std::nextafter(t, d < 0 ? -INFINITY : INFINITY);
        if (std::isinf(t) || static_cast<double>(t) == d || d != d) return static_cast<float>(d);
        const double mid = (static_cast<double>(t) + static_cast<double>(up)) / 2;
        return std::fabs(d) >= std::fabs(mid) ? up : t;
    }
    return rounded(r, [&] {
        volatile double x = d;
        return static_cast<float>(x);
    });
}
float f32_from_i64(int64_t v, Round r) {
    return rounded(r, [&] {
        volatile int64_t x = v;
        return static_cast<float>(x);
    });
}
float f32_from_u64(uint64_t v, Round r) {
    return rounded(r, [&] {
        volatile uint64_t x = v;
        return static_cast<float>(x);
    });
}
double f64_from_i64(int64_t v, Round r) {
    return rounded(r, [&] {
        volatile int64_t x = v;
        return static_cast<double>(x);
    });
}
double f64_from_u64(uint64_t v, Round r) {
    return rounded(r, [&] {
        volatile uint64_t x = v;
        return static_cast<double>(x);
    });
}

double round_integral(double d, Round r) {
    switch (r) {
        case Round::Rzi: return std::trunc(d);
        case Round::Rmi: return std::floor(d);
        case Round::Rpi: return std::ceil(d);
        default: return std::nearbyint(d);  // Rni: the default mode is nearest-even
    }
}
float round_integral(float f, Round r) {
    switch (r) {
        case Round::Rzi: return std::trunc(f);
        case Round::Rmi: return std::floor(f);
        case Round::Rpi: return std::ceil(f);
        default: return std::nearbyint(f);
    }
}

uint16_t f16_from_f32(float f, Round r) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    const uint32_t ax = x & 0x7fffffff;
    if (ax >= 0x7f800000) return sign | (ax > 0x7f800000 ? 0x7fff : 0x7c00);  // NaN (canonical), inf
    // Exact rational value scaled: work in double, which holds every float exactly.
    const double a = std::fabs(static_cast<double>(f));
    // Quantum of the f16 grid at a's magnitude.
    int e;
    std::frexp(a, &e);             // a = m * 2^e, m in [0.5, 1)
    int exp16 = e - 1;             // a in [2^exp16, 2^(exp16+1))
    if (exp16 < -14) exp16 = -14;  // subnormal range
    const double quantum = std::ldexp(1.0, exp16 - 10);
    const double q = a / quantum;  // exact: power-of-two scaling
    double n;
    const bool negative = sign != 0;
    switch (r) {
        case Round::Rz: n = std::trunc(q); break;
        case Round::Rm: n = negative ? std::ceil(q) : std::floor(q); break;
        case Round::Rp: n = negative ? std::floor(q) : std::ceil(q); break;
        case Round::Rna: n = std::floor(q + 0.5); break;
        default: n = std::nearbyint(q); break;
    }
    const double v = n * quantum;
    if (v >= 65520.0 || (v > 65504.0)) {
        // Overflow: to infinity unless the rounding goes toward zero.
        const bool to_max = r == Round::Rz || (r == Round::Rm && !negative) || (r == Round::Rp && negative);
        return sign | (to_max ? 0x7bff : 0x7c00);
    }
    if (v == 0) return sign;
    int ve;
    const double m = std::frexp(v, &ve);  // v = m * 2^ve
    const int unbiased = ve - 1;
    if (unbiased < -14) {  // subnormal
        return sign | static_cast<uint16_t>(v / std::ldexp(1.0, -24));
    }
    const uint16_t mant = static_cast<uint16_t>((m * 2 - 1) * 1024);
    return sign | static_cast<uint16_t>((unbiased + 15) << 10) | mant;
}

float f32_from_f16(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const int exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ffu;
    float f;
    if (exp == 0) {
        f = std::ldexp(static_cast<float>(mant), -24);
    } else if (exp == 31) {
        f = mant ? NAN : INFINITY;
    } else {
        f = std::ldexp(static_cast<float>(mant | 0x400u), exp - 25);
    }
    uint32_t x;
    std::memcpy(&x, &f, 4);
    x |= sign;
    std::memcpy(&f, &x, 4);
    return f;
}

uint16_t bf16_from_f32(float f, Round r) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000) return 0x7fff;
    const uint32_t lower = x & 0xffff;
    uint32_t upper = x >> 16;
    const bool negative = x >> 31;
    switch (r) {
        case Round::Rz: break;
        case Round::Rm:
            if (lower && negative) ++upper;
            break;
        case Round::Rp:
            if (lower && !negative) ++upper;
            break;
        case Round::Rna:
            if (lower >= 0x8000) ++upper;
            break;
        default:
            if (lower > 0x8000 || (lower == 0x8000 && (upper & 1))) ++upper;
            break;
    }
    return static_cast<uint16_t>(upper);
}

float f32_from_bf16(uint16_t h) {
    const uint32_t x = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}

}  // namespace weft::gpusim
