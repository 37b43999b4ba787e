// gpusim/validation/microbench.cu — the microbenchmarks that calibrate gpusim/arch/h200.json.
//
// Printed as "micro NAME VALUE UNIT" lines. Latencies are dependent chains in one thread timed
// with clock64 (cycles per link); throughputs are 1024-thread blocks, one per SM, timed with
// clock64 per block (warp instructions per cycle per SM); bandwidths are cudaEvent-timed
// passes over buffers far larger than L2 (DRAM) or far smaller (L2). Nothing here is a kernel
// that the validation scores (kernels.cu), so calibrating from these numbers is fair.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "micro_loops.cuh"

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

using u64 = unsigned long long;
#define R16(s) s s s s s s s s s s s s s s s s

// ---- latency chains ------------------------------------------------------------------------
__global__ void lat_shared(u64* res, int hops) {
  __shared__ unsigned chain[1024];
  const unsigned base = unsigned(__cvta_generic_to_shared(chain));
  for (int i = 0; i < 1024; ++i) chain[i] = base + ((i * 37 + 1) % 1024) * 4;
  unsigned p = base;
  const u64 t0 = clock64();
  for (int i = 0; i < hops / 16; ++i) asm volatile(R16("ld.shared.u32 %0, [%0];\n") : "+r"(p)::"memory");
  const u64 t1 = clock64();
  res[0] = t1 - t0;
  res[1] = p;
}

__global__ void make_chain(u64* buf, size_t nodes, size_t stride_words) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nodes; i += gridDim.x * blockDim.x)
    buf[i * stride_words] = reinterpret_cast<u64>(buf + ((i + 1) % nodes) * stride_words);
}

template <int kMode>  // 0: ld.global (L1), 1: ld.global.cg (L2)
__global__ void lat_global(u64* res, u64* start, int warm, int hops) {
  u64 p = reinterpret_cast<u64>(start);
  for (int i = 0; i < warm; ++i) {
    if (kMode == 0) asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    else asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  }
  const u64 t0 = clock64();
  for (int i = 0; i < hops / 16; ++i) {
    if (kMode == 0) asm volatile(R16("ld.global.u64 %0, [%0];\n") : "+l"(p)::"memory");
    else asm volatile(R16("ld.global.cg.u64 %0, [%0];\n") : "+l"(p)::"memory");
  }
  const u64 t1 = clock64();
  res[0] = t1 - t0;
  res[1] = p;
}

template <int kOp>
__global__ void lat_alu(u64* res, float fa, float fb, unsigned ia, unsigned ib, int iters) {
  float f = fa;
  unsigned u = ia;
  double d = fa;
  const u64 t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    if (kOp == 0) asm volatile(R16("fma.rn.f32 %0, %0, %1, %2;\n") : "+f"(f) : "f"(fb), "f"(fa));
    if (kOp == 1) asm volatile(R16("mad.lo.u32 %0, %0, %1, %2;\n") : "+r"(u) : "r"(ib), "r"(ia));
    if (kOp == 2) asm volatile(R16("fma.rn.f64 %0, %0, %1, %2;\n") : "+d"(d) : "d"(double(fb)), "d"(double(fa)));
    if (kOp == 3) asm volatile(R16("ex2.approx.ftz.f32 %0, %0;\n") : "+f"(f));
    if (kOp == 4) asm volatile(R16("shfl.sync.bfly.b32 %0, %0, 1, 31, -1;\n") : "+r"(u));
    if (kOp == 5) asm volatile(R16("add.u32 %0, %0, %1;\nxor.b32 %0, %0, %2;\n") : "+r"(u) : "r"(ib), "r"(ia));
    // kOp 4's butterflies by 1 cancel in pairs, which ptxas folds away; a source lane held in a
    // register (ia & 31, unknown to ptxas) keeps a chain of 16 dependent shuffles.
    if (kOp == 6) asm volatile(R16("shfl.sync.idx.b32 %0, %0, %1, 31, -1;\n") : "+r"(u) : "r"(ia & 31u));
    // Precise (IEEE-rounded) operations that ptxas expands into a routine of dependent SASS
    // instructions with a range check and a slow path; the values stay in the fast path (near 1).
    if (kOp == 7) asm volatile(R16("sqrt.rn.f32 %0, %0;\n") : "+f"(f));
    if (kOp == 8) asm volatile(R16("rcp.rn.f32 %0, %0;\n") : "+f"(f));
    if (kOp == 9) asm volatile(R16("div.rn.f32 %0, %1, %0;\n") : "+f"(f) : "f"(fa));
    if (kOp == 10) asm volatile(R16("sqrt.rn.f64 %0, %0;\n") : "+d"(d));
    if (kOp == 11) asm volatile(R16("rcp.rn.f64 %0, %0;\n") : "+d"(d));
    if (kOp == 12) asm volatile(R16("div.rn.f64 %0, %1, %0;\n") : "+d"(d) : "d"(double(fa)));
    if (kOp == 13) asm volatile(R16("div.u32 %0, %0, %1;\n") : "+r"(u) : "r"(ib));
  }
  const u64 t1 = clock64();
  res[0] = t1 - t0;
  res[1] = u64(f) + u + u64(d);
}

