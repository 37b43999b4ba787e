// tests/gpusim/timing/timed_launch_test.cpp — the timing model: same functional results and counts as
// launch(), determinism across host thread counts, stall and bank-conflict accounting, the
// scheduler policies, the JSON / JSONL / Chrome-trace writers.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusim/arch/json_reader.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_map.h"
#include "gpusim/timing/timing.h"
#include "ptx_harness.h"

namespace weft::gpusim {
namespace {

// out[i] = in[i] + in[i ^ 1] through shared memory with a bar.sync; the shared index is
// tid * stride (in words) so the test can make bank conflicts.
const char* kPtx = R"(.version 8.0
.target sm_90
.address_size 64
.file 1 "k.py"
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 stride)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b8 s[32768];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r7, [stride];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.s32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  .loc 1 10 1
  ld.global.f32 %f1, [%rd4];
  mul.lo.s32 %r5, %r1, %r7;
  shl.b32 %r5, %r5, 2;
  mov.u32 %r6, s;
  add.s32 %r5, %r6, %r5;
  .loc 1 11 1
  st.shared.f32 [%r5], %f1;
  bar.sync 0;
  xor.b32 %r6, %r1, 1;
  mul.lo.s32 %r6, %r6, %r7;
  shl.b32 %r6, %r6, 2;
  mov.u32 %r3, s;
  add.s32 %r6, %r3, %r6;
  .loc 1 12 1
  ld.shared.f32 %f2, [%r6];
  add.f32 %f3, %f1, %f2;
  add.s64 %rd5, %rd2, %rd3;
  .loc 1 13 1
  st.global.f32 [%rd5], %f3;
  ret;
}
)";

struct TimedRun {
    TimingResult r;
    std::vector<float> out;
};

TimedRun run(uint32_t stride, int threads, SchedulerFactory sched = gto_scheduler(), std::ostream* trace = nullptr) {
    static const Module m = parse_ptx(kPtx, "k.ptx");
    const uint32_t n = 256 * 300;
    // 128-byte aligned like cudaMalloc's, so a warp's 128 bytes are 4 sectors.
    static std::vector<float> in_store(n + 64);
    float* in = in_store.data() + (128 - reinterpret_cast<uintptr_t>(in_store.data()) % 128) / 4;
    for (uint32_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 97);
    TimedRun out;
    // The output 128-byte aligned too: a store's cost depends on the lines it writes, so a
    // heap-placed vector would make cycles depend on where malloc put it.
    static std::vector<float> out_store(n + 64);
    float* dst = out_store.data() + (128 - reinterpret_cast<uintptr_t>(out_store.data()) % 128) / 4;
    std::fill(dst, dst + n, -1.0f);
    ParamPacker p;
    p.add(in).add(dst).add(stride);
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.registers_per_thread = 16;
    o.static_shared_bytes = 1024;
    o.threads = threads;
    o.scheduler = std::move(sched);
    o.instruction_trace = trace;
    o.trace_filter.sm = 0;
    o.trace_filter.max_records = 50;
    out.r = launch_timed(m, "k", {300, 1, 1}, {256, 1, 1}, p.bytes(), o);
    out.out.assign(dst, dst + n);
    for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out.out[i], in[i] + in[i ^ 1u]) << i;
    return out;
}

TEST(Timing, CountsMatchFunctionalLaunch) {
    const Module m = parse_ptx(kPtx, "k.ptx");
    const uint32_t n = 256 * 300;
    std::vector<float> in(n, 1.0f), out(n);
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(uint32_t{1});
    const LaunchResult f = launch(m, "k", {300, 1, 1}, {256, 1, 1}, p.bytes());
    const TimedRun t = run(1, 1);
    EXPECT_EQ(t.r.counts.total, f.total);
    ASSERT_EQ(t.r.counts.per_line.size(), f.per_line.size());
    for (size_t i = 0; i < f.per_line.size(); ++i) EXPECT_EQ(t.r.counts.per_line[i].counts, f.per_line[i].counts);
    EXPECT_GT(t.r.cycles, 0u);
    EXPECT_EQ(t.r.occupancy.blocks_per_sm, 8);
    EXPECT_GT(t.r.achieved_occupancy, 0.0);
    EXPECT_LE(t.r.achieved_occupancy, 1.0);
    EXPECT_LT(t.r.issued_instructions, f.total.warp_instructions);  // ld.param, cvta, mov folded
}

TEST(Timing, DeterministicAcrossHostThreads) {
    const TimedRun a = run(1, 1), b = run(1, 3);
    EXPECT_EQ(a.r.cycles, b.r.cycles);
    ASSERT_EQ(a.r.per_instruction.size(), b.r.per_instruction.size());
    for (size_t i = 0; i < a.r.per_instruction.size(); ++i)
        for (int s = 0; s < kNumStalls; ++s)
            EXPECT_EQ(a.r.per_instruction[i].stall_cycles[s], b.r.per_instruction[i].stall_cycles[s]);
    EXPECT_EQ(a.r.dram_read_bytes, b.r.dram_read_bytes);
}

