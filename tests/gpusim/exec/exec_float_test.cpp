// tests/gpusim/exec/exec_float_test.cpp — f32/f64 arithmetic on hand-written PTX: rounding modes,
// .ftz, .sat, NaN handling and unordered comparisons, special functions.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::as_f32;
using testing::as_f64;
using testing::eval;
using testing::f32;
using testing::f64;

TEST(FloatOps, RoundingModesOfAdd) {
    // 1 + 2^-30 is not representable in f32: rn/rz/rm round down, rp rounds up.
    const uint64_t one = f32(1.0f), tiny = f32(std::ldexp(1.0f, -30));
    EXPECT_EQ(as_f32(eval("add.rn.f32 %x, %a, %b;", {one, tiny})), 1.0f);
    EXPECT_EQ(as_f32(eval("add.rz.f32 %x, %a, %b;", {one, tiny})), 1.0f);
    EXPECT_EQ(as_f32(eval("add.rm.f32 %x, %a, %b;", {one, tiny})), 1.0f);
    EXPECT_EQ(as_f32(eval("add.rp.f32 %x, %a, %b;", {one, tiny})), std::nextafter(1.0f, 2.0f));
    const uint64_t m1 = f32(-1.0f), mtiny = f32(-std::ldexp(1.0f, -30));
    EXPECT_EQ(as_f32(eval("add.rm.f32 %x, %a, %b;", {m1, mtiny})), std::nextafter(-1.0f, -2.0f));
    EXPECT_EQ(as_f32(eval("add.rz.f32 %x, %a, %b;", {m1, mtiny})), -1.0f);
    EXPECT_EQ(as_f64(eval("add.rp.f64 %x, %a, %b;", {f64(1.0), f64(1e-30)})), std::nextafter(1.0, 2.0));
    EXPECT_EQ(as_f64(eval("mul.rz.f64 %x, %a, %b;", {f64(1.0 / 3), f64(3.0)})), std::nextafter(1.0, 0.0));
    // 1/3 rounded to nearest is 0x3eaaaaab, above 1/3: .rp gives the same, .rm and .rz one ulp less.
    EXPECT_EQ(eval("div.rp.f32 %x, %a, %b;", {f32(1.0f), f32(3.0f)}), 0x3eaaaaabu);
    EXPECT_EQ(eval("div.rm.f32 %x, %a, %b;", {f32(1.0f), f32(3.0f)}), 0x3eaaaaaau);
    EXPECT_EQ(eval("div.rz.f32 %x, %a, %b;", {f32(1.0f), f32(3.0f)}), 0x3eaaaaaau);
    EXPECT_EQ(as_f32(eval("sqrt.rp.f32 %x, %a;", {f32(2.0f)})), std::nextafter(std::sqrt(2.0f), 2.0f));
}

TEST(FloatOps, FmaIsFused) {
    // a*b+c with a*b = 1 - 2^-46 exactly: fused keeps the low bits, unfused would round to 0.
    const float a = 1.0f + std::ldexp(1.0f, -23), b = 1.0f - std::ldexp(1.0f, -23);
    EXPECT_EQ(as_f32(eval("fma.rn.f32 %x, %a, %b, %c;", {f32(a), f32(b), f32(-1.0f)})), -std::ldexp(1.0f, -46));
    EXPECT_EQ(as_f32(eval("mad.rn.f32 %x, %a, %b, %c;", {f32(a), f32(b), f32(-1.0f)})), -std::ldexp(1.0f, -46));
    EXPECT_EQ(as_f64(eval("fma.rn.f64 %x, %a, %b, %c;", {f64(2.0), f64(3.0), f64(1.0)})), 7.0);
}

TEST(FloatOps, FlushToZeroAndSaturate) {
    const float sub = std::ldexp(1.0f, -140);  // subnormal
    EXPECT_EQ(as_f32(eval("add.f32 %x, %a, %b;", {f32(sub), f32(0.0f)})), sub);
    EXPECT_EQ(eval("add.ftz.f32 %x, %a, %b;", {f32(sub), f32(0.0f)}), f32(0.0f));
    EXPECT_EQ(eval("add.ftz.f32 %x, %a, %b;", {f32(-sub), f32(-0.0f)}), f32(-0.0f));
    EXPECT_EQ(eval("mul.ftz.f32 %x, %a, %b;", {f32(std::ldexp(1.0f, -100)), f32(std::ldexp(1.0f, -30))}),
              f32(0.0f));  // subnormal result
    EXPECT_EQ(as_f32(eval("add.sat.f32 %x, %a, %b;", {f32(0.75f), f32(0.5f)})), 1.0f);
    EXPECT_EQ(as_f32(eval("add.sat.f32 %x, %a, %b;", {f32(-0.75f), f32(0.5f)})), 0.0f);
    EXPECT_EQ(as_f32(eval("mul.sat.f32 %x, %a, %b;", {f32(NAN), f32(1.0f)})), 0.0f);
}

