// tests/gpusim/ptx/parse_ptx_test.cpp — malformed and unsupported PTX: each input must raise a
// PtxError whose text (file:line:col and sentence) is exactly the one checked here.
#include <gtest/gtest.h>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::parse_error;

std::string kernel(const std::string& body) {
    return std::string(testing::kHeader) + ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .pred %p;\n" + body +
           "\n}\n";
}

TEST(ParseErrors, ExactMessages) {
    // Line 8 is the first body line of kernel().
    EXPECT_EQ(parse_error(kernel("frobnicate.u32 %r1, %r2;")), "bad.ptx:8:1: error: unknown instruction 'frobnicate'");
    EXPECT_EQ(parse_error(kernel("add.u32 %r1, %r2;")), "bad.ptx:8:1: error: 'add' takes 3 operands, found 2");
    EXPECT_EQ(parse_error(kernel("add.u32 %r1, %r2, %r9;")), "bad.ptx:8:19: error: undeclared register '%r9'");
    EXPECT_EQ(parse_error(kernel("add.wobbly.u32 %r1, %r2, %r3;")), "bad.ptx:8:1: error: unknown modifier '.wobbly' on 'add'");
    EXPECT_EQ(parse_error(kernel("add %r1, %r2, %r3;")), "bad.ptx:8:1: error: 'add' needs a type, such as .u32 or .f32");
    EXPECT_EQ(parse_error(kernel("add.u32 %r1, %r2, %r3")),
              "bad.ptx:9:1: error: expected ';' after the operands of 'add.u32', found '}'");
    EXPECT_EQ(parse_error(kernel("bra $L_nowhere;")), "bad.ptx:8:5: error: branch to undefined label '$L_nowhere'");
    EXPECT_EQ(parse_error(kernel("add.u32 5, %r2, %r3;")),
              "bad.ptx:8:9: error: destination of 'add' must be a register, found a literal");
    EXPECT_EQ(parse_error(kernel("mov.f32 %r1, 0f3F80;")),
              "bad.ptx:8:14: error: malformed 0f float literal: expected 8 hex digits");
    EXPECT_EQ(parse_error(kernel("ld.global.u32 %r1, %r2;")),
              "bad.ptx:8:20: error: operand 2 of 'ld' must be an address in '[ ]'");
    EXPECT_EQ(parse_error(kernel("@%q bra $L;")), "bad.ptx:8:2: error: undeclared predicate register '%q'");
    EXPECT_EQ(parse_error(kernel("cvt.f32 %r1, %r2;")), "bad.ptx:8:1: error: 'cvt' needs two types, such as .f32.s32, found 1");
    EXPECT_EQ(parse_error(kernel("setp.u32 %p, %r1, %r2;")), "bad.ptx:8:1: error: setp needs a comparison such as .lt or .eq");
    EXPECT_EQ(parse_error(kernel("mov.u32 %tid.x, %r1;")), "bad.ptx:8:9: error: special register '%tid.x' cannot be written");
    EXPECT_EQ(parse_error(kernel("L1:\nL1:\nret;")), "bad.ptx:9:1: error: label 'L1' is defined twice");
    EXPECT_EQ(parse_error(kernel("call.uni missing, (p);")), "bad.ptx:8:10: error: call to undeclared function 'missing'");
    EXPECT_EQ(parse_error(kernel("mov.u32 %r1, #;")), "bad.ptx:8:14: error: unexpected character '#'");
    EXPECT_EQ(parse_error(kernel("/* never closed")), "bad.ptx:8:1: error: unterminated /* comment");
    EXPECT_EQ(parse_error(kernel("griddepcontrol;")), "bad.ptx:8:1: error: 'griddepcontrol' needs .wait or .launch_dependents");
    EXPECT_EQ(parse_error(kernel("griddepcontrol.wobbly;")),
              "bad.ptx:8:1: error: unknown modifier '.wobbly' on 'griddepcontrol'");
    EXPECT_EQ(parse_error(kernel("griddepcontrol.wait %r1;")), "bad.ptx:8:1: error: 'griddepcontrol' takes 0 operands, found 1");
}