// A CAS loop on one word from every thread of 264 blocks: how often a lane retries depends on
// the order in which the SMs' atomics reach the word. The kernel reads what its atomics return,
// so launch_timed runs it in SM order on one thread whatever TimingOptions::threads says: the
// report and the result are the same on 1, 2 and 4 threads.
TEST(Timing, KernelsReadingAtomicResultsReportTheSameOnAnyThreadCount) {
    const Module m = parse_ptx(R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry casmax(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  ld.global.u32 %r5, [%rd1];
$L_retry:
  max.s32 %r6, %r5, %r4;
  atom.global.cas.b32 %r7, [%rd1], %r5, %r6;
  setp.ne.s32 %p1, %r7, %r5;
  mov.u32 %r5, %r7;
  @%p1 bra $L_retry;
  ret;
}
)",
                               "casmax.ptx");
    std::string first;
    for (int threads : {1, 2, 4}) {
        alignas(128) static int32_t word[32];
        word[0] = 0;
        GlobalMemoryMap buffers;
        buffers.add(reinterpret_cast<uint64_t>(word), sizeof word, "word", uint64_t{1} << 40);
        ParamPacker p;
        p.add(&word[0]);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 16;
        o.threads = threads;
        o.launch.global_memory = &buffers;
        const TimingResult r = launch_timed(m, "casmax", {264, 1, 1}, {128, 1, 1}, p.bytes(), o);
        EXPECT_EQ(word[0], 264 * 128 - 1) << threads << " threads";
        EXPECT_GT(r.counts.total.atomics, uint64_t{264 * 128});  // some lanes retried
        std::ostringstream json;
        write_timing_json(json, r);
        if (threads == 1)
            first = json.str();
        else
            EXPECT_EQ(json.str(), first) << threads << " threads";
    }
}

TEST(Timing, BankConflictsCostWavefrontsAndCycles) {
    const TimedRun a = run(1, 1), b = run(32, 1);
    // Line 12 is the shared load: 8 warps x 300 blocks requests.
    auto line = [](const TimedRun& r, int l) {
        for (size_t i = 0; i < r.r.counts.per_line.size(); ++i)
            if (r.r.counts.per_line[i].line == l) return r.r.per_line[i];
        return TimingCounters{};
    };
    EXPECT_EQ(line(a, 12).shared_wavefronts, 2400u);
    EXPECT_EQ(line(a, 12).shared_excess_wavefronts(), 0u);
    EXPECT_EQ(line(b, 12).shared_wavefronts, 2400u * 32);
    EXPECT_EQ(line(b, 12).shared_excess_wavefronts(), 2400u * 31);
    EXPECT_GT(b.r.cycles, a.r.cycles);
    EXPECT_GT(line(a, 10).stall_cycles[static_cast<int>(Stall::LongScoreboard)] +
                  line(a, 11).stall_cycles[static_cast<int>(Stall::LongScoreboard)],
              0u);
    EXPECT_EQ(line(a, 10).global_sectors, 2400u * 4);
    EXPECT_DOUBLE_EQ(static_cast<double>(line(a, 10).global_sectors) / static_cast<double>(line(a, 10).global_requests), 4.0);
}

// dram.loaded_latency: a flat curve adds its cycles to every DRAM access; a curve of zeros is the
// unloaded model; a curve that depends on the chip's DRAM traffic gives the same result for any
// number of host threads (the traffic is merged between epochs).
TEST(Timing, DramLoadedLatency) {
    const Module m = parse_ptx(kPtx, "k.ptx");
    const uint32_t n = 256 * 300;
    std::vector<float> in_store(n + 64), out_store(n + 64);
    float* in = in_store.data() + (128 - reinterpret_cast<uintptr_t>(in_store.data()) % 128) / 4;
    float* dst = out_store.data() + (128 - reinterpret_cast<uintptr_t>(out_store.data()) % 128) / 4;
    auto timed = [&](std::vector<std::pair<double, double>> curve, int threads, int registers = 16) {
        ParamPacker p;
        p.add(in).add(dst).add(uint32_t{1});
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.arch.dram_loaded_latency = std::move(curve);
        // Blocks placed in parallel (no block unit), so that a wave is issued all at once.
        o.arch.block_start_cycles = 0;
        o.arch.block_retire_cycles = 0;
        o.registers_per_thread = registers;
        o.static_shared_bytes = 1024;
        o.threads = threads;
        return launch_timed(m, "k", {300, 1, 1}, {256, 1, 1}, p.bytes(), o);
    };
    const TimingResult base = timed({{0, 0}}, 1);
    EXPECT_EQ(timed({{0, 0}, {1, 0}}, 1).cycles, base.cycles);
    // One wave of blocks (300 <= 132 x 8), each waiting on its global load, which misses to DRAM:
    // the kernel ends about 1000 cycles later.
    const TimingResult slow = timed({{0, 1000}}, 1);
    EXPECT_GE(slow.cycles, base.cycles + 1000);
    EXPECT_LE(slow.cycles, base.cycles + 1100);
    EXPECT_EQ(slow.dram_read_bytes, base.dram_read_bytes);
    // The extra latency of an epoch comes from the traffic of the epochs before it: a wave issued
    // all at once sees none of its own, later waves see the traffic of the ones before. With 255
    // registers per thread one block fits an SM: three waves.
    const std::vector<std::pair<double, double>> rising = {{0, 0}, {0.01, 0}, {0.2, 3000}};
    const TimingResult w1 = timed({{0, 0}}, 1, 255), r1 = timed(rising, 1, 255), r3 = timed(rising, 3, 255);
    EXPECT_EQ(w1.occupancy.blocks_per_sm, 1);
    EXPECT_EQ(r1.cycles, r3.cycles);
    EXPECT_GT(r1.cycles, w1.cycles + 1000) << w1.cycles << " " << r1.cycles;
    EXPECT_EQ(timed(rising, 1).cycles, base.cycles);
}

