// tests/gpusim/exec/exec_int_test.cpp — integer and bit instructions on hand-written PTX, with the
// edge cases PTX defines: wrap-around, saturation, shifts >= width, division by zero, carries.
#include <gtest/gtest.h>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::eval;

TEST(IntOps, AddSubWrapAndSaturate) {
    EXPECT_EQ(eval("add.s32 %x, %a, %b;", {0x7fffffff, 1}), 0x80000000u);
    EXPECT_EQ(eval("add.sat.s32 %x, %a, %b;", {0x7fffffff, 1}), 0x7fffffffu);
    EXPECT_EQ(eval("add.sat.s32 %x, %a, %b;", {0x80000000, 0xffffffff}), 0x80000000u);
    EXPECT_EQ(eval("sub.u32 %x, %a, %b;", {0, 1}), 0xffffffffu);
    EXPECT_EQ(eval("sub.sat.s32 %x, %a, %b;", {0x80000000, 1}), 0x80000000u);
    EXPECT_EQ(eval("add.u64 %x, %a, %b;", {~0ull, 2}), 1u);
    EXPECT_EQ(eval("add.s16 %x, %a, %b;", {0x7fff, 1}), 0x8000u);
}

TEST(IntOps, Multiply) {
    EXPECT_EQ(eval("mul.lo.s32 %x, %a, %b;", {0x10000, 0x10001}), 0x10000u);
    EXPECT_EQ(eval("mul.hi.u32 %x, %a, %b;", {0xffffffff, 0xffffffff}), 0xfffffffeu);
    EXPECT_EQ(eval("mul.hi.s32 %x, %a, %b;", {0xffffffff, 5}), 0xffffffffu);  // -1*5 = -5: high word -1
    EXPECT_EQ(eval("mul.wide.s32 %x, %a, %b;", {0xfffffffe, 3}), static_cast<uint64_t>(-6));
    EXPECT_EQ(eval("mul.wide.u32 %x, %a, %b;", {0xffffffff, 2}), 0x1fffffffeull);
    EXPECT_EQ(eval("mul.hi.u64 %x, %a, %b;", {~0ull, 4}), 3u);
    EXPECT_EQ(eval("mul.hi.s64 %x, %a, %b;", {static_cast<uint64_t>(-2), 3}), ~0ull);
    EXPECT_EQ(eval("mad.lo.s32 %x, %a, %b, %c;", {7, 6, 0xffffffff}), 41u);
    EXPECT_EQ(eval("mad.wide.u32 %x, %a, %b, %c;", {0x80000000, 4, 5}), 0x200000005ull);
    EXPECT_EQ(eval("mad.hi.u32 %x, %a, %b, %c;", {0x80000000, 4, 5}), 7u);
    EXPECT_EQ(eval("mul24.lo.u32 %x, %a, %b;", {0x1000001, 3}), 3u);  // bit 24 ignored
    EXPECT_EQ(eval("mul24.hi.u32 %x, %a, %b;", {0xffffff, 0xffffff}), ((0xffffffull * 0xffffffull) >> 16) & 0xffffffffu);
    EXPECT_EQ(eval("mad24.lo.s32 %x, %a, %b, %c;", {0xffffff, 2, 10}), 8u);  // 24-bit -1 * 2 + 10
}

TEST(IntOps, CarryChain) {
    // 128-bit add of (2^64-1) + 1 in 32-bit pieces, as NVRTC's inline asm does.
    const char* body =
        "{ .reg .u32 %a0, %a1, %b0, %b1, %r0, %r1, %r2;\n"
        "mov.b64 {%a0, %a1}, %a; mov.b64 {%b0, %b1}, %b;\n"
        "add.cc.u32 %r0, %a0, %b0; addc.cc.u32 %r1, %a1, %b1; addc.u32 %r2, 0, 0;\n"
        "mov.b64 %x, {%r0, %r1}; mov.b64 %y, {%r2, %r2}; add.u64 %x, %x, %y; }";
    EXPECT_EQ(eval(body, {0xffffffffffffffffull, 1}), 0x100000001ull);          // low 64 bits 0, carry 1 -> 0 + (1<<32|1)
    EXPECT_EQ(eval("sub.cc.u32 %x, %a, %b; subc.u32 %x, 10, 0;", {1, 2}), 9u);  // borrow out of 1-2
    EXPECT_EQ(eval("mad.lo.cc.u32 %x, %a, %b, %c; madc.hi.u32 %x, %a, %b, 0;", {0xffffffff, 2, 2}), 2u);  // hi(2^33-2)=1, +carry
}

