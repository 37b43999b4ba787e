// gpusim/validation/cases.h — the one list of validation launches, shared by the GPU driver
// (gpu_driver.cu, built by nvcc on the H200) and the simulator driver (sim_validate.cpp).
//
// Every validation kernel has the same signature, so one table drives both sides:
//   extern "C" __global__ void k(const float* in0, const float* in1, float* out, int n, int p, int q)
// Inputs are filled with the same deterministic pseudo-random floats in [0, 1) on both sides,
// so data-dependent kernels (histogram) take the same paths. Groups:
//   sweep   shared-memory bank sweep: 1 warp, n = stride in elements, p = iterations,
//           q = lanes sharing one element (1: none, 2/4: pair/quad broadcast, 32: all)
//   kernel  scored kernels (variant pairs: transpose padded/unpadded, reductions, matmul)
//   calib   calibration launches (the empty kernel: launch ramp cycles; waves of empty blocks:
//           block turnaround); never scored
//   micro   microbench.cu's store and atomic throughput loops (same launches, same sizes):
//           gpusim is checked against micro.txt's rates; never scored
//   ramp    DRAM reads with 1..16 loads in flight per thread, one or four waves of blocks
//           (micro_dram_inflight): ncu's cycles check the loaded DRAM latency; never scored
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace weft::gpusim::validation {

struct Case {
  std::string id;        // unique name of the launch
  std::string kernel;    // extern "C" symbol
  std::string group;     // "sweep", "kernel", "calib", "micro" or "ramp"
  unsigned gx = 1, gy = 1, bx = 32, by = 1;
  int n = 0, p = 0, q = 0;
  size_t in0 = 0, in1 = 0, out = 1;  // element counts (floats) of the three buffers
};

inline std::vector<Case> all_cases() {
  std::vector<Case> c;
  c.push_back({"empty", "empty_kernel", "calib", 132, 1, 128, 1, 0, 0, 0, 0, 0, 1});
  // Block turnaround: empty blocks in 1, 4 and 16 waves of 8 blocks of 256 per SM, and in 2 and
  // 32 waves of 2 blocks of 1024: the cycles each further wave adds are a slot's turnaround (an
  // empty block's life plus launch.block_launch_cycles), per SM or chip-wide as the two shapes
  // tell (compare.py's "Block turnaround" table).
  for (int waves : {1, 4, 16}) c.push_back({"blocks256_w" + std::to_string(waves), "empty_kernel", "calib", 132u * 8 * unsigned(waves), 1, 256, 1, 0, 0, 0, 0, 0, 1});
  for (int waves : {2, 32}) c.push_back({"blocks1024_w" + std::to_string(waves), "empty_kernel", "calib", 132u * 2 * unsigned(waves), 1, 1024, 1, 0, 0, 0, 0, 0, 1});
  // Shared-memory sweep: 4-, 8-, 16-byte loads, strides 1..33, plus broadcasts.
  const char* widths[3] = {"smem_ld4", "smem_ld8", "smem_ld16"};
  for (const char* k : widths) {
    for (int s = 1; s <= 33; ++s) c.push_back({std::string(k) + "_s" + std::to_string(s), k, "sweep", 1, 1, 32, 1, s, 64, 1, 0, 0, 32 * 4});
    for (int g : {2, 4, 32}) c.push_back({std::string(k) + "_bcast" + std::to_string(g), k, "sweep", 1, 1, 32, 1, 1, 64, g, 0, 0, 32 * 4});
  }
  const size_t m = size_t{1} << 20;
  c.push_back({"vec_add", "vec_add", "kernel", unsigned(m / 256), 1, 256, 1, int(m), 0, 0, m, m, m});
  c.push_back({"saxpy_gridstride", "saxpy_gridstride", "kernel", 264, 1, 256, 1, int(m), 0, 0, m, m, m});
  c.push_back({"strided_read32", "strided_read", "kernel", unsigned(m / 256 / 4), 1, 256, 1, int(m), 32, 0, m, 0, m / 4});
  const int t = 1024;
  const size_t tt = size_t(t) * t;
  c.push_back({"transpose_naive", "transpose_naive", "kernel", t / 32, t / 32, 32, 8, t, 0, 0, tt, 0, tt});
  c.push_back({"transpose_tiled", "transpose_tiled", "kernel", t / 32, t / 32, 32, 8, t, 0, 0, tt, 0, tt});
  c.push_back({"transpose_padded", "transpose_padded", "kernel", t / 32, t / 32, 32, 8, t, 0, 0, tt, 0, tt});
  c.push_back({"reduce_interleaved", "reduce_interleaved", "kernel", unsigned(m / 256), 1, 256, 1, int(m), 0, 0, m, 0, m / 256});
  c.push_back({"reduce_tree", "reduce_tree", "kernel", unsigned(m / 256), 1, 256, 1, int(m), 0, 0, m, 0, m / 256});
  c.push_back({"reduce_shfl", "reduce_shfl", "kernel", unsigned(m / 256), 1, 256, 1, int(m), 0, 0, m, 0, m / 256});
  c.push_back({"fma_chain", "fma_chain", "kernel", 512, 1, 256, 1, 131072, 64, 0, 131072, 0, 131072});
  c.push_back({"sfu_mix", "sfu_mix", "kernel", 512, 1, 256, 1, 131072, 16, 0, 131072, 0, 131072});
  c.push_back({"stencil_smem", "stencil_smem", "kernel", unsigned(m / 256), 1, 256, 1, int(m), 0, 0, m, 0, m});
  const int mm = 256;
  c.push_back({"matmul_naive", "matmul_naive", "kernel", mm / 16, mm / 16, 16, 16, mm, 0, 0, size_t(mm) * mm, size_t(mm) * mm, size_t(mm) * mm});
  c.push_back({"matmul_tiled", "matmul_tiled", "kernel", mm / 16, mm / 16, 16, 16, mm, 0, 0, size_t(mm) * mm, size_t(mm) * mm, size_t(mm) * mm});
  c.push_back({"histogram_smem", "histogram_smem", "kernel", 1024, 1, 256, 1, int(m), 0, 0, m, 0, 256});
  c.push_back({"divergent_loop", "divergent_loop", "kernel", 1024, 1, 256, 1, 262144, 0, 0, 262144, 0, 262144});
  // microbench.cu's store/atomic loops: 8 MB region (2M floats), 132 * 16 blocks of 256.
  const int nf = 1 << 21;
  c.push_back({"store_coalesced", "micro_store_stride", "micro", 132 * 16, 1, 256, 1, nf, 1, 8, 0, 0, size_t(nf)});
  c.push_back({"store_scatter", "micro_store_stride", "micro", 132 * 16, 1, 256, 1, nf, 32, 8, 0, 0, size_t(nf)});
  c.push_back({"store_stride8", "micro_store_stride", "micro", 132 * 16, 1, 256, 1, nf, 8, 8, 0, 0, size_t(nf)});
  c.push_back({"atomic_distinct", "micro_atomic_add", "micro", 132 * 16, 1, 256, 1, nf, 1, 2, 0, 0, size_t(nf)});
  c.push_back({"atomic_same_word", "micro_atomic_add", "micro", 132 * 16, 1, 256, 1, nf / 32, 0, 2, 0, 0, size_t(nf / 32)});
  c.push_back({"atomic_hot_lines", "micro_atomic_add", "micro", 132 * 16, 1, 256, 1, 1 << 18, 2, 2, 0, 0, 256});
  c.push_back({"atomic_scatter_sector", "micro_atomic_stride", "micro", 132 * 16, 1, 256, 1, nf, 8, 2, 0, 0, size_t(nf)});
  c.push_back({"atomic_scatter_line", "micro_atomic_stride", "micro", 132 * 16, 1, 256, 1, nf, 32, 2, 0, 0, size_t(nf)});
  // microbench.cu's atomic probe (same launches): "word" = 32 lanes on one address per line,
  // "line" = 32 distinct words of a line, over 1..128 consecutive lines; "intword" = "word" with ints;
  // "cas" = "word" with compare-and-swap; "casmax" = a float maximum by a compare-and-swap loop.
  const char* probe_kind[5] = {"word", "line", "intword", "cas", "casmax"};
  for (int mode : {0, 1, 2, 3, 4})
    for (int lines : {1, 2, 4, 8, 16, 32, 64, 128}) {
      if ((mode == 1 && lines != 1 && lines != 8 && lines != 64) || (mode == 2 && lines != 1) || (mode >= 3 && lines != 1 && lines != 64)) continue;
      const int reps = mode != 1 && lines <= 2 ? 2 : 8;
      c.push_back({std::string("atomic_probe_") + probe_kind[mode] + "_l" + std::to_string(lines), "micro_atomic_probe", "micro", 132 * 8, 1, 256, 1,
                   lines, mode, reps, 0, 0, size_t(lines) * 32});
    }
  // DRAM ramp: one wave (132 SMs x 8 blocks of 256) with p = 1..16 loads per thread, and four
  // waves with p = 4. n = the floats read, so every load is a distinct element.
  for (int waves : {1, 4})
    for (int p : {1, 2, 4, 8, 16}) {
      if (waves == 4 && p != 4) continue;
      const unsigned blocks = 132 * 8 * unsigned(waves);
      const size_t floats = size_t(blocks) * 256 * size_t(p);
      c.push_back({"ramp_w" + std::to_string(waves) + "_p" + std::to_string(p), "micro_dram_inflight", "ramp", blocks, 1, 256, 1, int(floats), p, 0,
                   floats, 0, 1});
    }
  return c;
}

// The shared input generator: a 32-bit LCG, value in [0, 1).
inline void fill_inputs(float* p, size_t n, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<float>(s >> 8) * (1.0f / 16777216.0f);
  }
}

}  // namespace weft::gpusim::validation
