// bench/gpusim/functional_bench.cpp — how fast gpusim executes PTX functionally.
//
// The figure of merit is thread-instructions per second (sum over warp instructions of their
// active lanes), reported as the counter "thread_inst/s". Kernels:
//   ArithLoop      a register-only loop (fma, add, setp, bra): the executor's inner loop
//   MemLoop        the same loop with a global load and store per iteration
//   DivergentLoop  a loop whose trip count depends on the lane (divergence, reconvergence)
// Each runs 64 blocks of 256 threads on 1 host thread unless the name says /threads:N.
#include <benchmark/benchmark.h>

#include <vector>

#include "gpusim/exec/launch.h"
#include "gpusim/ptx/parse_ptx.h"

namespace {
using namespace weft::gpusim;

const char* kPtx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry arith_loop(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  cvt.rn.f32.u32 %f1, %r2;
  mov.f32 %f2, 0f3F800000;
  mov.u32 %r3, 0;
LOOP:
  fma.rn.f32 %f2, %f2, 0f3F7FFFFE, %f1;
  add.f32 %f1, %f1, 0f3C23D70A;
  add.s32 %r3, %r3, 1;
  setp.lt.s32 %p, %r3, %r1;
  @%p bra LOOP;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r4, %r4, %r5, %r2;
  mul.wide.s32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f2;
  ret;
}
.visible .entry mem_loop(.param .u64 buf, .param .u32 n)
{
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r4, %r4, %r5, %r2;
  mul.wide.s32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r3, 0;
LOOP:
  ld.global.f32 %f1, [%rd3];
  fma.rn.f32 %f1, %f1, 0f3F7FFFFE, 0f3F800000;
  st.global.f32 [%rd3], %f1;
  add.s32 %r3, %r3, 1;
  setp.lt.s32 %p, %r3, %r1;
  @%p bra LOOP;
  ret;
}
.visible .entry divergent_loop(.param .u64 out, .param .u32 n)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  and.b32 %r6, %r2, 31;
  add.s32 %r1, %r1, %r6;
  mov.u32 %r3, 0;
  mov.u32 %r7, 0;
LOOP:
  and.b32 %r5, %r3, 1;
  setp.eq.s32 %p1, %r5, 0;
  @%p1 bra EVEN;
  add.s32 %r7, %r7, %r3;
  bra.uni NEXT;
EVEN:
  xor.b32 %r7, %r7, %r3;
NEXT:
  add.s32 %r3, %r3, 1;
  setp.lt.s32 %p2, %r3, %r1;
  @%p2 bra LOOP;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r4, %r4, %r5, %r2;
  mul.wide.s32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  ret;
}
)";

const Module& module() {
    static const Module m = parse_ptx(kPtx, "bench.ptx");
    return m;
}

void run(benchmark::State& state, const char* kernel, int iterations) {
    const uint32_t blocks = 64, threads = 256;
    std::vector<float> buf(blocks * threads, 1.0f);
    ParamPacker p;
    p.add(buf.data()).add(static_cast<uint32_t>(iterations));
    LaunchOptions opts;
    opts.threads = static_cast<int>(state.range(0));
    uint64_t thread_instructions = 0;
    for (auto _ : state) {
        const LaunchResult r = launch(module(), kernel, {blocks, 1, 1}, {threads, 1, 1}, p.bytes(), opts);
        thread_instructions += r.total.thread_instructions;
        benchmark::DoNotOptimize(buf.data());
    }
    state.counters["thread_inst/s"] = benchmark::Counter(static_cast<double>(thread_instructions), benchmark::Counter::kIsRate);
    state.counters["thread_inst"] =
        benchmark::Counter(static_cast<double>(thread_instructions) / static_cast<double>(state.iterations()));
}

void ArithLoop(benchmark::State& state) { run(state, "arith_loop", 200); }
void MemLoop(benchmark::State& state) { run(state, "mem_loop", 200); }
void DivergentLoop(benchmark::State& state) { run(state, "divergent_loop", 100); }

BENCHMARK(ArithLoop)->Arg(1)->Arg(2)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(MemLoop)->Arg(1)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(DivergentLoop)->Arg(1)->ArgName("threads")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