TEST(IntOps, DivisionAndRemainderEdgeCases) {
    EXPECT_EQ(eval("div.s32 %x, %a, %b;", {static_cast<uint32_t>(-7), 2}), static_cast<uint32_t>(-3));
    EXPECT_EQ(eval("rem.s32 %x, %a, %b;", {static_cast<uint32_t>(-7), 2}), static_cast<uint32_t>(-1));
    EXPECT_EQ(eval("div.u32 %x, %a, %b;", {7, 0}), 0xffffffffu);
    EXPECT_EQ(eval("div.s32 %x, %a, %b;", {7, 0}), 0xffffffffu);
    EXPECT_EQ(eval("rem.u32 %x, %a, %b;", {7, 0}), 7u);
    EXPECT_EQ(eval("div.s32 %x, %a, %b;", {0x80000000, 0xffffffff}), 0x80000000u);
    EXPECT_EQ(eval("rem.s32 %x, %a, %b;", {0x80000000, 0xffffffff}), 0u);
    EXPECT_EQ(eval("div.s64 %x, %a, %b;", {0x8000000000000000ull, ~0ull}), 0x8000000000000000ull);
    EXPECT_EQ(eval("div.u64 %x, %a, %b;", {100, 7}), 14u);
}

TEST(IntOps, AbsNegMinMax) {
    EXPECT_EQ(eval("abs.s32 %x, %a;", {0x80000000}), 0x80000000u);
    EXPECT_EQ(eval("abs.s32 %x, %a;", {static_cast<uint32_t>(-5)}), 5u);
    EXPECT_EQ(eval("neg.s32 %x, %a;", {5}), static_cast<uint32_t>(-5));
    EXPECT_EQ(eval("min.s32 %x, %a, %b;", {static_cast<uint32_t>(-1), 1}), 0xffffffffu);
    EXPECT_EQ(eval("min.u32 %x, %a, %b;", {static_cast<uint32_t>(-1), 1}), 1u);
    EXPECT_EQ(eval("max.s64 %x, %a, %b;", {static_cast<uint64_t>(-3), 2}), 2u);
}

TEST(IntOps, LogicAndPredicates) {
    EXPECT_EQ(eval("and.b32 %x, %a, %b;", {0xf0f0, 0xff00}), 0xf000u);
    EXPECT_EQ(eval("or.b32 %x, %a, %b;", {0xf0f0, 0xff00}), 0xfff0u);
    EXPECT_EQ(eval("xor.b32 %x, %a, %b;", {0xf0f0, 0xff00}), 0x0ff0u);
    EXPECT_EQ(eval("not.b32 %x, %a;", {0}), 0xffffffffu);
    EXPECT_EQ(eval("cnot.b32 %x, %a;", {0}), 1u);
    EXPECT_EQ(eval("cnot.b32 %x, %a;", {5}), 0u);
    EXPECT_EQ(eval("setp.ne.u32 %p, %a, 0; not.pred %q, %p; selp.u32 %x, 1, 2, %q;", {0}), 1u);
    EXPECT_EQ(eval("setp.ne.u32 %p, %a, 0; setp.ne.u32 %q, %b, 0; and.pred %p, %p, %q; selp.u32 %x, 1, 2, %p;", {1, 0}), 2u);
    EXPECT_EQ(eval("setp.ne.u32 %p, %a, 0; setp.ne.u32 %q, %b, 0; or.pred %p, %p, %q; selp.u32 %x, 1, 2, %p;", {1, 0}), 1u);
}

TEST(IntOps, ShiftsClampAtWidth) {
    EXPECT_EQ(eval("shl.b32 %x, %a, %b;", {1, 31}), 0x80000000u);
    EXPECT_EQ(eval("shl.b32 %x, %a, %b;", {1, 32}), 0u);
    EXPECT_EQ(eval("shl.b32 %x, %a, %b;", {1, 1000}), 0u);
    EXPECT_EQ(eval("shr.u32 %x, %a, %b;", {0x80000000, 40}), 0u);
    EXPECT_EQ(eval("shr.s32 %x, %a, %b;", {0x80000000, 40}), 0xffffffffu);
    EXPECT_EQ(eval("shr.s32 %x, %a, %b;", {0x80000000, 4}), 0xf8000000u);
    EXPECT_EQ(eval("shl.b64 %x, %a, %b;", {1, 63}), 0x8000000000000000ull);
    EXPECT_EQ(eval("shr.b64 %x, %a, %b;", {~0ull, 64}), 0u);
    EXPECT_EQ(eval("shr.s16 %x, %a, %b;", {0x8000, 3}), 0xf000u);
    EXPECT_EQ(eval("shf.l.wrap.b32 %x, %a, %b, %c;", {0x80000000, 0x1, 33}), 0x3u);  // rotate-like: (b:a) << 1, high word
    EXPECT_EQ(eval("shf.r.clamp.b32 %x, %a, %b, %c;", {0x0, 0x1, 40}), 0x1u);        // clamp at 32: low word = b
    EXPECT_EQ(eval("shf.r.wrap.b32 %x, %a, %b, %c;", {0x10, 0x1, 4}), 0x10000001u);
}

