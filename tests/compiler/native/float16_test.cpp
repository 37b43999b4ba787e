// float16 (compiler/native/float16.h): every one of the 65536 bit patterns against a decoding
// computed with ldexp, the round trip half -> float -> half, and float -> half rounding against
// the compiler's own _Float16 conversion (GCC/Clang on x86-64) on millions of floats, including
// every midpoint between neighbouring halves.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "weft_native.h"

namespace {

// Decodes binary16 from its definition: (-1)^s 2^(e-15) (1 + m/1024), subnormal 2^-14 (m/1024).
double reference_decode(uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0)
        v = std::ldexp(m, -24);
    else if (e == 31)
        v = m ? std::nan("") : INFINITY;
    else
        v = std::ldexp(1024 + m, e - 25);
    return s ? -v : v;
}

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

}  // namespace

TEST(Float16, DecodesEveryBitPattern) {
    for (uint32_t h = 0; h < 65536; ++h) {
        const float f = wp::half_bits_to_float(static_cast<uint16_t>(h));
        const double r = reference_decode(static_cast<uint16_t>(h));
        if (std::isnan(r)) {
            EXPECT_TRUE(std::isnan(f)) << h;
        } else {
            EXPECT_EQ(static_cast<double>(f), r) << h;
            EXPECT_EQ(std::signbit(f), std::signbit(r)) << h;
        }
    }
}

TEST(Float16, RoundTripsEveryBitPattern) {
    for (uint32_t h = 0; h < 65536; ++h) {
        const wp::float16 x = wp::float16::from_bits(static_cast<uint16_t>(h));
        const float f = x;
        const wp::float16 back = f;
        if (std::isnan(f))
            EXPECT_TRUE(std::isnan(static_cast<float>(back))) << h;
        else
            EXPECT_EQ(back.bits, h) << h;
    }
}

TEST(Float16, RoundsMidpointsToEvenAndNeighboursToNearest) {
    // For each pair of adjacent finite halves a < b: the exact midpoint goes to the even one,
    // and the floats just beside it go to the nearer one.
    for (uint32_t h = 0; h < 0x7bff; ++h) {  // 0x7bff -> inf is checked below
        const double a = reference_decode(static_cast<uint16_t>(h)), b = reference_decode(static_cast<uint16_t>(h + 1));
        const float mid = static_cast<float>((a + b) / 2);  // exact in float32
        ASSERT_EQ(static_cast<double>(mid), (a + b) / 2);
        const uint16_t even = (h & 1) ? h + 1 : h;
        EXPECT_EQ(wp::float_to_half_bits(mid), even) << h;
        EXPECT_EQ(wp::float_to_half_bits(std::nextafter(mid, 0.0f)), h) << h;
        EXPECT_EQ(wp::float_to_half_bits(std::nextafter(mid, INFINITY)), h + 1) << h;
        EXPECT_EQ(wp::float_to_half_bits(-mid), even | 0x8000) << h;
    }
    EXPECT_EQ(wp::float_to_half_bits(65519.99f), 0x7bff);
    EXPECT_EQ(wp::float_to_half_bits(65520.0f), 0x7c00);  // halfway to 2^16 rounds (to even) to inf
    EXPECT_EQ(wp::float_to_half_bits(1e-8f), 0);
    EXPECT_EQ(wp::float_to_half_bits(-INFINITY), 0xfc00);
    EXPECT_EQ(wp::float_to_half_bits(std::nanf("")) & 0x7e00, 0x7e00);
}

#if defined(__FLT16_MAX__)
TEST(Float16, MatchesCompilerFloat16Conversion) {
    std::mt19937 rng(1);
    auto check = [](uint32_t u) {
        float f;
        std::memcpy(&f, &u, 4);
        if (std::isnan(f)) return;
        const _Float16 r = static_cast<_Float16>(f);
        uint16_t rb;
        std::memcpy(&rb, &r, 2);
        ASSERT_EQ(wp::float_to_half_bits(f), rb) << std::hex << u;
    };
    for (int i = 0; i < 4000000; ++i) check(static_cast<uint32_t>(rng()));
    // Dense sweep over the range where halves are finite and subnormal.
    for (uint32_t u = bits_of(1e-9f); u < bits_of(70000.0f); u += 61) check(u);
}
#endif
