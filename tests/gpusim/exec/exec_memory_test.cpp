// tests/gpusim/exec/exec_memory_test.cpp — loads and stores in every state space (global = host memory,
// module variables, shared, local, parameters, generic addresses), vectors, and the errors
// for accesses outside shared/local/param space.
#include <gtest/gtest.h>

#include "gpusim/timing/timing.h"
#include "ptx_harness.h"

namespace weft::gpusim {
namespace {
using testing::kHeader;

std::string entry(const std::string& params, const std::string& body, const std::string& decls = "") {
    return std::string(kHeader) + decls + ".visible .entry k(" + params +
           ")\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n.reg .pred %p;\n" + body + "\nret;\n}\n";
}

std::string sim_error(const Module& m, std::span<const std::byte> params, Dim3 block = {1, 1, 1}) {
    try {
        launch(m, "k", {1, 1, 1}, block, params);
    } catch (const SimError& e) { return e.what(); }
    return "";
}

TEST(Memory, VectorLoadsAndStores) {
    const Module m = parse_ptx(entry(".param .u64 in, .param .u64 out",
                                     "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
                                     "ld.global.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1];\n"
                                     "st.global.v4.f32 [%rd2], {%f3, %f2, %f1, %f0};\n"
                                     "ld.global.nc.v2.u32 {%r0, %r1}, [%rd1+16];\n"
                                     "st.global.v2.u32 [%rd2+16], {%r1, %r0};"),
                               "v.ptx");
    alignas(16) float in[6] = {1, 2, 3, 4, 0, 0};
    alignas(16) float out[6] = {};
    reinterpret_cast<uint32_t*>(in)[4] = 7;
    reinterpret_cast<uint32_t*>(in)[5] = 9;
    ParamPacker p;
    p.add(&in[0]).add(&out[0]);
    launch(m, "k", {1, 1, 1}, {1, 1, 1}, p.bytes());
    EXPECT_EQ(out[0], 4.f);
    EXPECT_EQ(out[3], 1.f);
    EXPECT_EQ(reinterpret_cast<uint32_t*>(out)[4], 9u);
    EXPECT_EQ(reinterpret_cast<uint32_t*>(out)[5], 7u);
}

TEST(Memory, SignedAndUnsignedNarrowLoads) {
    const Module m = parse_ptx(entry(".param .u64 in, .param .u64 out",
                                     "ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];\n"
                                     "ld.global.s8 %r0, [%rd1]; ld.global.u8 %r1, [%rd1]; ld.global.s16 %r2, [%rd1];\n"
                                     "st.global.u32 [%rd2], %r0; st.global.u32 [%rd2+4], %r1; st.global.u32 [%rd2+8], %r2;\n"
                                     "st.global.u8 [%rd2+12], %r2;"),
                               "n.ptx");
    uint16_t in = 0x80f0;
    uint32_t out[4] = {0, 0, 0, 0xaaaaaaaa};
    ParamPacker p;
    p.add(&in).add(&out[0]);
    launch(m, "k", {1, 1, 1}, {1, 1, 1}, p.bytes());
    EXPECT_EQ(out[0], 0xfffffff0u);
    EXPECT_EQ(out[1], 0xf0u);
    EXPECT_EQ(out[2], 0xffff80f0u);
    EXPECT_EQ(out[3], 0xaaaaaaf0u);  // st.u8 wrote one byte
}

TEST(Memory, ModuleVariablesAndConstants) {
    const Module m =
        parse_ptx(entry(".param .u64 out",
                        "ld.param.u64 %rd1, [out];\n"
                        "ld.const.f32 %f0, [coeffs+4];\n"
                        "ld.global.u32 %r0, [counter];\n"
                        "add.u32 %r0, %r0, 1; st.global.u32 [counter], %r0;\n"
                        "mov.u64 %rd2, coeffs; ld.f32 %f1, [%rd2+8];\n"
                        "add.f32 %f0, %f0, %f1; st.global.f32 [%rd1], %f0;",
                        ".const .align 4 .f32 coeffs[3] = {0f3F800000, 0f40000000, 0f40400000};\n.global .u32 counter = 41;\n"),
                  "g.ptx");
    float out = 0;
    ParamPacker p;
    p.add(&out);
    launch(m, "k", {1, 1, 1}, {1, 1, 1}, p.bytes());
    EXPECT_EQ(out, 5.0f);
    uint32_t counter;
    std::memcpy(&counter, m.global_symbol("counter").data(), 4);
    EXPECT_EQ(counter, 42u);
}

TEST(Memory, SharedAndLocalThroughGenericAddresses) {
    const Module m = parse_ptx(entry(".param .u64 out",
                                     ".local .align 4 .b8 depot[16];\n.shared .align 4 .b8 sh[128];\n"
                                     "ld.param.u64 %rd1, [out];\nmov.u32 %r0, %tid.x;\n"
                                     "mov.u64 %rd2, depot; cvta.local.u64 %rd3, %rd2;\n"
                                     "st.u32 [%rd3+4], %r0;\nld.local.u32 %r1, [depot+4];\n"
                                     "mov.u64 %rd4, sh; cvta.shared.u64 %rd5, %rd4;\n"
                                     "mul.wide.u32 %rd6, %r0, 4; add.s64 %rd5, %rd5, %rd6; st.u32 [%rd5], %r1;\n"
                                     "bar.sync 0;\n"
                                     "xor.b32 %r2, %r0, 1; shl.b32 %r2, %r2, 2; ld.shared.u32 %r3, [%r2];\n"
                                     "isspacep.shared %p, %rd5; selp.u32 %r4, 100, 0, %p; add.u32 %r3, %r3, %r4;\n"
                                     "cvta.to.shared.u64 %rd7, %rd5; cvt.u32.u64 %r5, %rd7; add.u32 %r3, %r3, %r5;\n"
                                     "add.s64 %rd1, %rd1, %rd6; st.global.u32 [%rd1], %r3;"),
                               "s.ptx");
    std::vector<uint32_t> out(32);
    ParamPacker p;
    p.add(out.data());
    launch(m, "k", {1, 1, 1}, {32, 1, 1}, p.bytes());
    for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(out[t], (t ^ 1) + 100 + 4 * t) << t;
}

TEST(Memory, OutOfBoundsAndBadPointersAreErrors) {
    const Module shared =
        parse_ptx(entry("", ".shared .align 4 .b8 sh[64];\nmov.u32 %r0, 64; st.shared.u32 [%r0], %r0;"), "e.ptx");
    EXPECT_EQ(sim_error(shared, {}),
              "kernel 'k' block (0,0,0) thread (0,0,0): shared memory write out of bounds: 4 bytes at offset 64, the block has "
              "64 bytes of shared memory\n"
              "  at PTX line 11: st.shared.u32 [%r0], %r0;");
    const Module local = parse_ptx(entry("", ".local .align 4 .b8 d[8];\nld.local.u32 %r0, [d+16];"), "e.ptx");
    EXPECT_NE(sim_error(local, {}).find(
                  "local memory read out of bounds: 4 bytes at offset 16, each thread has 16 bytes of local memory"),
              std::string::npos);
    const Module param = parse_ptx(entry(".param .u32 a", "ld.param.u32 %r0, [a+4];"), "e.ptx");
    uint32_t a = 0;
    ParamPacker pa;
    pa.add(a);
    EXPECT_NE(sim_error(param, pa.bytes())
                  .find("kernel parameter read out of bounds: 4 bytes at offset 4, the kernel has 4 bytes of parameters"),
              std::string::npos);
    const Module null = parse_ptx(entry(".param .u64 p", "ld.param.u64 %rd0, [p]; ld.global.u32 %r0, [%rd0+8];"), "e.ptx");
    ParamPacker pn;
    pn.add(uint64_t{0});
    EXPECT_NE(sim_error(null, pn.bytes()).find("global read through a null pointer (address 0x8)"), std::string::npos);
    const Module misaligned =
        parse_ptx(entry("", ".shared .align 4 .b8 sh[64];\nmov.u32 %r0, 2; ld.shared.u32 %r1, [%r0];"), "e.ptx");
    EXPECT_NE(sim_error(misaligned, {}).find("misaligned 4-byte read at address 0x2"), std::string::npos);
    const Module generic_shared = parse_ptx(
        entry("", ".shared .align 4 .b8 sh[64];\nmov.u64 %rd0, sh; cvta.shared.u64 %rd0, %rd0; st.u32 [%rd0+1024], %r0;"),
        "e.ptx");
    EXPECT_NE(sim_error(generic_shared, {}).find("shared memory write out of bounds: 4 bytes at offset 1024"), std::string::npos);
}

// With a map of the launch's buffers, a global access outside all of them is an error that
// names the array it ran past, instead of a read of whatever host memory lies there.
TEST(Memory, AccessPastAnArrayIsAnErrorWithAMap) {
    const Module m = parse_ptx(entry(".param .u64 p, .param .u64 q",
                                     "ld.param.u64 %rd0, [p]; ld.param.u64 %rd1, [q]; mov.u32 %r0, %tid.x; mul.wide.u32 %rd2, "
                                     "%r0, 4; add.u64 %rd3, %rd0, %rd2;\n"
                                     "ld.global.u32 %r1, [%rd3+4]; add.u64 %rd4, %rd1, %rd2; st.global.u32 [%rd4], %r1;"),
                               "oob.ptx");
    std::vector<uint32_t> in(64, 7), out(64, 0);
    ParamPacker p;
    p.add(in.data()).add(out.data());
    GlobalMemoryMap map;
    map.add(reinterpret_cast<uint64_t>(in.data()), 64 * 4, "values");
    map.add(reinterpret_cast<uint64_t>(out.data()), 64 * 4, "out");
    LaunchOptions o;
    o.global_memory = &map;
    // 63 threads read in[1..63]: inside.
    launch(m, "k", {1, 1, 1}, {63, 1, 1}, p.bytes(), o);
    EXPECT_EQ(out[62], 7u);
    // Thread 63 reads in[64], the first word past the end.
    std::string msg;
    try {
        launch(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), o);
    } catch (const SimError& e) { msg = e.what(); }
    char addr[32], base[32];
    std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uint64_t>(in.data() + 64)));
    std::snprintf(base, sizeof base, "0x%llx", static_cast<unsigned long long>(reinterpret_cast<uint64_t>(in.data())));
    EXPECT_EQ(msg, std::string("kernel 'k' block (0,0,0) thread (63,0,0): global read of 4 bytes at ") + addr +
                       " is outside every buffer of the launch: 0 bytes past the end of array 'values' (256 bytes at " + base +
                       ")\n  at PTX line 11: ld.global.u32 %r1, [%rd3+4];");
    // The same launch on the timing model reports the same error.
    TimingOptions t;
    t.registers_per_thread = 16;
    t.launch.global_memory = &map;
    std::string timed;
    try {
        launch_timed(m, "k", {1, 1, 1}, {64, 1, 1}, p.bytes(), t);
    } catch (const SimError& e) { timed = e.what(); }
    EXPECT_EQ(timed, msg);
    // A store before an array's start names that array too.
    EXPECT_NE(map.describe(reinterpret_cast<uint64_t>(out.data()) - 8).find("8 bytes before array 'out'"), std::string::npos);
}