// launch.block_start_cycles / block_retire_cycles: an SM places and retires its blocks one at a
// time, so once its slots are full each further empty block costs it a retirement and a
// placement: 8 more blocks per SM (one wave of 256-thread blocks) add 8 x (start + retire).
TEST(Timing, BlockUnitSerialisesPlacementAndRetirement) {
    const Module m = parse_ptx(".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry e()\n{\n  ret;\n}\n", "e.ptx");
    auto cycles = [&](double start, double retire, unsigned waves) {
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.arch.block_start_cycles = start;
        o.arch.block_retire_cycles = retire;
        o.registers_per_thread = 16;
        return launch_timed(m, "e", {132u * 8u * waves, 1, 1}, {256, 1, 1}, {}, o).cycles;
    };
    const uint64_t per_wave = cycles(84, 73, 8) - cycles(84, 73, 4);
    EXPECT_GE(per_wave, 4u * 8u * (84u + 73u));
    EXPECT_LE(per_wave, 4u * 8u * (84u + 73u) + 4u * 8u * 8u) << per_wave;
    // Without the unit, blocks are placed as soon as a slot frees: a wave costs far less.
    EXPECT_LT(cycles(0, 0, 8) - cycles(0, 0, 4), 4u * 8u * 84u);
}

// Every block reads the same 16 KiB (16 loads per thread, 256 threads), then, once that data
// has arrived, `phases` - 1 more times the next 16 KiB. In each phase all 132 SMs miss on the
// same sectors. The first phase's misses are charged a whole sector's DRAM time each (no earlier
// epoch to learn from): 512 sectors per SM, about 1,100 cycles of the SM's DRAM share. Later
// phases pay the share learnt so far (1 distinct sector per 132 misses): their loads wait about
// one DRAM latency, with no queue.
std::string shared_reads_ptx(int phases) {
    std::ostringstream p;
    p << ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry r(.param .u64 in, .param .u64 out)\n{\n"
         "  .reg .b32 %r<8>;\n  .reg .f32 %f<32>;\n  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, "
         "%rd2;\n"
         "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd1, %rd3;\n  mov.f32 %f1, 0f00000000;\n";
    for (int ph = 0; ph < phases; ++ph) {
        if (ph > 0) {  // the next phase's address waits for this phase's sum: add (int)(sum * 0) bytes
            p << "  mul.f32 %f3, %f1, 0f00000000;\n  cvt.rzi.s32.f32 %r2, %f3;\n  cvt.s64.s32 %rd5, %r2;\n  add.s64 %rd4, %rd4, "
                 "%rd5;\n";
        }
        for (int k = 0; k < 16; ++k) p << "  ld.global.f32 %f" << 10 + k << ", [%rd4+" << (ph * 16 + k) * 1024 << "];\n";
        for (int k = 0; k < 16; ++k) p << "  add.f32 %f1, %f1, %f" << 10 + k << ";\n";
    }
    p << "  mov.u32 %r3, %ctaid.x;\n  mad.lo.s32 %r4, %r3, 256, %r1;\n  mul.wide.u32 %rd6, %r4, 4;\n  add.s64 %rd7, %rd2, %rd6;\n"
         "  st.global.f32 [%rd7], %f1;\n  ret;\n}\n";
    return p.str();
}

TEST(Timing, SmsMissingOnOneSectorShareItsDramFill) {
    std::vector<float> in(16 * 256 * 3 + 64, 1.0f), out(132 * 256);
    float* src = in.data() + (128 - reinterpret_cast<uintptr_t>(in.data()) % 128) / 4;
    const int phases = 3;
    const std::string ptx = shared_reads_ptx(phases);
    const Module m = parse_ptx(ptx, "r.ptx");
    ParamPacker p;
    p.add(src).add(out.data());
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.registers_per_thread = 32;
    const TimingResult r = launch_timed(m, "r", {132, 1, 1}, {256, 1, 1}, p.bytes(), o);
    EXPECT_EQ(r.dram_read_bytes, uint64_t{16} * 1024 * phases);  // each sector fetched once
    EXPECT_EQ(out[0], 16.0f * phases);
    // Mean issue-to-data cycles of each phase's 16 loads.
    std::vector<double> latency(phases, 0);
    int load = 0;
    for (size_t i = 0; i < r.per_instruction.size(); ++i) {
        if (r.counts.per_instruction[i].text.rfind("ld.global", 0) != 0) continue;
        const TimingCounters& t = r.per_instruction[i];
        EXPECT_EQ(t.l2_misses, 132u * 8 * 4);  // every SM misses on every sector: one epoch, no SM sees another's fill
        latency[static_cast<size_t>(load++ / 16)] +=
            static_cast<double>(t.memory_latency_cycles) / static_cast<double>(t.global_requests) / 16;
    }
    ASSERT_EQ(load, 16 * phases);
    const double dram = builtin_arch("h200").dram_latency;
    const double queue = 512 * 32 / (builtin_arch("h200").dram_bytes_per_cycle() / 132);  // one SM's 512 sectors: ~1,100 cycles
    EXPECT_GT(latency[0], dram + queue / 2 - 50);  // the queue fills as the 16 loads issue: half of it on average
    EXPECT_LT(latency[1], dram + 30);              // share 1/132: the queue is negligible
    EXPECT_LT(latency[2], dram + 30);
}

// Lane 0 of every warp adds into one word (`spread` 0) or into a word of its own, 128 bytes
// apart (`spread` 32). Operations on one word are serialised at l2.atomic_same_address_cycles
// each, even one lane per request from warps on different SMs (a block tree's final atomics);
// words of their own spread over the slices and pipeline.
TEST(Timing, AtomicsOnOneWordWaitForEachOtherAcrossRequests) {
    const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry a(.param .u64 out, .param .u32 spread)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r7, [spread];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  mov.u32 %r3, %ctaid.x;
  shr.u32 %r4, %r1, 5;
  mad.lo.s32 %r5, %r3, 8, %r4;
  mul.lo.s32 %r5, %r5, %r7;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.f32 [%rd3], 0f3F800000;
DONE:
  ret;
}
)";
    const Module m = parse_ptx(ptx, "a.ptx");
    const uint32_t blocks = 132 * 8, warps = blocks * 8;
    std::vector<float> out_store(size_t{warps} * 32 + 64, 0.0f);
    float* out = out_store.data() + (128 - reinterpret_cast<uintptr_t>(out_store.data()) % 128) / 4;
    // With a memory map (as the sim device launches) the model sees device addresses, which
    // differ from the host's: the words must still be recognised as one.
    GlobalMemoryMap map;
    map.add(reinterpret_cast<uint64_t>(out_store.data()), out_store.size() * sizeof(float), "out", uint64_t{0x7f} << 40);
    auto cycles = [&](uint32_t spread, bool mapped = false) {
        std::fill(out_store.begin(), out_store.end(), 0.0f);
        ParamPacker p;
        p.add(out).add(spread);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 16;
        if (mapped) o.launch.global_memory = &map;
        const uint64_t c = launch_timed(m, "a", {blocks, 1, 1}, {256, 1, 1}, p.bytes(), o).cycles;
        EXPECT_EQ(out[0], 1.0f + (spread == 0 ? warps - 1 : 0)) << spread;
        return c;
    };
    const double same = builtin_arch("h200").l2_atomic_same_address_cycles;
    const uint64_t one_word = cycles(0), own_words = cycles(32);
    EXPECT_GE(one_word, static_cast<uint64_t>(warps * same));                 // serialised
    EXPECT_LE(one_word, static_cast<uint64_t>(warps * same * 1.1) + 20000u);  // and not much more
    EXPECT_LT(own_words * 4, one_word) << own_words;
    const uint64_t one_word_mapped = cycles(0, true), own_words_mapped = cycles(32, true);
    EXPECT_GE(one_word_mapped, static_cast<uint64_t>(warps * same));
    EXPECT_LE(one_word_mapped, static_cast<uint64_t>(warps * same * 1.1) + 20000u);
    EXPECT_LT(own_words_mapped * 4, one_word_mapped) << own_words_mapped;
}

