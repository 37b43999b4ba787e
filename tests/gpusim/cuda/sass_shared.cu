// Shared loads and stores of every width, each on its own PTX line (inline PTX, so that ptxas
// keeps one instruction per access), and a broadcast row read that ptxas merges into 128-bit
// loads (tests/gpusim/sass/sass_map_test.cpp).
extern "C" __global__ void shared_widths(unsigned* out) {
    __shared__ __align__(16) unsigned char s[1024];  // launched with at most 32 threads
    const unsigned a = unsigned(__cvta_generic_to_shared(s)) + threadIdx.x * 16;
    unsigned x, y, z, w, b, h, p, q;
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(a), "r"(threadIdx.x) : "memory");
    asm volatile("st.shared.u16 [%0+2], %1;" ::"r"(a), "r"(threadIdx.x) : "memory");
    asm volatile("st.shared.u32 [%0+4], %1;" ::"r"(a), "r"(threadIdx.x) : "memory");
    asm volatile("st.shared.v2.u32 [%0+8], {%1, %1};" ::"r"(a), "r"(threadIdx.x) : "memory");
    __syncthreads();
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(b) : "r"(a) : "memory");
    asm volatile("ld.shared.u16 %0, [%1+2];" : "=r"(h) : "r"(a) : "memory");
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2+8];" : "=r"(p), "=r"(q) : "r"(a) : "memory");
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4+512];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a) : "memory");
    out[threadIdx.x] = b + h + p + q + x + y + z + w;
}

// Each thread reads row threadIdx.x / 16 of a 16x16 tile: the PTX has 16 ld.shared.f32, ptxas
// issues them as four LDS.128 (as in matmul_tiled's inner loop).
extern "C" __global__ void row_sum(const float* in, float* out) {
    __shared__ float tile[16][16];
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    tile[ty][tx] = in[threadIdx.x];
    __syncthreads();
    float acc = 0;
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += tile[ty][k] * float(k + 1);
    out[threadIdx.x] = acc;
}