TEST(IntOps, BitFieldsAndCounts) {
    EXPECT_EQ(eval("bfe.u32 %x, %a, 4, 8;", {0xabcd}), 0xbcu);
    EXPECT_EQ(eval("bfe.s32 %x, %a, 4, 8;", {0xabcd}), 0xffffffbcu);
    EXPECT_EQ(eval("bfe.u32 %x, %a, 28, 8;", {0xf0000000}), 0xfu);  // field runs off the top
    EXPECT_EQ(eval("bfe.s32 %x, %a, 28, 8;", {0xf0000000}), 0xffffffffu);
    EXPECT_EQ(eval("bfe.u32 %x, %a, 0, 0;", {0xffff}), 0u);
    EXPECT_EQ(eval("bfi.b32 %x, %a, %b, 8, 4;", {0xff, 0x12345678}), 0x12345f78u);
    EXPECT_EQ(eval("bfi.b64 %x, %a, %b, 32, 32;", {0xdeadbeef, 0x1}), 0xdeadbeef00000001ull);
    EXPECT_EQ(eval("popc.b32 %x, %a;", {0xf0f0}), 8u);
    EXPECT_EQ(eval("popc.b64 %x, %a;", {~0ull}), 64u);
    EXPECT_EQ(eval("clz.b32 %x, %a;", {1}), 31u);
    EXPECT_EQ(eval("clz.b32 %x, %a;", {0}), 32u);
    EXPECT_EQ(eval("clz.b64 %x, %a;", {1}), 63u);
    EXPECT_EQ(eval("brev.b32 %x, %a;", {1}), 0x80000000u);
    EXPECT_EQ(eval("bfind.u32 %x, %a;", {0x100}), 8u);
    EXPECT_EQ(eval("bfind.u32 %x, %a;", {0}), 0xffffffffu);
    EXPECT_EQ(eval("bfind.shiftamt.u32 %x, %a;", {0x100}), 23u);
    EXPECT_EQ(eval("bfind.s32 %x, %a;", {0xffffff00}), 7u);
}

TEST(IntOps, Permute) {
    EXPECT_EQ(eval("prmt.b32 %x, %a, %b, 0x3210;", {0x44332211, 0x88776655}), 0x44332211u);
    EXPECT_EQ(eval("prmt.b32 %x, %a, %b, 0x7654;", {0x44332211, 0x88776655}), 0x88776655u);
    EXPECT_EQ(eval("prmt.b32 %x, %a, %b, 0x0123;", {0x44332211, 0x88776655}), 0x11223344u);
    EXPECT_EQ(eval("prmt.b32 %x, %a, %b, 0x8880;", {0x00000080, 0}), 0xffffff80u);  // sign replicate of byte 0
}

TEST(IntOps, CompareAndSelect) {
    EXPECT_EQ(eval("setp.lt.s32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {static_cast<uint32_t>(-1), 0}), 1u);
    EXPECT_EQ(eval("setp.lt.u32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {static_cast<uint32_t>(-1), 0}), 0u);
    EXPECT_EQ(eval("setp.hi.u32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {5, 3}), 1u);
    EXPECT_EQ(eval("setp.ls.u32 %p, %a, %b; selp.u32 %x, 1, 0, %p;", {3, 3}), 1u);
    EXPECT_EQ(eval("setp.eq.s32 %p|%q, %a, %b; selp.u32 %x, 1, 0, %q;", {3, 4}), 1u);
    EXPECT_EQ(eval("setp.ne.u32 %q, %c, 0; setp.gt.s32.and %p, %a, %b, %q; selp.u32 %x, 1, 0, %p;", {5, 3, 0}), 0u);
    EXPECT_EQ(eval("setp.ne.u32 %q, %c, 0; setp.gt.s32.or %p, %a, %b, !%q; selp.u32 %x, 1, 0, %p;", {1, 3, 1}), 0u);
    EXPECT_EQ(eval("slct.u32.s32 %x, %a, %b, %c;", {10, 20, static_cast<uint32_t>(-1)}), 20u);
    EXPECT_EQ(eval("slct.u32.s32 %x, %a, %b, %c;", {10, 20, 0}), 10u);
    EXPECT_EQ(eval("sad.u32 %x, %a, %b, %c;", {3, 10, 100}), 107u);
}

}  // namespace
}  // namespace weft::gpusim
