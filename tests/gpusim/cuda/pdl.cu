// Kernels for tests/gpusim/cuda_kernels_test.cpp: programmatic dependent launch (sm_90), as
// every Weft CUDA entry begins (compiler/codegen/cpp_codegen.h, kCudaEntryGridWait): wait for
// the grids ahead in the stream, then touch memory; here also the early trigger for the next grid.
extern "C" __global__ void add_one_pdl(float* y, int n) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 1.0f;
    asm volatile("griddepcontrol.launch_dependents;" :::);
}