// Every lane adds into word (tid * stride) % 2^18 of an L2-resident region, 16 times (words 1 MiB
// apart). stride 1: a request of 32 lanes on 4 sectors of one line; stride 32: 32 lines, one
// sector and one lane each. The H200 runs the scattered form 4.2 times slower per lane-op (run 3's
// atomic_distinct_ops 370.3 lane-ops/ns against run 8's atomic_scatter_line_ops 88.4; both are
// microbench.cu loops, bench/results/gpusim-h200): the SM's path into L2 pays per sector and per
// lane. One cost per sector (8x) or per request (1x) is far off.
TEST(Timing, ScatteredAtomicsCostPerSectorAndPerLaneAsOnTheH200) {
    const char* ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry a(.param .u64 out, .param .u32 stride)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r7, [stride];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.s32 %r5, %r3, 256, %r1;
  mul.lo.s32 %r5, %r5, %r7;
  and.b32 %r5, %r5, 262143;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  red.global.add.f32 [%rd3], 0f3F800000;
  red.global.add.f32 [%rd3+1048576], 0f3F800000;
  red.global.add.f32 [%rd3+2097152], 0f3F800000;
  red.global.add.f32 [%rd3+3145728], 0f3F800000;
  red.global.add.f32 [%rd3+4194304], 0f3F800000;
  red.global.add.f32 [%rd3+5242880], 0f3F800000;
  red.global.add.f32 [%rd3+6291456], 0f3F800000;
  red.global.add.f32 [%rd3+7340032], 0f3F800000;
  red.global.add.f32 [%rd3+8388608], 0f3F800000;
  red.global.add.f32 [%rd3+9437184], 0f3F800000;
  red.global.add.f32 [%rd3+10485760], 0f3F800000;
  red.global.add.f32 [%rd3+11534336], 0f3F800000;
  red.global.add.f32 [%rd3+12582912], 0f3F800000;
  red.global.add.f32 [%rd3+13631488], 0f3F800000;
  red.global.add.f32 [%rd3+14680064], 0f3F800000;
  red.global.add.f32 [%rd3+15728640], 0f3F800000;
  ret;
}
)";
    const Module m = parse_ptx(ptx, "a.ptx");
    const uint32_t blocks = 132 * 8;
    std::vector<float> store(16 * 262144 + 64, 0.0f);
    float* out = store.data() + (128 - reinterpret_cast<uintptr_t>(store.data()) % 128) / 4;
    auto cycles = [&](uint32_t stride) {
        std::fill(store.begin(), store.end(), 0.0f);
        ParamPacker p;
        p.add(out).add(stride);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 16;
        const TimingResult r = launch_timed(m, "a", {blocks, 1, 1}, {256, 1, 1}, p.bytes(), o);
        EXPECT_EQ(out[0], stride == 1 ? 2.0f : 33.0f) << stride;  // 270,336 threads over 262,144 words
        // The L2 reads each sector an atomic touches from DRAM once (it was never in L2): every
        // sector of the 16 regions of 1 MiB (stride 1), or the one sector of each of 8,192 lines
        // per region (stride 32).
        EXPECT_EQ(r.dram_read_bytes, stride == 1 ? uint64_t{16} << 20 : uint64_t{16} * 8192 * 32) << stride;
        return r.cycles;
    };
    const double coalesced = static_cast<double>(cycles(1)), scattered = static_cast<double>(cycles(32));
    EXPECT_GT(scattered / coalesced, 4.2 * 0.85) << coalesced << " " << scattered;
    EXPECT_LT(scattered / coalesced, 4.2 * 1.15) << coalesced << " " << scattered;
}