// Device addresses: an allocation added with one maps itself and the arrays inside it; a range
// without one is placed in the order added, 512-byte aligned; other addresses are left alone.
TEST(Memory, MapGivesDeviceAddresses) {
    GlobalMemoryMap map;
    map.add(0x5000, 0x1000, "", 0x7f0000000000);
    map.add(0x5100, 0x100, "x");   // inside the allocation: its address follows
    map.add(0x90010, 0x30, "y");   // outside: placed first
    map.add(0x20008, 0x600, "z");  // then this one, at the next 512-byte boundary
    EXPECT_EQ(map.device_address(0x5000), 0x7f0000000000u);
    EXPECT_EQ(map.device_address(0x5104), 0x7f0000000104u);
    EXPECT_EQ(map.device_address(0x90010), kForeignDeviceBase);
    EXPECT_EQ(map.device_address(0x9003c), kForeignDeviceBase + 0x2c);
    EXPECT_EQ(map.device_address(0x20008), kForeignDeviceBase + 512);
    EXPECT_EQ(map.device_address(0x20608), 0x20608u);  // one past z: not in the map
    EXPECT_EQ(GlobalMemoryMap().device_address(0x1234), 0x1234u);
}

// The timing model sees device addresses: the same gather with its buffers at different host
// addresses (one word apart) reports the same cycles and sectors when the map gives
// them the same device addresses, and the host placement's cost without a map.
TEST(Memory, TimingDependsOnDeviceAddressesNotHostOnes) {
    const Module m = parse_ptx(entry(".param .u64 p, .param .u64 q",
                                     "ld.param.u64 %rd0, [p]; ld.param.u64 %rd1, [q]; mov.u32 %r0, %tid.x; mov.u32 %r2, %ctaid.x;"
                                     " mad.lo.u32 %r0, %r2, 128, %r0; mul.wide.u32 %rd2, %r0, 4; add.u64 %rd3, %rd0, %rd2;\n"
                                     "ld.global.u32 %r1, [%rd3]; add.u64 %rd4, %rd1, %rd2; st.global.u32 [%rd4], %r1;"),
                               "gather.ptx");
    const size_t n = 128 * 64;
    std::vector<uint32_t> in(n + 64, 1), out(n + 64, 0);
    TimingOptions t;
    t.registers_per_thread = 16;
    auto run = [&](size_t shift, bool mapped) {
        uint32_t* a = in.data() + shift;
        uint32_t* b = out.data() + shift;
        ParamPacker p;
        p.add(a).add(b);
        GlobalMemoryMap map;
        map.add(reinterpret_cast<uint64_t>(a), n * 4, "in", 0x7f0000000000);
        map.add(reinterpret_cast<uint64_t>(b), n * 4, "out", 0x7f0000100000);
        t.launch.global_memory = mapped ? &map : nullptr;
        return launch_timed(m, "k", {64, 1, 1}, {128, 1, 1}, p.bytes(), t);
    };
    // Host addresses one word apart: at most one of the two is 32-byte aligned.
    const TimingResult x = run(0, true), y = run(1, true);
    EXPECT_EQ(x.cycles, y.cycles);
    EXPECT_EQ(x.total.global_sectors, y.total.global_sectors);
    // Aligned device buffers: a warp's 128-byte load and store take 4 sectors each.
    EXPECT_EQ(x.total.global_sectors, n / 32 * 8);
    // Unmapped, the host placement shows: a misaligned buffer takes a fifth sector per request.
    const TimingResult u = run(0, false), v = run(1, false);
    EXPECT_EQ(std::max(u.total.global_sectors, v.total.global_sectors), n / 32 * 10);
}

TEST(Memory, LaunchChecksParameters) {
    const Module m = parse_ptx(entry(".param .u64 a, .param .u32 b, .param .align 8 .b8 s[12]", ""), "p.ptx");
    const Function* k = m.find_function("k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->params[1].offset, 8u);
    EXPECT_EQ(k->params[2].offset, 16u);
    EXPECT_EQ(k->param_bytes, 28u);
    std::vector<std::byte> few(8);
    try {
        launch(m, "k", {1, 1, 1}, {1, 1, 1}, few);
        FAIL();
    } catch (const SimError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "launch of kernel 'k': the kernel takes 28 bytes of parameters, 8 were given; layout:\n"
                  "  a: offset 0, 8 bytes, align 8\n  b: offset 8, 4 bytes, align 4\n  s: offset 16, 12 bytes, align 8");
    }
    try {
        launch(m, "nope", {1, 1, 1}, {1, 1, 1}, few);
        FAIL();
    } catch (const SimError& e) { EXPECT_EQ(std::string(e.what()), "module 'p.ptx' has no kernel named 'nope' (kernels: k)"); }
}

}  // namespace
}  // namespace weft::gpusim