TEST(ParseErrors, ModuleLevel) {
    EXPECT_EQ(parse_error(".version 8.0\n.target sm_90\n.address_size 32\n"),
              "bad.ptx:3:1: error: only .address_size 64 is supported, found 32");
    EXPECT_EQ(
        parse_error(".version 8.0\nadd.u32 %r1, %r2, %r3;\n"),
        "bad.ptx:2:1: error: expected a directive such as .version, .entry, .func or .global at module scope, found 'add.u32'");
    EXPECT_EQ(parse_error(std::string(testing::kHeader) + ".visible .entry k(\n.param .u64 p\n{\nret;\n}\n"),
              "bad.ptx:6:1: error: expected ',' between parameters of 'k', found '{'");
    EXPECT_EQ(parse_error(std::string(testing::kHeader) + ".visible .entry k()\n{\nret;\n"),
              "bad.ptx:5:1: error: missing '}': the block that starts here is never closed");
    EXPECT_EQ(parse_error(std::string(testing::kHeader) + ".global .align 3 .b8 x[4];\n"),
              "bad.ptx:4:9: error: alignment 3 is not a power of two up to 4096");
    EXPECT_EQ(parse_error(std::string(testing::kHeader) + ".global .u32 x[2] = {1, 2, 3};\n"),
              "bad.ptx:4:28: error: too many initialiser values for a 8-byte variable");
}

TEST(ParseErrors, AcceptsNvrtcForms) {
    // Scoped register redeclaration, call sequences, .loc with inlined_at, .section, pragmas,
    // performance directives, extern shared, struct params, module initialisers.
    const std::string ptx = std::string(testing::kHeader) +
                            ".global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
                            ".extern .shared .align 16 .b8 dyn[];\n"
                            ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n;\n"
                            ".visible .entry k(.param .align 8 .b8 k_param_0[24]) .maxntid 256, 1, 1 .minnctapersm 2\n{\n"
                            ".reg .b32 %r<3>;\n.loc 1 5 3\n.pragma \"nounroll\";\n"
                            "{ .reg .b32 %r0; mov.u32 %r0, 1; }\n"
                            "{ // callseq 0, 0\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n.param .b32 retval0;\n"
                            "call.uni (retval0), \nf, \n(\nparam0\n);\nld.param.b32 %r2, [retval0+0];\n} // callseq 0\n"
                            ".loc 2 84 3, function_name $L__info_string0, inlined_at 1 9 3\nret;\n}\n"
                            ".func (.param .b32 func_retval0) f(.param .b32 f_param_0)\n{\n.reg .b32 %r<2>;\n"
                            "ld.param.b32 %r1, [f_param_0];\nst.param.b32 [func_retval0+0], %r1;\nret;\n}\n"
                            ".file 1 \"k.cu\"\n.file 2 \"inc.h\", 1700000000, 1234\n"
                            ".section .debug_str\n{\n$L__info_string0:\n.b8 95,90,0\n}\n";
    EXPECT_EQ(parse_error(ptx), "");
    const Module m = parse_ptx(ptx, "ok.ptx");
    const Function* k = m.find_function("k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->param_bytes, 24u);
    EXPECT_EQ(k->maxntid[0], 256u);
    EXPECT_EQ(k->minnctapersm, 2u);
    EXPECT_EQ(m.files().at(2), "inc.h");
    EXPECT_EQ(m.global_symbol("table").size(), 8u);
    EXPECT_EQ(static_cast<int>(m.global_symbol("table")[7]), 8);
}

TEST(ParseErrors, NeverCrashesOnTruncations) {
    // Every prefix of a real module either parses or throws PtxError.
    const std::string ptx = testing::read_file(std::string(GPUSIM_PTX_DIR) + "/shared.ptx");
    if (ptx.empty()) GTEST_SKIP() << "no nvcc-generated PTX";
    for (size_t n = 0; n < ptx.size(); n += 7) {
        try {
            parse_ptx(std::string_view(ptx).substr(0, n), "prefix.ptx");
        } catch (const PtxError&) {}
    }
}

}  // namespace
}  // namespace weft::gpusim
