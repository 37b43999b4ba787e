// Kernels for tests/gpusim/cuda_kernels_test.cpp: parameters (a struct, several scalars),
// grid-stride indexing, a non-inlined device function call.
struct SaxpyParams {
    float* y;
    const float* x;
    int n;
    float a;
};

extern "C" __global__ void saxpy_struct(SaxpyParams p) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.y[i] = p.a * p.x[i] + p.y[i];
}

extern "C" __global__ void saxpy_scalars(float* y, const float* x, int n, float a) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}

__device__ __noinline__ float poly(float x, int k) {
    float r = 0.f;
    for (int j = 0; j < k; ++j) r = r * x + (float)(j + 1);
    return r;
}

extern "C" __global__ void call_poly(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = poly(in[i], i % 5);
}

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

extern "C" __global__ void recursive_fib(int* out) { out[threadIdx.x] = fib(threadIdx.x % 12); }

extern "C" __global__ void index_3d(int* out) {
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int nt = blockDim.x * blockDim.y * blockDim.z;
    out[b * nt + t] =
        (int)(threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z + 1000 * blockIdx.x + 10000 * blockIdx.y + 100000 * blockIdx.z);
}