// ---- per-SM throughput: 8 independent chains per thread --------------------------------------
template <int kOp>
__global__ void thr_alu(u64* res, float fa, unsigned ia, int iters) {
  __shared__ unsigned s[1024 * 8];
  float f[8];
  unsigned u[8];
  double d[8];
  for (int k = 0; k < 8; ++k) {
    f[k] = fa + k;
    u[k] = ia + k;
    d[k] = fa + k;
    s[k * 1024 + threadIdx.x] = unsigned(__cvta_generic_to_shared(&s[k * 1024 + (threadIdx.x + 32) % 1024]));
  }
  __syncthreads();
  if (kOp == 4)
    for (int k = 0; k < 8; ++k) u[k] = s[k * 1024 + threadIdx.x];
  const u64 t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (kOp == 0) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(f[k]) : "f"(fa));
      if (kOp == 1) asm volatile("mad.lo.u32 %0, %0, %1, %1;" : "+r"(u[k]) : "r"(ia));
      if (kOp == 2) asm volatile("fma.rn.f64 %0, %0, %1, %1;" : "+d"(d[k]) : "d"(double(fa)));
      if (kOp == 3) asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(f[k]));
      if (kOp == 4) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(u[k])::"memory");
    }
  }
  __syncthreads();
  const u64 t1 = clock64();
  if (threadIdx.x == 0) res[blockIdx.x] = t1 - t0;
  float fs = 0;
  unsigned us = 0;
  double ds = 0;
  for (int k = 0; k < 8; ++k) fs += f[k], us += u[k], ds += d[k];
  if (fs == 1.2345f && us == 7 && ds == 3.5) res[blockIdx.x + 1024] = 1;
}