TEST(FloatOps, NanResultsAreCanonical) {
    EXPECT_EQ(eval("add.f32 %x, %a, %b;", {f32(INFINITY), f32(-INFINITY)}), 0x7fffffffu);
    EXPECT_EQ(eval("mul.f32 %x, %a, %b;", {0xffc00001u, f32(1.0f)}), 0x7fffffffu);
    EXPECT_EQ(eval("div.rn.f32 %x, %a, %b;", {f32(0.0f), f32(0.0f)}), 0x7fffffffu);
    EXPECT_EQ(as_f32(eval("div.rn.f32 %x, %a, %b;", {f32(1.0f), f32(0.0f)})), INFINITY);
    EXPECT_EQ(as_f32(eval("div.rn.f32 %x, %a, %b;", {f32(-1.0f), f32(0.0f)})), -INFINITY);
    EXPECT_TRUE(std::isnan(as_f64(eval("sqrt.rn.f64 %x, %a;", {f64(-1.0)}))));
}

TEST(FloatOps, MinMaxWithNan) {
    EXPECT_EQ(as_f32(eval("min.f32 %x, %a, %b;", {f32(NAN), f32(2.0f)})), 2.0f);
    EXPECT_EQ(as_f32(eval("max.f32 %x, %a, %b;", {f32(1.0f), f32(NAN)})), 1.0f);
    EXPECT_EQ(eval("min.f32 %x, %a, %b;", {f32(NAN), f32(NAN)}), 0x7fffffffu);
    EXPECT_EQ(eval("min.NaN.f32 %x, %a, %b;", {f32(NAN), f32(2.0f)}), 0x7fffffffu);
    EXPECT_EQ(eval("min.f32 %x, %a, %b;", {f32(0.0f), f32(-0.0f)}), f32(-0.0f));
    EXPECT_EQ(eval("max.f32 %x, %a, %b;", {f32(-0.0f), f32(0.0f)}), f32(0.0f));
    EXPECT_EQ(as_f64(eval("max.f64 %x, %a, %b;", {f64(-3.0), f64(-2.0)})), -2.0);
}

