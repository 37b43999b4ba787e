// tests/gpusim/exec/exec_move_test.cpp — cvt between every kind of type, with rounding modes,
// saturation, .ftz, NaN and out-of-range values; mov packing and unpacking.
#include <gtest/gtest.h>

#include <cmath>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::as_f32;
using testing::as_f64;
using testing::eval;
using testing::f32;
using testing::f64;

TEST(Convert, IntegerWidths) {
    EXPECT_EQ(eval("cvt.s64.s32 %x, %a;", {0xffffffff}), ~0ull);
    EXPECT_EQ(eval("cvt.u64.u32 %x, %a;", {0xffffffff}), 0xffffffffull);
    EXPECT_EQ(eval("cvt.u32.u64 %x, %a;", {0x123456789ull}), 0x23456789u);
    EXPECT_EQ(eval("cvt.s32.s8 %x, %a;", {0x80}), 0xffffff80u);
    EXPECT_EQ(eval("cvt.u16.u32 %x, %a;", {0x12345}), 0x2345u);
    EXPECT_EQ(eval("cvt.sat.s8.s32 %x, %a;", {1000}), 127u);
    EXPECT_EQ(eval("cvt.sat.s8.s32 %x, %a;", {static_cast<uint32_t>(-1000)}), 0x80u);
    EXPECT_EQ(eval("cvt.sat.u8.s32 %x, %a;", {static_cast<uint32_t>(-5)}), 0u);
    EXPECT_EQ(eval("cvt.sat.u32.s64 %x, %a;", {1ull << 40}), 0xffffffffu);
    EXPECT_EQ(eval("cvt.sat.s32.u32 %x, %a;", {0xffffffff}), 0x7fffffffu);
}

TEST(Convert, FloatToIntegerRoundsAndSaturates) {
    EXPECT_EQ(eval("cvt.rni.s32.f32 %x, %a;", {f32(2.5f)}), 2u);
    EXPECT_EQ(eval("cvt.rni.s32.f32 %x, %a;", {f32(3.5f)}), 4u);
    EXPECT_EQ(eval("cvt.rzi.s32.f32 %x, %a;", {f32(-2.7f)}), static_cast<uint32_t>(-2));
    EXPECT_EQ(eval("cvt.rmi.s32.f32 %x, %a;", {f32(-2.2f)}), static_cast<uint32_t>(-3));
    EXPECT_EQ(eval("cvt.rpi.s32.f32 %x, %a;", {f32(2.2f)}), 3u);
    EXPECT_EQ(eval("cvt.rzi.s32.f32 %x, %a;", {f32(3e9f)}), 0x7fffffffu);
    EXPECT_EQ(eval("cvt.rzi.s32.f32 %x, %a;", {f32(-3e9f)}), 0x80000000u);
    EXPECT_EQ(eval("cvt.rzi.u32.f32 %x, %a;", {f32(-1.0f)}), 0u);
    EXPECT_EQ(eval("cvt.rzi.s32.f32 %x, %a;", {f32(NAN)}), 0u);
    EXPECT_EQ(eval("cvt.rzi.u64.f64 %x, %a;", {f64(1e30)}), ~0ull);
    EXPECT_EQ(eval("cvt.rni.s64.f64 %x, %a;", {f64(-1e30)}), 0x8000000000000000ull);
    EXPECT_EQ(eval("cvt.rni.u16.f32 %x, %a;", {f32(70000.0f)}), 0xffffu);
}

TEST(Convert, IntegerToFloatRounding) {
    const uint64_t big = (1ull << 24) + 1;  // not representable in f32
    EXPECT_EQ(as_f32(eval("cvt.rn.f32.u32 %x, %a;", {big})), 16777216.0f);
    EXPECT_EQ(as_f32(eval("cvt.rp.f32.u32 %x, %a;", {big})), 16777218.0f);
    EXPECT_EQ(as_f32(eval("cvt.rm.f32.s32 %x, %a;", {static_cast<uint32_t>(-static_cast<int32_t>(big))})), -16777218.0f);
    EXPECT_EQ(as_f32(eval("cvt.rz.f32.s32 %x, %a;", {static_cast<uint32_t>(-static_cast<int32_t>(big))})), -16777216.0f);
    EXPECT_EQ(as_f64(eval("cvt.rn.f64.s64 %x, %a;", {static_cast<uint64_t>(-5)})), -5.0);
    EXPECT_EQ(as_f64(eval("cvt.rn.f64.u64 %x, %a;", {~0ull})), 18446744073709551616.0);
    EXPECT_EQ(as_f32(eval("cvt.rn.f32.s16 %x, %a;", {0xffff})), -1.0f);
}