// ---- bandwidth -------------------------------------------------------------------------------
__global__ void copy4(const float4* a, float4* b, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) b[i] = a[i];
}
__global__ void read4(const float4* a, float* out, size_t n, int passes) {
  float acc = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
      const float4 v = __ldcg(a + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == 1.2345f) out[0] = acc;
}
// Stores and atomics (for an LSU/L1 miss-queue model; not used by h200.json yet): `stride`
// floats between neighbouring lanes (1: coalesced, 32: one 128-byte line per lane) over a
// region of `n` floats that stays in L2.
__global__ void store_stride(float* a, size_t n, int stride, int passes) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) a[(i * stride) % n] = float(p);
}
// atomicAdd: `spread` 1 = every lane of a warp on its own word (coalesced), 0 = all on one word,
// 2 = every lane on its own word of the same 256 words (8 lines: a few hot L2 slices).
__global__ void atomic_add(float* a, size_t n, int spread, int passes) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) atomicAdd(a + (spread == 2 ? i % 256 : spread ? i : i / 32), 1.0f);
}
// Scattered atomics (calibration for the L2 atomic unit under scattered addresses; issue 21 found
// the held-out scattered kernels slower in gpusim than on the H200, but a held-out kernel may not
// set a parameter): lane i adds into word (i * stride) % n of an L2-resident region, stride 8 =
// one sector per lane (4 lanes per line), 32 = one line per lane. Compare with
// atomic_distinct_ops (stride 1, 4 sectors per request): a per-sector cost gives 8x fewer
// lane-ops per ns at stride 8, a per-request one the same rate.
__global__ void atomic_stride(float* a, size_t n, int stride, int passes) { atomic_stride_loop(a, n, size_t(stride), passes); }
// Atomic probe (one launch of 132 x 8 blocks of 256, every lane `reps` operations, L2-resident;
// the modes in micro_loops.cuh). Mode 0 over 1 line is the same-address rate of one L2 atomic
// unit; mode 0 over 2..128 lines shows over how many L2 slices consecutive lines spread (the rate
// grows with the slices hit); mode 1 over 1 line is one slice's rate for distinct sectors.
__global__ void atomic_probe(float* a, int lines, int mode, int reps) { atomic_probe_loop(a, lines, mode, reps); }
// Loaded DRAM latency: block 0's first thread chases a cold chain (as latency_dram) while the
// other blocks stream reads over `a` until it is done; the chase's cycles per hop and the
// stream's bytes over the same time give one point of the latency-vs-bandwidth curve
// (h200.json's dram.loaded_latency: calibrate_dram.py).
__global__ void loaded_chase(u64* res, u64* start, int hops, const float4* a, size_t n, volatile int* stop, float* sink) {
  if (blockIdx.x == 0) {
    if (threadIdx.x != 0) return;
    u64 p = reinterpret_cast<u64>(start);
    const u64 t0 = clock64(), g0 = [] { u64 g; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)); return g; }();
    for (int i = 0; i < hops / 16; ++i) asm volatile(R16("ld.global.cg.u64 %0, [%0];\n") : "+l"(p)::"memory");
    const u64 t1 = clock64();
    u64 g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    res[0] = t1 - t0;
    res[1] = p;
    res[2] = g1 - g0;
    __threadfence();
    *stop = 1;
    return;
  }
  float acc = 0;
  u64 bytes = 0;
  const size_t stride = size_t(gridDim.x - 1) * blockDim.x;
  size_t i = size_t(blockIdx.x - 1) * blockDim.x + threadIdx.x;
  while (*stop == 0) {
#pragma unroll 4
    for (int k = 0; k < 16; ++k) {
      const float4 v = __ldcg(a + i);
      acc += v.x + v.y + v.z + v.w;
      i += stride;
      if (i >= n) i -= n;
    }
    bytes += 16 * 16;
  }
  atomicAdd(res + 3, bytes);
  if (acc == 1.2345f) sink[0] = acc;
}
__global__ void empty() {}
__global__ void clock_rate(u64* res, int spins) {
  u64 g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  const u64 c0 = clock64();
  while (clock64() - c0 < u64(spins)) {}
  const u64 c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  res[0] = c1 - c0;
  res[1] = g1 - g0;
}

static u64* g_res;
static u64 res0() {
  u64 r[2];
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(r, g_res, sizeof r, cudaMemcpyDeviceToHost));
  return r[0];
}
static void out(const char* name, double v, const char* unit) { std::printf("micro %s %.4f %s\n", name, v, unit); }