// A float maximum by a compare-and-swap loop (Weft's atomic_max on floats): microbench.cu's
// `casmax` probe, the same nvcc PTX and launch the H200 timed (micro_atomic_probe, mode 4: every
// warp on the first word of line (warp % lines), 132 x 8 blocks of 256). A CAS's value comes back
// only after its slice has worked off the atomics other SMs queued there, so spreading the words
// over 64 lines buys what it buys on the H200: 12.4487 against 1.2822 lane-operations per ns, 9.71x
// (run 9, bench/results/gpusim-h200/2026-12-06-run9). When the returning CAS saw only its own
// round trip gpusim gave 20x: the lanes of 64 lines retried as if their slices were idle.
TEST(Timing, CompareAndSwapLoopsWaitForTheirSlicesQueue) {
    if (!GPUSIM_HAVE_NVCC) GTEST_SKIP() << "nvcc not available: no generated PTX";
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const std::string ptx = testing::read_file(std::string(GPUSIM_PTX_DIR) + "/validation.ptx");
    const Module m = parse_ptx(ptx, "validation.ptx");
    // Timed as the sim device and the validation harness time it: with the machine code's issue
    // weights and load schedule, the buffer at a device address.
    const SassTiming st = sass_timing(map_sass(ptx, builtin_arch("h200")), m, "micro_atomic_probe");
    const uint32_t blocks = 132 * 8, threads = blocks * 256;
    auto rate = [&](int lines, int reps) {
        std::vector<float> store(size_t(lines) * 32 + 64, 0.0f);
        float* a = store.data() + (256 - reinterpret_cast<uintptr_t>(store.data()) % 256) / 4;
        GlobalMemoryMap map;
        map.add(reinterpret_cast<uint64_t>(a), size_t(lines) * 128, "a", uint64_t{0x7f} << 40);
        ParamPacker p;
        p.add(a).add(a).add(a).add(lines).add(4).add(reps);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 16;  // ptxas -v: 16 registers, no shared memory
        o.static_shared_bytes = 0;
        o.issue_weights = st.issue_weights;
        o.load_hoist = st.load_hoist;
        o.launch.global_memory = &map;
        const TimingResult r = launch_timed(m, "micro_atomic_probe", {blocks, 1, 1}, {256, 1, 1}, p.bytes(), o);
        for (int l = 0; l < lines; ++l) {  // every lane's value landed: the word holds its line's maximum
            float want = 0;
            for (uint32_t t = uint32_t(l) * 32; t < threads; t += uint32_t(lines) * 32)
                for (uint32_t k = 0; k < 32; ++k) want = std::max(want, static_cast<float>((t + k) % 997 + uint32_t(reps) - 1));
            EXPECT_EQ(a[l * 32], want) << lines << " lines, line " << l;
        }
        return static_cast<double>(threads) * reps / static_cast<double>(r.cycles);
    };
    const double one = rate(1, 2), spread = rate(64, 8);
    EXPECT_GT(spread / one, 9.71 * 0.85) << one << " " << spread;
    EXPECT_LT(spread / one, 9.71 * 1.15) << one << " " << spread;
}

