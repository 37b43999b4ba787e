// Atomics: a histogram in global memory and one through shared memory, plus min/max/cas/exch.
extern "C" __global__ void histogram(const int* in, int n, unsigned* bins, int nbins) {
    __shared__ unsigned local_bins[64];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) local_bins[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local_bins[in[i] % nbins], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x) atomicAdd(&bins[b], local_bins[b]);
}

extern "C" __global__ void atomic_mix(int* v, float* f, double* d, unsigned long long* u) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicMin(&v[0], 1000 - t);
    atomicMax(&v[1], t);
    atomicAdd(&v[2], t);
    atomicCAS(&v[3], t, t + 1);  // increments only in thread order 0, 1, 2, ... when run in order
    atomicExch(&v[4], 7);
    atomicAdd(f, 0.5f);
    atomicAdd(d, 0.25);
    atomicAdd(u, 1ull << 33);
    atomicInc((unsigned*)&v[5], 9);
}