TEST(Convert, FloatToFloat) {
    EXPECT_EQ(as_f64(eval("cvt.f64.f32 %x, %a;", {f32(0.1f)})), static_cast<double>(0.1f));
    EXPECT_EQ(as_f32(eval("cvt.rn.f32.f64 %x, %a;", {f64(0.1)})), 0.1f);
    EXPECT_EQ(as_f32(eval("cvt.rz.f32.f64 %x, %a;", {f64(1.0 + 1e-12)})), 1.0f);
    EXPECT_EQ(as_f32(eval("cvt.rp.f32.f64 %x, %a;", {f64(1.0 + 1e-12)})), std::nextafter(1.0f, 2.0f));
    EXPECT_EQ(as_f32(eval("cvt.rn.f32.f64 %x, %a;", {f64(1e300)})), INFINITY);
    EXPECT_EQ(as_f32(eval("cvt.rz.f32.f64 %x, %a;", {f64(1e300)})), std::numeric_limits<float>::max());
    EXPECT_EQ(as_f32(eval("cvt.rni.f32.f32 %x, %a;", {f32(2.5f)})), 2.0f);
    EXPECT_EQ(as_f32(eval("cvt.rmi.f32.f32 %x, %a;", {f32(-0.5f)})), -1.0f);
    EXPECT_EQ(as_f32(eval("cvt.rzi.f32.f32 %x, %a;", {f32(-0.5f)})), -0.0f);
    EXPECT_EQ(as_f64(eval("cvt.rpi.f64.f64 %x, %a;", {f64(1.1)})), 2.0);
    EXPECT_EQ(as_f32(eval("cvt.sat.f32.f32 %x, %a;", {f32(1.5f)})), 1.0f);
    EXPECT_EQ(as_f32(eval("cvt.sat.f32.f32 %x, %a;", {f32(NAN)})), 0.0f);
    EXPECT_EQ(eval("cvt.ftz.f32.f32 %x, %a;", {f32(-std::ldexp(1.0f, -140))}), f32(-0.0f));
    EXPECT_EQ(eval("cvt.ftz.f64.f32 %x, %a;", {f32(std::ldexp(1.0f, -140))}), f64(0.0));
}

TEST(Convert, HalfPrecision) {
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(1.0f)}), 0x3c00u);
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(-2.0f)}), 0xc000u);
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(65520.0f)}), 0x7c00u);  // rounds to infinity
    EXPECT_EQ(eval("cvt.rz.f16.f32 %x, %a;", {f32(65520.0f)}), 0x7bffu);
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(std::ldexp(1.0f, -24))}), 0x0001u);         // smallest subnormal
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(1.0f + std::ldexp(1.0f, -11))}), 0x3c00u);  // tie to even
    EXPECT_EQ(eval("cvt.rn.f16.f32 %x, %a;", {f32(1.0f + 3 * std::ldexp(1.0f, -11))}), 0x3c02u);
    EXPECT_EQ(as_f32(eval("cvt.f32.f16 %x, %a;", {0x3555})), 0.333251953125f);
    EXPECT_EQ(as_f32(eval("cvt.f32.f16 %x, %a;", {0x0001})), std::ldexp(1.0f, -24));
    EXPECT_EQ(eval("cvt.rn.bf16.f32 %x, %a;", {f32(1.0f)}), 0x3f80u);
    EXPECT_EQ(as_f32(eval("cvt.f32.bf16 %x, %a;", {0x4049})), 3.140625f);
}

TEST(Convert, MovPacksAndUnpacks) {
    EXPECT_EQ(eval("{ .reg .b32 %lo, %hi; mov.b64 {%lo, %hi}, %a; mov.b64 %x, {%hi, %lo}; }", {0x1111111122222222ull}),
              0x2222222211111111ull);
    EXPECT_EQ(eval("{ .reg .b16 %h0, %h1; mov.b32 {%h0, %h1}, %a; mov.b32 %x, {%h1, %h0}; }", {0xaaaabbbb}), 0xbbbbaaaau);
    EXPECT_EQ(eval("{ .reg .b32 %lo; mov.b64 {%lo, _}, %a; mov.b64 %x, {%lo, %lo}; }", {0x1111111122222222ull}),
              0x2222222222222222ull);
    EXPECT_EQ(eval("mov.u32 %x, %tid.x;"), 0u);
    EXPECT_EQ(eval("mov.u32 %x, %ntid.y;"), 1u);
    EXPECT_EQ(eval("mov.u32 %x, %laneid;"), 0u);
    EXPECT_EQ(eval("mov.u32 %x, %lanemask_le;"), 1u);
}

}  // namespace
}  // namespace weft::gpusim