// A chain of 64 dependent square roots in one thread: the precise form (sqrt.rn, a routine
// after ptxas) costs the arch's expanded_latency.sqrt_f32 each (the H100/H200 measured 42.8
// cycles), the approximate form (one MUFU) the SFU's latency; integer division likewise.
TEST(Timing, PreciseOperationsTakeTheirRoutinesLatency) {
    // 64 dependent `op`s in one thread: `f32` on %f1 (unary), else on %r1 by `divisor` (a register
    // holding 3, or the immediate 3).
    auto chain = [](const std::string& op, bool f32, const std::string& divisor = "%r2") {
        std::ostringstream p;
        p << ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry c(.param .u64 out)\n{\n"
             "  .reg .f32 %f<2>;\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<2>;\n"
             "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n";
        p << (f32 ? "  mov.f32 %f1, 0f3F800000;\n" : "  mov.u32 %r1, 1000000000;\n  mov.u32 %r2, 3;\n");
        for (int k = 0; k < 64; ++k) p << "  " << op << (f32 ? " %f1, %f1;\n" : " %r1, %r1, " + divisor + ";\n");
        p << (f32 ? "  st.global.f32 [%rd1], %f1;\n" : "  st.global.u32 [%rd1], %r1;\n") << "  ret;\n}\n";
        const Module m = parse_ptx(p.str(), "c.ptx");
        uint32_t out = 0;
        ParamPacker pp;
        pp.add(&out);
        TimingOptions o;
        o.arch = builtin_arch("h200");
        o.registers_per_thread = 16;
        return static_cast<double>(launch_timed(m, "c", {1, 1, 1}, {1, 1, 1}, pp.bytes(), o).cycles);
    };
    const ArchSpec a = builtin_arch("h200");
    const double fixed = chain("mov.f32", true);  // launch, the store, and 64 moves (folded)
    const double rn = chain("sqrt.rn.f32", true) - fixed, approx = chain("sqrt.approx.f32", true) - fixed;
    const double idiv = chain("div.u32", false) - chain("add.u32", false);
    EXPECT_NEAR(rn, 64 * a.expanded_latency[static_cast<int>(ExpandedOp::SqrtF32)], 64 * 2.0) << rn;
    EXPECT_NEAR(approx, 64 * a.pipes[static_cast<int>(PipeClass::Sfu)].latency, 64 * 2.0) << approx;
    EXPECT_NEAR(
        idiv, 64 * (a.expanded_latency[static_cast<int>(ExpandedOp::DivInt)] - a.pipes[static_cast<int>(PipeClass::Alu)].latency),
        64 * 2.0)
        << idiv;
    EXPECT_EQ(a.expanded_latency[static_cast<int>(ExpandedOp::SqrtF32)], 43);  // h200.json, run 10's 42.8 cycles
    // By an immediate, ptxas multiplies and shifts: an integer operation's latency, no routine.
    EXPECT_LT(chain("div.u32", false, "3") - chain("add.u32", false, "3"), 64 * 30.0);
}

TEST(Timing, SchedulerPolicies) {
    GreedyThenOldestPolicy gto;
    const SchedulerCandidate c[3] = {{0, 5}, {1, 2}, {2, 9}};
    EXPECT_EQ(gto.pick(c), 1u);  // oldest
    gto.issued(c[2]);
    EXPECT_EQ(gto.pick(c), 2u);  // greedy
    LooseRoundRobinPolicy lrr;
    EXPECT_EQ(lrr.pick(c), 0u);
    lrr.issued(c[0]);
    EXPECT_EQ(lrr.pick(c), 1u);
    lrr.issued(c[2]);
    EXPECT_EQ(lrr.pick(c), 0u);
    const TimedRun a = run(1, 1, lrr_scheduler());
    EXPECT_EQ(a.r.scheduler, "lrr");
}

TEST(Timing, TwoLevelAndLatencyHidingPolicies) {
    // Two-level: round-robin inside the active group; when no group warp is eligible, the
    // oldest eligible warps become the group.
    TwoLevelPolicy two(2);
    std::vector<SchedulerCandidate> c = {{0, 5}, {1, 1}, {2, 3}, {3, 0}};
    EXPECT_EQ(two.pick(c), 3u);  // empty group: refill with the two oldest (slots 3, 1)
    two.issued(c[3]);
    EXPECT_EQ(two.pick(c), 1u);  // slot 1: in the group, wrapping after slot 3
    two.issued(c[1]);
    EXPECT_EQ(two.pick(c), 3u);
    std::vector<SchedulerCandidate> rest = {{0, 5}, {2, 3}};
    EXPECT_EQ(two.pick(rest), 1u);  // group stalled: refill, oldest first (slot 2)
    // Latency-hiding: the oldest warp about to start a global access goes first.
    LatencyHidingPolicy lh;
    std::vector<SchedulerCandidate> m = {{0, 0, 10, false}, {1, 4, 11, true}, {2, 2, 12, true}};
    EXPECT_EQ(lh.pick(m), 2u);
    m[1].long_latency = m[2].long_latency = false;
    EXPECT_EQ(lh.pick(m), 0u);  // none: greedy-then-oldest
    // Whatever the policy, the results are the same and the timing differs only in cycles.
    const TimedRun g = run(1, 1), t = run(1, 1, two_level_scheduler()), l = run(1, 1, latency_hiding_scheduler());
    EXPECT_EQ(t.out, g.out);
    EXPECT_EQ(l.out, g.out);
    EXPECT_EQ(t.r.scheduler, "two-level");
    EXPECT_EQ(l.r.scheduler, "latency-hiding");
    EXPECT_EQ(t.r.counts.total, g.r.counts.total);
    EXPECT_GT(t.r.cycles, 0u);
}

// issue_weights: an instruction holds its scheduler for its weight in cycles; a forward branch
// of weight 0 (if-converted by ptxas) charges the weights of the code it skips.
TEST(Timing, IssueWeightsAndIfConvertedBranches) {
    const char* kSkip = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry s(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  add.u32 %r2, %r1, 1;
  add.u32 %r2, %r2, 1;
  add.u32 %r2, %r2, 1;
SKIP:
  ret;
}
)";
    const Module m = parse_ptx(kSkip, "s.ptx");
    std::vector<uint32_t> out(64);
    ParamPacker p;
    p.add(out.data());
    TimingOptions o;
    o.arch = builtin_arch("h200");
    o.registers_per_thread = 16;
    o.issue_weights.assign(m.instructions().size(), 1.0);
    int32_t bra = -1;
    for (size_t i = 0; i < m.instructions().size(); ++i)
        if (m.instructions()[i].op == Op::Bra) bra = static_cast<int32_t>(i);
    ASSERT_GE(bra, 0);
    for (int k = 1; k <= 3; ++k) o.issue_weights[static_cast<size_t>(bra + k)] = 40.0;
    const uint64_t kept = launch_timed(m, "s", {1, 1, 1}, {32, 1, 1}, p.bytes(), o).cycles;  // a real branch: the body is skipped
    o.issue_weights[static_cast<size_t>(bra)] = 0.0;
    const uint64_t converted =
        launch_timed(m, "s", {1, 1, 1}, {32, 1, 1}, p.bytes(), o).cycles;  // predicated body: 3 x 40 cycles
    EXPECT_GE(converted, kept + 110);
    o.issue_weights.resize(3);
    EXPECT_THROW(launch_timed(m, "s", {1, 1, 1}, {32, 1, 1}, p.bytes(), o), SimError);
}

