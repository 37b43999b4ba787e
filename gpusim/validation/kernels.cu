// gpusim/validation/kernels.cu — the validation kernels, compiled to PTX for gpusim (locally,
// nvcc --ptx -lineinfo -arch=sm_90) and to SASS for the H200 (gpu_driver.cu includes this file).
//
// All share one signature (see cases.h). They are small, classic kernels chosen in variant
// pairs so the simulator is scored on differences, not only on absolute figures: padded vs
// unpadded shared-memory transpose, interleaved (divergent, bank-conflicting) vs sequential vs
// shuffle reduction, naive vs tiled matmul, coalesced vs strided reads.
#define K extern "C" __global__ void

#include "micro_loops.cuh"

K empty_kernel(const float*, const float*, float*, int, int, int) {}

// ---- shared-memory bank sweep: one warp; lane reads element (lane / q) * n, p times -------
// The loads are inline PTX so that each iteration issues exactly one ld.shared of the width.
__device__ __forceinline__ unsigned lds(unsigned a, int width) {
  unsigned x, y, z, w;
  if (width == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
    return x;
  }
  if (width == 8) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
    return x + y;
  }
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
  return x + y + z + w;
}
#define SWEEP(NAME, WIDTH)                                                          \
  K NAME(const float*, const float*, float* out, int n, int p, int q) {             \
    __shared__ uint4 raw[1056];                                                     \
    const int lane = threadIdx.x;                                                   \
    for (int i = lane; i < 1056; i += 32) raw[i] = make_uint4(i, i, i, i);          \
    __syncthreads();                                                                \
    const unsigned base = unsigned(__cvta_generic_to_shared(raw));                  \
    const unsigned a = base + unsigned((lane / q) * n * WIDTH);                     \
    unsigned acc = 0;                                                               \
    for (int it = 0; it < p; ++it) acc += lds(a, WIDTH) + it;                       \
    out[lane] = __uint_as_float(acc);                                               \
  }
SWEEP(smem_ld4, 4)
SWEEP(smem_ld8, 8)
SWEEP(smem_ld16, 16)

// ---- streaming --------------------------------------------------------------------------
K vec_add(const float* a, const float* b, float* out, int n, int, int) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

K saxpy_gridstride(const float* x, const float* y, float* out, int n, int, int) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 2.5f * x[i] + y[i];
}

K strided_read(const float* a, const float*, float* out, int n, int stride, int) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[(long long)i * stride % n];
}

// ---- transpose (n x n, block 32x8, tile 32) -----------------------------------------------
K transpose_naive(const float* in, const float*, float* out, int n, int, int) {
  const int x = blockIdx.x * 32 + threadIdx.x;
  const int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[x * n + (y + j)] = in[(y + j) * n + x];
}

#define TRANSPOSE(NAME, PAD)                                                   \
  K NAME(const float* in, const float*, float* out, int n, int, int) {         \
    __shared__ float tile[32][32 + PAD];                                       \
    int x = blockIdx.x * 32 + threadIdx.x;                                     \
    int y = blockIdx.y * 32 + threadIdx.y;                                     \
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x]; \
    __syncthreads();                                                           \
    x = blockIdx.y * 32 + threadIdx.x;                                         \
    y = blockIdx.x * 32 + threadIdx.y;                                         \
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j]; \
  }
TRANSPOSE(transpose_tiled, 0)
TRANSPOSE(transpose_padded, 1)