TEST(FloatOps, OrderedAndUnorderedComparisons) {
    auto cmp = [](const std::string& op, float a, float b) {
        return eval("setp." + op + ".f32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {f32(a), f32(b)});
    };
    EXPECT_EQ(cmp("lt", 1, 2), 1u);
    EXPECT_EQ(cmp("lt", NAN, 2), 0u);
    EXPECT_EQ(cmp("ltu", NAN, 2), 1u);
    EXPECT_EQ(cmp("ne", NAN, 2), 0u);
    EXPECT_EQ(cmp("neu", NAN, 2), 1u);
    EXPECT_EQ(cmp("equ", 2, 2), 1u);
    EXPECT_EQ(cmp("geu", 1, 2), 0u);
    EXPECT_EQ(cmp("num", 1, 2), 1u);
    EXPECT_EQ(cmp("num", 1, NAN), 0u);
    EXPECT_EQ(cmp("nan", 1, NAN), 1u);
    EXPECT_EQ(cmp("eq", 0.0f, -0.0f), 1u);
    EXPECT_EQ(eval("setp.gtu.f64 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {f64(NAN), f64(0)}), 1u);
    EXPECT_EQ(eval("setp.eq.ftz.f32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {f32(std::ldexp(1.0f, -140)), f32(0)}), 1u);
}

TEST(FloatOps, SpecialFunctions) {
    EXPECT_NEAR(as_f32(eval("sin.approx.f32 %x, %a;", {f32(1.0f)})), std::sin(1.0f), 1e-6f);
    EXPECT_NEAR(as_f32(eval("cos.approx.ftz.f32 %x, %a;", {f32(1.0f)})), std::cos(1.0f), 1e-6f);
    EXPECT_EQ(as_f32(eval("ex2.approx.ftz.f32 %x, %a;", {f32(3.0f)})), 8.0f);
    EXPECT_EQ(as_f32(eval("ex2.approx.f32 %x, %a;", {f32(-INFINITY)})), 0.0f);
    EXPECT_EQ(as_f32(eval("lg2.approx.f32 %x, %a;", {f32(8.0f)})), 3.0f);
    EXPECT_EQ(as_f32(eval("lg2.approx.f32 %x, %a;", {f32(0.0f)})), -INFINITY);
    EXPECT_TRUE(std::isnan(as_f32(eval("lg2.approx.f32 %x, %a;", {f32(-1.0f)}))));
    EXPECT_EQ(as_f32(eval("rcp.rn.f32 %x, %a;", {f32(4.0f)})), 0.25f);
    EXPECT_EQ(as_f32(eval("rcp.approx.ftz.f32 %x, %a;", {f32(0.0f)})), INFINITY);
    EXPECT_EQ(as_f32(eval("rsqrt.approx.f32 %x, %a;", {f32(4.0f)})), 0.5f);
    EXPECT_EQ(as_f64(eval("rcp.rn.f64 %x, %a;", {f64(8.0)})), 0.125);
    EXPECT_EQ(as_f32(eval("sqrt.approx.f32 %x, %a;", {f32(9.0f)})), 3.0f);
    EXPECT_EQ(as_f32(eval("div.approx.f32 %x, %a, %b;", {f32(1.0f), f32(4.0f)})), 0.25f);
    EXPECT_EQ(as_f32(eval("div.full.f32 %x, %a, %b;", {f32(6.0f), f32(3.0f)})), 2.0f);
    EXPECT_NEAR(as_f32(eval("tanh.approx.f32 %x, %a;", {f32(0.5f)})), std::tanh(0.5f), 1e-6f);
}

TEST(FloatOps, SignOperationsAndTests) {
    EXPECT_EQ(as_f32(eval("abs.f32 %x, %a;", {f32(-2.0f)})), 2.0f);
    EXPECT_EQ(eval("neg.f32 %x, %a;", {f32(0.0f)}), f32(-0.0f));
    EXPECT_EQ(as_f64(eval("neg.f64 %x, %a;", {f64(1.5)})), -1.5);
    EXPECT_EQ(as_f32(eval("copysign.f32 %x, %a, %b;", {f32(-1.0f), f32(3.0f)})), -3.0f);
    EXPECT_EQ(as_f64(eval("copysign.f64 %x, %a, %b;", {f64(1.0), f64(-3.0)})), 3.0);
    auto test = [](const std::string& m, float v) {
        return eval("testp." + m + ".f32 %p, %a; selp.u32 %x, 1, 0, %p;", {f32(v)});
    };
    EXPECT_EQ(test("finite", 1.0f), 1u);
    EXPECT_EQ(test("finite", INFINITY), 0u);
    EXPECT_EQ(test("infinite", -INFINITY), 1u);
    EXPECT_EQ(test("notanumber", NAN), 1u);
    EXPECT_EQ(test("number", NAN), 0u);
    EXPECT_EQ(test("normal", 1.0f), 1u);
    EXPECT_EQ(test("subnormal", std::ldexp(1.0f, -140)), 1u);
    EXPECT_EQ(test("normal", 0.0f), 0u);
}

TEST(FloatOps, LiteralsConvertToTheInstructionType) {
    EXPECT_EQ(as_f64(eval("add.f64 %x, %a, 0f3F800000;", {f64(1.0)})), 2.0);  // f32 literal in f64 op
    EXPECT_EQ(as_f32(eval("add.f32 %x, %a, 0d3FF0000000000000;", {f32(1.0f)})), 2.0f);
    EXPECT_EQ(as_f32(eval("mul.f32 %x, %a, 2.5;", {f32(2.0f)})), 5.0f);  // decimal literal
    EXPECT_EQ(eval("mov.b32 %x, 0f3F800000;"), 0x3f800000u);
    EXPECT_EQ(as_f32(eval("mov.f32 %x, -0f3F800000;")), -1.0f);
}

}  // namespace
}  // namespace weft::gpusim