template <typename F>
static float time_ms(F f, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  f();
  std::vector<float> ts;
  for (int r = 0; r < reps; ++r) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    ts.push_back(ms);
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

template <int kOp>
static double throughput(int iters) {
  thr_alu<kOp><<<132, 1024>>>(g_res, 1.0001f, 3, iters);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<u64> r(132);
  CHECK(cudaMemcpy(r.data(), g_res, 132 * 8, cudaMemcpyDeviceToHost));
  std::sort(r.begin(), r.end());
  return 32.0 * 8 * iters / double(r[66]);  // warp instructions per cycle per SM
}

// The atomic probe's rates (lane-ops per ns), with the launch shape of cases.h's probe cases.
static void atomic_probes(float* f) {
  for (int mode : {0, 1, 2, 3, 4})
    for (int lines : {1, 2, 4, 8, 16, 32, 64, 128}) {
      if ((mode == 1 && lines != 1 && lines != 8 && lines != 64) || (mode == 2 && lines != 1) || (mode >= 3 && lines != 1 && lines != 64)) continue;
      const int reps = mode != 1 && lines <= 2 ? 2 : 8;
      const float ms = time_ms([&] { atomic_probe<<<132 * 8, 256>>>(f, lines, mode, reps); }, 5);
      char name[64];
      const char* kind[5] = {"word", "line", "intword", "cas", "casmax"};
      std::snprintf(name, sizeof name, "atomic_probe_%s_l%d_ops", kind[mode], lines);
      out(name, 132.0 * 8 * 256 * reps / (ms * 1e6), "lane_ops/ns");
    }
}

// The scattered atomics' rates over an 8 MB region (L2-resident), in lane-ops per ns.
static void atomic_scatter(float* f) {
  const size_t nf = (size_t(8) << 20) / 4;
  for (int stride : {8, 32}) {
    const float ms = time_ms([&] { atomic_stride<<<132 * 16, 256>>>(f, nf, stride, 2); }, 5);
    out(stride == 8 ? "atomic_scatter_sector_ops" : "atomic_scatter_line_ops", double(nf) * 2 / (ms * 1e6), "lane_ops/ns");
  }
}

// Store and atomic throughput into L2 (an 8 MB region: L2-resident), in sectors or operations per
// nanosecond for the whole chip (divide by the SM clock in GHz for per-cycle).
static void store_and_atomic_rates(float* f) {
  const size_t nf = (size_t(8) << 20) / 4;
  const int passes = 8;
  float ms = time_ms([&] { store_stride<<<132 * 16, 256>>>(f, nf, 1, passes); }, 5);
  out("store_coalesced_sectors", double(nf) * passes / 8 / (ms * 1e6), "sectors/ns");
  ms = time_ms([&] { store_stride<<<132 * 16, 256>>>(f, nf, 32, passes); }, 5);
  out("store_scatter_sectors", double(nf) * passes / (ms * 1e6), "sectors/ns");
  // One sector per lane, four lanes per line (8 lines per request): separates a per-line
  // store cost (4x the scatter rate in sectors) from a per-sector one (the scatter rate).
  ms = time_ms([&] { store_stride<<<132 * 16, 256>>>(f, nf, 8, passes); }, 5);
  out("store_stride8_sectors", double(nf) * passes / (ms * 1e6), "sectors/ns");
  ms = time_ms([&] { atomic_add<<<132 * 16, 256>>>(f, nf, 1, 2); }, 5);
  out("atomic_distinct_ops", double(nf) * 2 / (ms * 1e6), "lane_ops/ns");
  ms = time_ms([&] { atomic_add<<<132 * 16, 256>>>(f, nf / 32, 0, 2); }, 5);
  out("atomic_same_word_ops", double(nf / 32) * 2 / (ms * 1e6), "lane_ops/ns");
  ms = time_ms([&] { atomic_add<<<132 * 16, 256>>>(f, size_t(1) << 18, 2, 2); }, 5);
  out("atomic_hot_lines_ops", double(size_t(1) << 18) * 2 / (ms * 1e6), "lane_ops/ns");
  atomic_probes(f);
  atomic_scatter(f);
}

// Latency of one precise operation in a dependent chain (issue to result, fast path), for
// arch's expanded_latency: ptxas expands each into a routine (docs/gpusim.md).
template <int kOp>
static void expanded_latency(const char* name) {
  const int iters = 64;
  lat_alu<kOp><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 4000000000u, 3, iters);
  out(name, double(res0()) / (16 * iters), "cycles");
}
static void expanded_latencies() {
  expanded_latency<7>("latency_sqrt_rn_f32");
  expanded_latency<8>("latency_rcp_rn_f32");
  expanded_latency<9>("latency_div_rn_f32");
  expanded_latency<10>("latency_sqrt_rn_f64");
  expanded_latency<11>("latency_rcp_rn_f64");
  expanded_latency<12>("latency_div_rn_f64");
  expanded_latency<13>("latency_div_u32");
}

