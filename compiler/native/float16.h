// compiler/native/float16.h: float16, IEEE 754 binary16 as a storage type.
//
// Kernels compute in float32 and store in float16: a float16 converts implicitly to and from
// float32, so `h + h` is a float32 expression and `float16 h = f` rounds. The conversions are
// done with integer operations, not with hardware half instructions, so the CPU, the GPU and
// gpusim round identically: round to nearest, ties to even, with correct subnormals, infinities
// (overflow goes to inf) and NaNs (quiet, payload kept where it fits).
//
// Layout: 2 bytes, the raw bits; no padding.
#pragma once

#include "core.h"

namespace wp {

namespace detail {

WP_FUNC uint32 float_bits(float32 f) {
    union {
        float32 f;
        uint32 u;
    } v;
    v.f = f;
    return v.u;
}
WP_FUNC float32 bits_float(uint32 u) {
    union {
        float32 f;
        uint32 u;
    } v;
    v.u = u;
    return v.f;
}
WP_FUNC uint64 double_bits(float64 f) {
    union {
        float64 f;
        uint64 u;
    } v;
    v.f = f;
    return v.u;
}
WP_FUNC float64 bits_double(uint64 u) {
    union {
        float64 f;
        uint64 u;
    } v;
    v.u = u;
    return v.f;
}

// Rounds the integer `m` right by `s` bits (1 <= s <= 31), ties to even.
WP_FUNC uint32 shift_round_even(uint32 m, uint32 s) {
    const uint32 q = m >> s;
    const uint32 rem = m & ((1u << s) - 1u);
    const uint32 half = 1u << (s - 1u);
    return (rem > half || (rem == half && (q & 1u))) ? q + 1u : q;
}

}  // namespace detail

// The bit casts are public too (the code generator spells non-finite literals through them).
using detail::bits_double;
using detail::bits_float;
using detail::double_bits;
using detail::float_bits;

WP_FUNC uint16 float_to_half_bits(float32 f) {
    const uint32 x = detail::float_bits(f);
    const uint32 sign = (x >> 16) & 0x8000u;
    const uint32 ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {  // inf or nan
        if (ax == 0x7f800000u) return static_cast<uint16>(sign | 0x7c00u);
        return static_cast<uint16>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
    }
    if (ax >= 0x477ff000u) return static_cast<uint16>(sign | 0x7c00u);  // >= 65520 rounds to inf
    if (ax >= 0x38800000u) {                                             // normal half: >= 2^-14
        // Rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10; a carry out of
        // the mantissa correctly bumps the exponent.
        return static_cast<uint16>(sign | detail::shift_round_even(ax - 0x38000000u, 13));
    }
    const uint32 e = ax >> 23;
    if (e < 102u) return static_cast<uint16>(sign);  // below half of the smallest subnormal
    // Subnormal half: value = mant * 2^(e - 150), counted in units of 2^-24.
    const uint32 mant = (ax & 0x7fffffu) | 0x800000u;
    return static_cast<uint16>(sign | detail::shift_round_even(mant, 126u - e));
}

WP_FUNC float32 half_bits_to_float(uint16 h) {
    const uint32 sign = (static_cast<uint32>(h) & 0x8000u) << 16;
    const uint32 e = (h >> 10) & 0x1fu;
    const uint32 m = h & 0x3ffu;
    if (e == 0) {
        // zero or subnormal: m * 2^-24, exact in float32
        const float32 v = static_cast<float32>(m) * 5.9604644775390625e-8f;
        return detail::bits_float(detail::float_bits(v) | sign);
    }
    if (e == 31) return detail::bits_float(sign | 0x7f800000u | (m << 13));
    return detail::bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

struct float16 {
    uint16 bits;

    float16() = default;
    WP_FUNC float16(float32 f) : bits(float_to_half_bits(f)) {}
    WP_FUNC operator float32() const { return half_bits_to_float(bits); }

    WP_FUNC static float16 from_bits(uint16 b) {
        float16 h;
        h.bits = b;
        return h;
    }
};

}  // namespace wp
