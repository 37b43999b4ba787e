// gpusim/validation/gpu_driver.cu — runs the validation launches of cases.h on the GPU, once
// each, so that `ncu` can profile every launch (gpusim/validation/run_h200.sh).
//
//   gpu_driver cases [group]   launch every case (of one group), in cases.h order
// Inputs are made by cases.h's generator, so the simulator sees the same data.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cases.h"
#include "kernels.cu"

using Kern = void (*)(const float*, const float*, float*, int, int, int);

#define CHECK(x)                                                                     \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

int main(int argc, char** argv) {
  using namespace weft::gpusim::validation;
  const std::map<std::string, Kern> table = {
      {"empty_kernel", empty_kernel}, {"smem_ld4", smem_ld4}, {"smem_ld8", smem_ld8}, {"smem_ld16", smem_ld16},
      {"vec_add", vec_add}, {"saxpy_gridstride", saxpy_gridstride}, {"strided_read", strided_read},
      {"transpose_naive", transpose_naive}, {"transpose_tiled", transpose_tiled}, {"transpose_padded", transpose_padded},
      {"reduce_interleaved", reduce_interleaved}, {"reduce_tree", reduce_tree}, {"reduce_shfl", reduce_shfl},
      {"fma_chain", fma_chain}, {"sfu_mix", sfu_mix}, {"stencil_smem", stencil_smem},
      {"matmul_naive", matmul_naive}, {"matmul_tiled", matmul_tiled}, {"histogram_smem", histogram_smem},
      {"divergent_loop", divergent_loop}, {"micro_store_stride", micro_store_stride}, {"micro_atomic_add", micro_atomic_add}, {"micro_atomic_probe", micro_atomic_probe},
      {"micro_atomic_stride", micro_atomic_stride},
      {"micro_dram_inflight", micro_dram_inflight}};
  const std::string group = argc > 1 ? argv[1] : "";
  for (const Case& c : all_cases()) {
    if (!group.empty() && c.group != group) continue;
    auto it = table.find(c.kernel);
    if (it == table.end()) {
      std::fprintf(stderr, "no kernel %s\n", c.kernel.c_str());
      return 1;
    }
    std::vector<float> h0(c.in0), h1(c.in1);
    fill_inputs(h0.data(), h0.size(), 1);
    fill_inputs(h1.data(), h1.size(), 2);
    float *d0 = nullptr, *d1 = nullptr, *d2 = nullptr;
    CHECK(cudaMalloc(&d0, std::max<size_t>(c.in0, 1) * 4));
    CHECK(cudaMalloc(&d1, std::max<size_t>(c.in1, 1) * 4));
    CHECK(cudaMalloc(&d2, std::max<size_t>(c.out, 1) * 4));
    if (c.in0) CHECK(cudaMemcpy(d0, h0.data(), c.in0 * 4, cudaMemcpyHostToDevice));
    if (c.in1) CHECK(cudaMemcpy(d1, h1.data(), c.in1 * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d2, 0, c.out * 4));
    it->second<<<dim3(c.gx, c.gy), dim3(c.bx, c.by)>>>(d0, d1, d2, c.n, c.p, c.q);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ho(c.out);
    CHECK(cudaMemcpy(ho.data(), d2, c.out * 4, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (float v : ho) sum += v;
    std::printf("case %s checksum %.6g\n", c.id.c_str(), sum);
    CHECK(cudaFree(d0));
    CHECK(cudaFree(d1));
    CHECK(cudaFree(d2));
  }
  return 0;
}
