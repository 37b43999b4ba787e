// Scalar builtins of compiler/native/math.h against references computed another way: long double
// libm for the transcendental functions, exact integer/rational reasoning for Python's // and %,
// and the defining formulas for the rest.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "weft_native.h"

namespace {

const double kPoints[] = {-2.5, -1.0, -0.75, -0.3, -1e-3, 0.0, 1e-3, 0.2, 0.5, 0.9, 1.0, 1.7, 3.25};

template <typename F, typename R>
void expect_unary(const char* name, F f, R ref, double lo, double hi) {
    for (double x : kPoints) {
        if (x < lo || x > hi) continue;
        const long double r = ref(static_cast<long double>(x));
        EXPECT_NEAR(f(x), static_cast<double>(r), 1e-14 * (1 + std::fabs(static_cast<double>(r)))) << name << "(" << x << ")";
        const float xf = static_cast<float>(x);
        const long double rf = ref(static_cast<long double>(xf));
        EXPECT_NEAR(f(xf), static_cast<double>(rf), 3e-7 * (1 + std::fabs(static_cast<double>(rf)))) << name << "f(" << x << ")";
    }
}

}  // namespace

TEST(ScalarMath, TranscendentalsMatchLongDouble) {
    const double inf = std::numeric_limits<double>::infinity();
#define WEFT_UNARY(fn, lo, hi) \
    expect_unary(              \
        #fn, [](auto x) { return wp::fn(x); }, [](long double x) { return std::fn(x); }, lo, hi)
    WEFT_UNARY(sqrt, 0, inf);
    WEFT_UNARY(cbrt, -inf, inf);
    WEFT_UNARY(exp, -inf, inf);
    WEFT_UNARY(log, 1e-9, inf);
    WEFT_UNARY(log2, 1e-9, inf);
    WEFT_UNARY(log10, 1e-9, inf);
    WEFT_UNARY(sin, -inf, inf);
    WEFT_UNARY(cos, -inf, inf);
    WEFT_UNARY(tan, -inf, inf);
    WEFT_UNARY(asin, -1, 1);
    WEFT_UNARY(acos, -1, 1);
    WEFT_UNARY(atan, -inf, inf);
    WEFT_UNARY(sinh, -inf, inf);
    WEFT_UNARY(cosh, -inf, inf);
    WEFT_UNARY(tanh, -inf, inf);
    WEFT_UNARY(floor, -inf, inf);
    WEFT_UNARY(ceil, -inf, inf);
    WEFT_UNARY(round, -inf, inf);
    WEFT_UNARY(trunc, -inf, inf);
#undef WEFT_UNARY
    expect_unary(
        "abs", [](auto x) { return wp::abs(x); }, [](long double x) { return std::fabs(x); }, -inf, inf);
    EXPECT_EQ(wp::round(2.5), 3.0);  // halves away from zero
    EXPECT_EQ(wp::round(-2.5f), -3.0f);
    for (double x : kPoints)
        for (double y : kPoints) {
            if (x > 0) EXPECT_NEAR(wp::pow(x, y), double(std::pow((long double)x, (long double)y)), 1e-13);
            EXPECT_NEAR(wp::atan2(y, x), double(std::atan2((long double)y, (long double)x)), 1e-14);
        }
}

TEST(ScalarMath, ElementaryFormulas) {
    for (double x : kPoints) {
        EXPECT_EQ(wp::sign(x), x < 0 ? -1.0 : 1.0);
        EXPECT_EQ(wp::step(x), x < 0 ? 1.0 : 0.0);
        EXPECT_NEAR(wp::degrees(x), x * 57.29577951308232, 1e-13);
        EXPECT_NEAR(wp::radians(x), x * 0.017453292519943295, 1e-15);
        EXPECT_EQ(wp::clamp(x, -0.5, 0.6), x < -0.5 ? -0.5 : (x > 0.6 ? 0.6 : x));
        EXPECT_EQ(wp::min(x, 0.2), std::fmin(x, 0.2));
        EXPECT_EQ(wp::max(x, 0.2), std::fmax(x, 0.2));
        EXPECT_NEAR(wp::lerp(1.0, 3.0, x), 1.0 * (1 - x) + 3.0 * x, 1e-15);
        const double s = std::min(1.0, std::max(0.0, (x + 1) / 3.0));
        EXPECT_NEAR(wp::smoothstep(-1.0, 2.0, x), 3 * s * s - 2 * s * s * s, 1e-15);
        for (int n = -3; n <= 5; ++n)
            if (x != 0) EXPECT_NEAR(wp::pow_int(x, n), std::pow(x, n), 1e-13 * (1 + std::fabs(std::pow(x, n))));
    }
    EXPECT_EQ(wp::pow_int(3, 4), 81);
    EXPECT_EQ(wp::pow_int(-2ll, 5), -32ll);
    EXPECT_EQ(wp::pow_int(2, -1), 0);
    EXPECT_EQ(wp::pow_int(-1, -3), -1);
    EXPECT_EQ(wp::abs(-7), 7);
    EXPECT_EQ(wp::sign(-7ll), -1ll);
}

TEST(ScalarMath, Classification) {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (double x : {0.0, -1.5, 1e308, 5e-324, nan, inf, -inf}) {
        EXPECT_EQ(wp::isnan(x), std::isnan(x)) << x;
        EXPECT_EQ(wp::isinf(x), std::isinf(x)) << x;
        EXPECT_EQ(wp::isfinite(x), std::isfinite(x)) << x;
        const float xf = static_cast<float>(x);
        EXPECT_EQ(wp::isnan(xf), std::isnan(xf)) << x;
        EXPECT_EQ(wp::isinf(xf), std::isinf(xf)) << x;
        EXPECT_EQ(wp::isfinite(xf), std::isfinite(xf)) << x;
    }
}

// Python: a // b = floor(a / b) exactly (as rationals); a % b = a - b (a // b).
TEST(ScalarMath, PythonFloorDivisionAndModuloOnInts) {
    for (int a = -23; a <= 23; ++a)
        for (int b = -7; b <= 7; ++b) {
            if (b == 0) {
                EXPECT_EQ(wp::floordiv(a, b), 0);
                EXPECT_EQ(wp::pymod(a, b), 0);
                continue;
            }
            const int q = static_cast<int>(std::floor(static_cast<double>(a) / b));
            EXPECT_EQ(wp::floordiv(a, b), q) << a << " // " << b;
            EXPECT_EQ(wp::pymod(a, b), a - b * q) << a << " % " << b;
            EXPECT_EQ(wp::floordiv((long long)(a), (long long)(b)), (long long)(q));
            EXPECT_EQ(wp::pymod((long long)(a), (long long)(b)), (long long)(a - b * q));
            EXPECT_EQ(wp::mod(a, b), a % b);
        }
    EXPECT_EQ(wp::floordiv(7u, 2u), 3u);
    EXPECT_EQ(wp::pymod(7u, 0u), 0u);
}

TEST(ScalarMath, PythonFloorDivisionAndModuloOnFloats) {
    // Values from CPython 3.11.
    EXPECT_EQ(wp::floordiv(7.5, 2.0), 3.0);
    EXPECT_EQ(wp::floordiv(-7.5, 2.0), -4.0);
    EXPECT_EQ(wp::floordiv(7.5, -2.0), -4.0);
    EXPECT_EQ(wp::pymod(-7.5, 2.0), 0.5);
    EXPECT_EQ(wp::pymod(7.5, -2.0), -0.5);
    EXPECT_TRUE(std::signbit(wp::pymod(4.0, -2.0)));
    EXPECT_FALSE(std::signbit(wp::pymod(-4.0, 2.0)));
    EXPECT_EQ(wp::mod(-7.5, 2.0), -1.5);
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-50, 50);
    for (int i = 0; i < 2000; ++i) {
        const double a = u(rng), b = u(rng);
        const long double q = std::floor(static_cast<long double>(a) / b);
        EXPECT_EQ(wp::floordiv(a, b), static_cast<double>(q)) << a << " // " << b;
        const double r = wp::pymod(a, b);
        EXPECT_NEAR(r, static_cast<double>(a - q * b), 1e-12);
        EXPECT_TRUE(r == 0 || (r < 0) == (b < 0));
        EXPECT_NEAR(wp::floordiv(float(a), float(b)), std::floor(float(a) / float(b)), 1.0);
    }
}

TEST(ScalarMath, NamedOperators) {
    EXPECT_EQ(wp::add(2, 3), 5);
    EXPECT_EQ(wp::sub(2u, 3u), 0xffffffffu);
    EXPECT_EQ(wp::mul(2.5, 4.0), 10.0);
    EXPECT_EQ(wp::div(7, 2), 3);
    EXPECT_EQ(wp::neg(1.5f), -1.5f);
}