TEST(Timing, WritersProduceValidJson) {
    std::ostringstream trace;
    const TimedRun a = run(2, 1, gto_scheduler(), &trace);
    std::ostringstream js, ct;
    write_timing_json(js, a.r);
    const JsonValue v = parse_json(js.str(), "timing.json");
    ASSERT_NE(v.find("timing"), nullptr);
    EXPECT_EQ(v.find("timing")->find("cycles")->number, static_cast<double>(a.r.cycles));
    const JsonValue& lines = *v.find("lines");
    ASSERT_FALSE(lines.array.empty());
    EXPECT_NE(lines.array[0].find("timing")->find("stalls")->find("long_scoreboard"), nullptr);
    write_chrome_trace(ct, a.r);
    const JsonValue c = parse_json(ct.str(), "trace.json");
    // SMs are processes; one "X" event per block (300) and per warp (300 x 8 warps).
    int blocks = 0, warps = 0, processes = 0;
    for (const JsonValue& e : c.find("traceEvents")->array) {
        const std::string ph = e.find("ph")->string;
        if (ph == "M" && e.find("name")->string == "process_name") ++processes;
        if (ph != "X") continue;
        EXPECT_GE(e.find("pid")->number, 0);
        EXPECT_LT(e.find("pid")->number, 132);
        (e.find("cat")->string == "block" ? blocks : warps) += 1;
    }
    EXPECT_EQ(processes, 132);
    EXPECT_EQ(blocks, 300);
    EXPECT_EQ(warps, 2400);
    std::istringstream in(trace.str());
    std::string rec;
    int n = 0;
    while (std::getline(in, rec)) {
        const JsonValue r = parse_json(rec, "trace.jsonl");
        EXPECT_EQ(r.find("sm")->number, 0);
        ++n;
    }
    EXPECT_EQ(n, 50);
}

TEST(Timing, OccupancyErrorWithoutRegisterCount) {
    const Module m = parse_ptx(kPtx, "k.ptx");
    std::vector<float> in(256), out(256);
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(uint32_t{1});
    TimingOptions o;
    o.arch = builtin_arch("h200");
    EXPECT_THROW(launch_timed(m, "k", {1, 1, 1}, {256, 1, 1}, p.bytes(), o), OccupancyError);
    o.ptx_text = kPtx;
    const TimingResult r = launch_timed(m, "k", {1, 1, 1}, {256, 1, 1}, p.bytes(), o);
    EXPECT_GT(r.occupancy.registers_per_thread, 0);
}