// ---- reductions (256 threads, one partial sum per block) ----------------------------------
K reduce_interleaved(const float* in, const float*, float* out, int n, int, int) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < unsigned(n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned st = 1; st < blockDim.x; st *= 2) {
    if (tid % (2 * st) == 0) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

K reduce_tree(const float* in, const float*, float* out, int n, int, int) {
  __shared__ float s[256];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = i < unsigned(n) ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (tid < st) s[tid] += s[tid + st];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

K reduce_shfl(const float* in, const float*, float* out, int n, int, int) {
  __shared__ float s[8];
  const unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < unsigned(n) ? in[i] : 0.0f;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((tid & 31) == 0) s[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {
    v = tid < 8 ? s[tid] : 0.0f;
    for (int o = 4; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// ---- arithmetic -------------------------------------------------------------------------
K fma_chain(const float* in, const float*, float* out, int n, int iters, int) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i], b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
  for (int k = 0; k < iters; ++k) {
    a = fmaf(a, 0.999f, 0.5f);
    b = fmaf(b, 0.998f, 0.25f);
    c = fmaf(c, 0.997f, 0.125f);
    d = fmaf(d, 0.996f, 0.0625f);
  }
  out[i] = a + b + c + d;
}

K sfu_mix(const float* in, const float*, float* out, int n, int iters, int) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = in[i];
  for (int k = 0; k < iters; ++k) a = __sinf(a) + __expf(-a) * 0.5f;
  out[i] = a;
}

// ---- stencil (radius 3) through shared memory ----------------------------------------------
K stencil_smem(const float* in, const float*, float* out, int n, int, int) {
  __shared__ float s[256 + 6];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x + 3] = in[i];
  if (threadIdx.x < 3) {
    s[threadIdx.x] = i >= 3 ? in[i - 3] : 0.0f;
    s[threadIdx.x + 256 + 3] = i + 256 < n ? in[i + 256] : 0.0f;
  }
  __syncthreads();
  float acc = 0.0f;
  for (int r = -3; r <= 3; ++r) acc += s[threadIdx.x + 3 + r] * (0.1f + 0.01f * r);
  out[i] = acc;
}

// ---- matmul (n x n, block 16x16) -------------------------------------------------------------
K matmul_naive(const float* a, const float* b, float* c, int n, int, int) {
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

K matmul_tiled(const float* a, const float* b, float* c, int n, int, int) {
  __shared__ float as[16][16], bs[16][16];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    as[ty][tx] = a[row * n + t + tx];
    bs[ty][tx] = b[(t + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < 16; ++k) acc += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[row * n + col] = acc;
}

// ---- atomics and divergence --------------------------------------------------------------
K histogram_smem(const float* in, const float*, float* out, int n, int, int) {
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&h[unsigned(in[i] * 256.0f) & 255u], 1u);
  __syncthreads();
  atomicAdd(reinterpret_cast<unsigned*>(out) + threadIdx.x, h[threadIdx.x]);
}

K divergent_loop(const float* in, const float*, float* out, int n, int, int) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  const int trips = 8 + (i & 7) * 4;
  for (int k = 0; k < trips; ++k) {
    if ((k + i) & 1) v = v * 1.01f + 0.5f;
    else v = v * 0.99f - 0.25f;
  }
  out[i] = v;
}

// ---- the store and atomic microbenchmarks of microbench.cu, in this file's signature ---------
// Group "micro" of cases.h: never scored. gpusim runs them to check that the model, with the
// rates h200.json took from micro.txt, reproduces those rates (compare.py's "micro" table);
// in particular whether a loop is bound by its instructions or by the memory system.
K micro_store_stride(const float*, const float*, float* a, int n, int stride, int passes) {
  const size_t threads = size_t(gridDim.x) * blockDim.x, nn = size_t(n);
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += threads) a[(i * stride) % nn] = float(p);
}
K micro_atomic_add(const float*, const float*, float* a, int n, int spread, int passes) {
  const size_t threads = size_t(gridDim.x) * blockDim.x, nn = size_t(n);
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nn; i += threads) atomicAdd(a + (spread == 2 ? i % 256 : spread ? i : i / 32), 1.0f);
}
// microbench.cu's atomic_stride (the scattered atomics): lane i adds into word (i * p) % n;
// p = 8: one sector per lane (4 lanes per line), p = 32: one line per lane.
K micro_atomic_stride(const float*, const float*, float* a, int n, int p, int q) { atomic_stride_loop(a, size_t(n), size_t(p), q); }
// microbench.cu's atomic_probe: n = lines, p = mode (0 one word per line, 1 every word of the
// line, 2 one word with int atomics, 3 one word with compare-and-swap, 4 a float maximum on one
// word by a compare-and-swap loop), q = reps.
K micro_atomic_probe(const float*, const float*, float* a, int n, int p, int q) { atomic_probe_loop(a, n, p, q); }

// ---- DRAM ramp: bytes in flight vs time (group "ramp" of cases.h, never scored) ---------------
// Every thread issues `p` independent 4-byte loads, `threads` floats apart (each a coalesced
// 128-byte request per warp), from a buffer no earlier launch touched, and stores nothing
// (the sum is kept only if it is impossible). One wave of blocks fills every SM, so the time is
// about one loaded DRAM round trip of p x 8 KiB per SM in flight: ncu's cycles per case against
// gpusim's check the loaded-latency curve (dram.loaded_latency) at several loads.
K micro_dram_inflight(const float* a, const float*, float* out, int n, int p, int) {
  const size_t threads = size_t(gridDim.x) * blockDim.x, nn = size_t(n);
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < p; ++k, i += threads) acc += a[i % nn];
  if (acc < 0.0f) out[0] = acc;
}
