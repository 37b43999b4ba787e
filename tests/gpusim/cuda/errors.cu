// Kernels that must fail with a clear SimError.
extern "C" __global__ void barrier_divergence(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    if (threadIdx.x % 2 == 0) {
        __syncthreads();  // only half of each warp gets here
    }
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}

extern "C" __global__ void shared_out_of_bounds(int* out, int k) {
    __shared__ int s[32];
    s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + k];  // k = 1000 reads far past the array
}
