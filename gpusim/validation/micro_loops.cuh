// gpusim/validation/micro_loops.cuh — the loops of the atomic microbenchmarks, shared by
// microbench.cu (timed on the GPU) and kernels.cu (the same launches, in gpusim's "micro" group
// and under ncu), so that the two run the same code.
#pragma once

// Lane i adds 1.0f into word (i * stride) % n, `passes` times over the grid-stride loop.
__device__ __forceinline__ void atomic_stride_loop(float* a, size_t n, size_t stride, int passes) {
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += threads) atomicAdd(a + (i * stride) % n, 1.0f);
}

// The atomic probe: warp w works on line (w % lines) of 128 bytes, `reps` times.
//   mode 0: all 32 lanes on the line's first word (a request of 32 lanes on one address)
//   mode 1: lane l on word l of the line (a request of 32 distinct words, 4 sectors)
//   mode 2: as mode 0 with int atomics (histograms count with ints)
//   mode 3: as mode 0 with compare-and-swap (atom.cas, a value returned)
//   mode 4: as mode 0, a float maximum by a compare-and-swap loop (Weft's atomic_max on floats:
//           lanes retry until theirs lands)
__device__ __forceinline__ void atomic_probe_loop(float* a, int lines, int mode, int reps) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  float* p = a + size_t(t / 32 % unsigned(lines)) * 32 + (mode == 1 ? t % 32 : 0);
  for (int r = 0; r < reps; ++r) {
    if (mode == 2) atomicAdd(reinterpret_cast<int*>(p), 1);
    else if (mode == 3) atomicCAS(reinterpret_cast<int*>(p), r, r + 1);
    else if (mode == 4) {
      int* q = reinterpret_cast<int*>(p);
      const float v = float(t % 997) + float(r);
      int old = *q, assumed;
      do {
        assumed = old;
        old = atomicCAS(q, assumed, __float_as_int(fmaxf(__int_as_float(assumed), v)));
      } while (old != assumed);
    } else atomicAdd(p, 1.0f);
  }
}