// `microbench atomics` runs only the store and atomic rates (coalesced, scattered, same-word, hot
// lines, the probe), all from one process so that their ratios are of one clock state.
int main(int argc, char** argv) {
  CHECK(cudaMalloc(&g_res, 4096 * 8));
  if (argc > 1 && std::string(argv[1]) == "atomics") {
    void* f;
    CHECK(cudaMalloc(&f, size_t(8) << 20));
    CHECK(cudaMemset(f, 0, size_t(8) << 20));
    store_and_atomic_rates(static_cast<float*>(f));
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "expanded") {  // only the expanded operations' latencies
    expanded_latencies();
    return 0;
  }
  const int hops = 4096;
  lat_shared<<<1, 1>>>(g_res, hops);
  out("latency_shared_load", double(res0()) / hops, "cycles");
  const char* names[7] = {"latency_fma_f32", "latency_imad", "latency_fma_f64", "latency_mufu_ex2", "latency_shfl", "latency_iadd_xor_pair",
                          "latency_shfl_idx_chain"};
  const int iters = 256;
  lat_alu<0><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[0], double(res0()) / (16 * iters), "cycles");
  lat_alu<1><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[1], double(res0()) / (16 * iters), "cycles");
  lat_alu<2><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[2], double(res0()) / (16 * iters), "cycles");
  lat_alu<3><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[3], double(res0()) / (16 * iters), "cycles");
  lat_alu<4><<<1, 32>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[4], double(res0()) / (16 * iters), "cycles");
  lat_alu<5><<<1, 1>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[5], double(res0()) / (32 * iters), "cycles");
  lat_alu<6><<<1, 32>>>(g_res, 1.0001f, 0.9999f, 3, 5, iters); out(names[6], double(res0()) / (16 * iters), "cycles");
  expanded_latencies();

  // Global chains: L1 (16 KB, 128-byte stride), L2 (4 MB via .cg), DRAM (cold, 64 KB + 128 B stride).
  u64* buf;
  const size_t big = size_t(1) << 30;
  CHECK(cudaMalloc(&buf, big));
  make_chain<<<64, 256>>>(buf, 128, 16);
  lat_global<0><<<1, 1>>>(g_res, buf, 256, hops);
  out("latency_l1_hit", double(res0()) / hops, "cycles");
  make_chain<<<256, 256>>>(buf, 32768, 16);
  lat_global<1><<<1, 1>>>(g_res, buf, 32768, hops);
  out("latency_l2_hit", double(res0()) / hops, "cycles");
  const size_t stride_words = (65536 + 128) / 8;
  make_chain<<<64, 256>>>(buf, 8192, stride_words);
  void* scratch;
  CHECK(cudaMalloc(&scratch, size_t(512) << 20));
  CHECK(cudaMemset(scratch, 1, size_t(512) << 20));
  lat_global<1><<<1, 1>>>(g_res, buf, 0, hops);
  out("latency_dram", double(res0()) / hops, "cycles");

  out("throughput_fma_f32", throughput<0>(512), "warp_inst/cycle/SM");
  out("throughput_imad", throughput<1>(512), "warp_inst/cycle/SM");
  out("throughput_fma_f64", throughput<2>(256), "warp_inst/cycle/SM");
  out("throughput_mufu_ex2", throughput<3>(128), "warp_inst/cycle/SM");
  out("throughput_shared_load", throughput<4>(128), "warp_inst/cycle/SM");

  const size_t n4 = (size_t(1) << 30) / 16 / 2;  // two 512 MB halves
  float4* a = reinterpret_cast<float4*>(buf);
  float4* b = a + n4;
  float ms = time_ms([&] { copy4<<<132 * 16, 256>>>(a, b, n4); }, 5);
  out("dram_copy_bandwidth", 2.0 * n4 * 16 / (ms * 1e-3) / 1e9, "GB/s");
  ms = time_ms([&] { read4<<<132 * 16, 256>>>(a, reinterpret_cast<float*>(scratch), n4, 1); }, 5);
  out("dram_read_bandwidth", double(n4) * 16 / (ms * 1e-3) / 1e9, "GB/s");
  const size_t l2n = (size_t(16) << 20) / 16;
  ms = time_ms([&] { read4<<<132 * 16, 256>>>(a, reinterpret_cast<float*>(scratch), l2n, 32); }, 5);
  out("l2_read_bandwidth", 32.0 * l2n * 16 / (ms * 1e-3) / 1e9, "GB/s");
  store_and_atomic_rates(reinterpret_cast<float*>(scratch));
  // Loaded DRAM latency vs bandwidth: the chase of latency_dram (a fresh chain each time, so it
  // stays cold) beside 0 .. 1055 streaming blocks of 256 threads (at most 8 per SM, so all run
  // beside the chaser). Bandwidth = the stream's bytes over the chase's time (globaltimer).
  {
    int* stop;
    CHECK(cudaMalloc(&stop, sizeof(int)));
    // Streamed: the last 448 MB of buf (the chains below take its first ~545 MB).
    const size_t region = size_t(448) << 20;
    const float4* stream = reinterpret_cast<const float4*>(reinterpret_cast<char*>(buf) + (size_t(576) << 20));
    for (int blocks : {0, 66, 132, 264, 528, 792, 1055}) {
      make_chain<<<64, 256>>>(buf, 8192, stride_words + (blocks % 7) * 16);  // new addresses: cold in L2
      CHECK(cudaMemset(scratch, 2, size_t(512) << 20));                      // evict L2
      CHECK(cudaMemset(stop, 0, sizeof(int)));
      CHECK(cudaMemset(g_res, 0, 4 * 8));
      loaded_chase<<<1 + blocks, 256>>>(g_res, buf, 1024, stream, region / 16, stop, reinterpret_cast<float*>(scratch));
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      u64 r[4];
      CHECK(cudaMemcpy(r, g_res, sizeof r, cudaMemcpyDeviceToHost));
      char name[64];
      std::snprintf(name, sizeof name, "dram_loaded_latency_s%d", blocks);
      out(name, double(r[0]) / 1024, "cycles");
      std::snprintf(name, sizeof name, "dram_loaded_bandwidth_s%d", blocks);
      out(name, r[2] ? double(r[3]) / double(r[2]) : 0.0, "GB/s");
    }
    CHECK(cudaFree(stop));
  }
  ms = time_ms([&] { for (int i = 0; i < 1000; ++i) empty<<<1, 32>>>(); }, 3);
  out("launch_throughput_interval", ms * 1000.0 / 1000.0, "us");
  ms = time_ms([&] { empty<<<132, 128>>>(); }, 21);
  out("launch_single_event", ms * 1000.0, "us");
  clock_rate<<<1, 1>>>(g_res, 200000000);
  {
    u64 r[2];
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(r, g_res, sizeof r, cudaMemcpyDeviceToHost));
    out("sm_clock", double(r[0]) / double(r[1]) * 1000.0, "MHz");
  }
  void* pinned;
  const size_t pb = size_t(256) << 20;
  CHECK(cudaMallocHost(&pinned, pb));
  ms = time_ms([&] { CHECK(cudaMemcpy(buf, pinned, pb, cudaMemcpyHostToDevice)); }, 5);
  out("pcie_h2d_bandwidth", pb / (ms * 1e-3) / 1e9, "GB/s");
  ms = time_ms([&] { CHECK(cudaMemcpy(pinned, buf, pb, cudaMemcpyDeviceToHost)); }, 5);
  out("pcie_d2h_bandwidth", pb / (ms * 1e-3) / 1e9, "GB/s");
  return 0;
}
