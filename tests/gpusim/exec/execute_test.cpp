// tests/gpusim/exec/execute_test.cpp — SIMT divergence on hand-written PTX, barriers (exited
// threads, named barriers with counts, deadlocks), the instruction limit, predicated exits.
#include <gtest/gtest.h>

#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::kHeader;

std::string entry(const std::string& body) {
    return std::string(kHeader) +
           ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n" +
           "ld.param.u64 %rd1, [out];\nmov.u32 %r0, %tid.x;\nmul.wide.u32 %rd2, %r0, 4;\nadd.s64 %rd1, %rd1, %rd2;\n" + body +
           "\nret;\n}\n";
}

std::string run_error(const std::string& ptx, uint32_t threads, LaunchOptions opts = {}) {
    const Module m = parse_ptx(ptx, "cf.ptx");
    std::vector<uint32_t> out(threads);
    ParamPacker p;
    p.add(out.data());
    try {
        launch(m, "k", {1, 1, 1}, {threads, 1, 1}, p.bytes(), opts);
    } catch (const SimError& e) { return e.what(); }
    return "";
}

std::vector<uint32_t> run(const std::string& ptx, uint32_t threads) {
    const Module m = parse_ptx(ptx, "cf.ptx");
    std::vector<uint32_t> out(threads, 0xdead);
    ParamPacker p;
    p.add(out.data());
    launch(m, "k", {1, 1, 1}, {threads, 1, 1}, p.bytes());
    return out;
}

TEST(ControlFlow, IfElseReconvergesBeforeTheStore) {
    // Lanes take different paths, then all store at the reconvergence point.
    const auto out =
        run(entry("setp.lt.u32 %p1, %r0, 5;\n@%p1 bra THEN;\nmov.u32 %r1, 200;\nbra.uni JOIN;\nTHEN:\nmov.u32 %r1, 100;\n"
                  "JOIN:\nadd.u32 %r1, %r1, %r0;\nst.global.u32 [%rd1], %r1;"),
            40);
    for (uint32_t t = 0; t < 40; ++t) EXPECT_EQ(out[t], (t < 5 ? 100 : 200) + t);
}

TEST(ControlFlow, LoopWithLaneDependentTripCount) {
    const auto out =
        run(entry("mov.u32 %r1, 0;\nmov.u32 %r2, 0;\nLOOP:\nsetp.ge.u32 %p1, %r2, %r0;\n@%p1 bra DONE;\nadd.u32 %r1, %r1, %r2;\n"
                  "add.u32 %r2, %r2, 1;\nbra.uni LOOP;\nDONE:\nst.global.u32 [%rd1], %r1;"),
            64);
    for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t * (t - (t > 0 ? 1 : 0)) / 2 + (t == 0 ? 0 : 0)) << t;
}

TEST(ControlFlow, PredicatedExitAndBarrier) {
    // Threads >= 40 exit; the barrier then waits only for the 40 that remain.
    const auto out = run(entry("setp.ge.u32 %p1, %r0, 40;\n@%p1 exit;\nbar.sync 0;\nst.global.u32 [%rd1], 7;"), 64);
    for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(out[t], t < 40 ? 7u : 0xdeadu);
}

TEST(ControlFlow, NamedBarrierWithCount) {
    // Warp 0 and warp 1 sync on barrier 1 (64 threads); warp 2 never touches it.
    const auto out =
        run(entry("setp.ge.u32 %p1, %r0, 64;\n@%p1 bra SKIP;\nbar.sync 1, 64;\nSKIP:\nst.global.u32 [%rd1], 3;"), 96);
    for (uint32_t t = 0; t < 96; ++t) EXPECT_EQ(out[t], 3u);
}

TEST(ControlFlow, WarpsAtDifferentBarriersDeadlock) {
    const std::string msg =
        run_error(entry("setp.ge.u32 %p1, %r0, 32;\n@%p1 bra B1;\nbar.sync 0;\nbra.uni END;\nB1:\nbar.sync 1;\nEND:"), 64);
    EXPECT_NE(msg.find("kernel 'k' block (0,0,0): barrier deadlock"), std::string::npos) << msg;
    EXPECT_NE(msg.find("barrier 0: 32 of 64 threads arrived"), std::string::npos) << msg;
    EXPECT_NE(msg.find("barrier 1: 32 of 64 threads arrived"), std::string::npos) << msg;
    EXPECT_NE(
        msg.find("warp 1 waits at barrier 1 with 32 of its 32 non-exited lanes (0xffffffff)\n    at PTX line 18: bar.sync 1;"),
        std::string::npos)
        << msg;
}

TEST(ControlFlow, EndlessLoopHitsTheInstructionLimit) {
    LaunchOptions opts;
    opts.max_warp_instructions = 10000;
    const std::string msg = run_error(entry("SPIN:\nbra.uni SPIN;"), 32, opts);
    EXPECT_NE(msg.find("exceeded LaunchOptions::max_warp_instructions (10000)"), std::string::npos) << msg;
}

TEST(ControlFlow, TrapIsAnError) {
    const std::string msg = run_error(entry("setp.eq.u32 %p1, %r0, 3;\n@%p1 trap;"), 32);
    EXPECT_EQ(msg, "kernel 'k' block (0,0,0) thread (3,0,0): trap instruction executed\n  at PTX line 14: @%p1 trap;");
}

TEST(ControlFlow, DeterministicAcrossHostThreads) {
    // Many blocks with divergence and shared memory: identical output and counts for 1 and 4 threads.
    const std::string ptx =
        std::string(kHeader) +
        ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n.shared .align 4 .b8 "
        "sh[512];\n"
        "ld.param.u64 %rd1, [out];\nmov.u32 %r0, %tid.x;\nmov.u32 %r1, %ctaid.x;\nmad.lo.u32 %r2, %r1, 128, %r0;\n"
        "shl.b32 %r3, %r0, 2;\nmul.lo.u32 %r4, %r2, 2654435761;\nst.shared.u32 [%r3], %r4;\nbar.sync 0;\n"
        "xor.b32 %r5, %r0, 37;\nand.b32 %r5, %r5, 127;\nshl.b32 %r5, %r5, 2;\nld.shared.u32 %r6, [%r5];\n"
        "and.b32 %r7, %r6, 7;\nLOOP:\nsetp.eq.u32 %p1, %r7, 0;\n@%p1 bra DONE;\nmul.lo.u32 %r6, %r6, 3;\nsub.u32 %r7, %r7, "
        "1;\nbra.uni LOOP;\n"
        "DONE:\nmul.wide.u32 %rd2, %r2, 4;\nadd.s64 %rd2, %rd1, %rd2;\nst.global.u32 [%rd2], %r6;\nret;\n}\n";
    const Module m = parse_ptx(ptx, "det.ptx");
    auto go = [&](int threads, std::vector<uint32_t>& out) {
        ParamPacker p;
        p.add(out.data());
        LaunchOptions opts;
        opts.threads = threads;
        return to_json(launch(m, "k", {50, 1, 1}, {128, 1, 1}, p.bytes(), opts));
    };
    std::vector<uint32_t> a(50 * 128), b(50 * 128);
    EXPECT_EQ(go(1, a), go(4, b));
    EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace weft::gpusim