// %clock64 read before and after a chain of `n` dependent FMAs, one thread: out[0] the
// difference, out[1] the first read, out[2] a %clock read just after the second, out[3] that one.
std::string clock_ptx(int n) {
    std::ostringstream p;
    p << ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry clk(.param .u64 out)\n{\n"
         "  .reg .b32 %r<4>;\n  .reg .f32 %f<4>;\n  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n  mov.u32 %r1, %tid.x;\n"
         "  cvt.rn.f32.u32 %f1, %r1;\n  mov.u64 %rd2, %clock64;\n";
    for (int i = 0; i < n; ++i) p << "  fma.rn.f32 %f1, %f1, %f1, %f1;\n";
    p << "  mov.u64 %rd3, %clock64;\n  mov.u32 %r2, %clock;\n  sub.s64 %rd4, %rd3, %rd2;\n  mul.wide.u32 %rd5, %r1, 8;\n"
         "  add.s64 %rd6, %rd1, %rd5;\n  cvt.u64.u32 %rd7, %r2;\n  st.global.u64 [%rd1], %rd4;\n  st.global.u64 [%rd1+8], %rd2;\n"
         "  st.global.u64 [%rd1+16], %rd7;\n  st.global.u64 [%rd1+24], %rd3;\n  st.global.f32 [%rd6+32], %f1;\n  ret;\n}\n";
    return p.str();
}

// In timing mode %clock and %clock64 read the issuing SM's simulated cycle: across a chain of
// dependent FMAs they advance by the FMA latency per link, so 10 more links read 10 x
// latency.fma more; the first read comes after the block's launch. Functional launches, which
// have no cycles, still read the warp's instruction count (one per instruction in between).
TEST(Timing, ClockReadsTheSimulatedCycle) {
    const ArchSpec arch = builtin_arch("h200");
    const double fma = arch.pipes[static_cast<int>(PipeClass::Fma)].latency;
    auto timed = [&](int n) {
        const Module m = parse_ptx(clock_ptx(n), "clk.ptx");
        std::vector<uint64_t> out(8, 0);
        ParamPacker p;
        p.add(out.data());
        TimingOptions o;
        o.arch = arch;
        o.registers_per_thread = 16;
        launch_timed(m, "clk", {1, 1, 1}, {1, 1, 1}, p.bytes(), o);
        return out;
    };
    const std::vector<uint64_t> ten = timed(10), twenty = timed(20);
    EXPECT_EQ(twenty[0] - ten[0], static_cast<uint64_t>(10 * fma)) << ten[0] << " " << twenty[0];
    EXPECT_GE(ten[0], static_cast<uint64_t>(9 * fma));
    EXPECT_GE(ten[1], static_cast<uint64_t>(arch.block_launch_cycles));
    // %clock (32 bits), read by the instruction after the second %clock64: a few cycles later.
    EXPECT_GT(ten[2], ten[3]);
    EXPECT_LE(ten[2], ten[3] + 4);
    // Functional: the instruction count, which does not depend on latencies.
    const Module m = parse_ptx(clock_ptx(10), "clk.ptx");
    std::vector<uint64_t> out(8, 0);
    ParamPacker p;
    p.add(out.data());
    launch(m, "clk", {1, 1, 1}, {1, 1, 1}, p.bytes(), LaunchOptions{});
    EXPECT_EQ(out[0], 11u);  // ten FMAs and the second read itself
}

}  // namespace
}  // namespace weft::gpusim

namespace weft::gpusim {
namespace {

// ptxas's line table maps every SASS instruction of the straight-line kernel k to a PTX line
// (or the prologue); every one runs once per warp, so the estimate must be warps x the static
// SASS count, which comes from the text section's size, not from the line table.
TEST(SassMap, StraightLineKernelRunsEverySassInstructionOncePerWarp) {
    if (!std::ifstream("/usr/local/cuda/bin/ptxas")) GTEST_SKIP() << "ptxas not installed";
    const Module m = parse_ptx(kPtx, "k.ptx");
    const SassMap map = map_sass(kPtx, builtin_arch("h200"));
    ASSERT_EQ(map.kernels.count("k"), 1u);
    const KernelSass& k = map.kernels.at("k");
    EXPECT_GT(k.static_instructions, 10u);
    uint32_t attributed = 0;
    for (const auto& [line, n] : k.per_ptx_line) attributed += n;
    EXPECT_EQ(attributed + k.unattributed, k.static_instructions);
    std::vector<float> in(1024), out(1024);
    ParamPacker p;
    p.add(in.data()).add(out.data()).add(uint32_t{1});
    const LaunchResult r = launch(m, "k", {2, 1, 1}, {256, 1, 1}, p.bytes());
    EXPECT_EQ(estimate_sass_instructions(map, m, "k", r), uint64_t{16} * k.static_instructions);
    SassMap lines_only = map;  // without the instruction words: the per-line estimate, the same here
    lines_only.kernels.at("k").code.clear();
    EXPECT_EQ(estimate_sass_instructions(lines_only, m, "k", r), uint64_t{16} * k.static_instructions);
    EXPECT_THROW(read_sass_map("not an elf"), SassMapError);

    // Warp 1 jumps over the store. If ptxas if-converts the body (the branch gets no SASS), the
    // predicated store runs in both warps: every SASS instruction once per warp. If it keeps the
    // branch (ptxas 13 makes it `@P0 EXIT`: the branch goes to the `ret`), warp 1 runs the SASS up
    // to and including the branch's, warp 0 all of it.
    const char* kIf = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry f(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 32;
  @%p1 bra SKIP;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
SKIP:
  ret;
}
)";
    const Module mf = parse_ptx(kIf, "f.ptx");
    const SassMap fm = map_sass(kIf, builtin_arch("h200"));
    const KernelSass& fk = fm.kernels.at("f");
    int32_t bra_line = 0;
    for (const Instr& in : mf.instructions())
        if (in.op == Op::Bra) bra_line = in.ptx_line;
    std::vector<uint32_t> fo(64);
    ParamPacker fp;
    fp.add(fo.data());
    const LaunchResult fr = launch(mf, "f", {1, 1, 1}, {64, 1, 1}, fp.bytes());
    uint64_t through_branch = fk.static_instructions;  // warp 1's SASS instructions
    for (size_t s = 0; s < fk.code.size(); ++s)
        if (fk.code[s].ptx_line == bra_line) through_branch = s + 1;
    EXPECT_LT(through_branch, fk.static_instructions);  // this ptxas keeps the branch
    const uint64_t expect = fk.static_instructions + through_branch;
    EXPECT_EQ(estimate_sass_instructions(fm, mf, "f", fr), expect);
    EXPECT_THROW(estimate_sass_instructions(map, m, "nope", r), SassMapError);
}

}  // namespace
}  // namespace weft::gpusim
