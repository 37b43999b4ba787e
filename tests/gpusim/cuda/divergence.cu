// Divergence and reconvergence: nested ifs, lane-dependent loops, break/continue, early exit.
extern "C" __global__ void nested_ifs(int* out) {
    int t = threadIdx.x;
    int v = 0;
    if (t & 1) {
        v += 1;
        if (t & 2)
            v += 10;
        else
            v += 20;
    } else {
        if (t % 3 == 0) v += 100;
    }
    v += 1000;  // everyone again
    out[t] = v;
}

extern "C" __global__ void lane_loops(int* out) {
    int t = threadIdx.x;
    int sum = 0;
    for (int i = 0; i < t; ++i) {
        if (i % 3 == 0) continue;
        if (i > 20) break;
        sum += i;
    }
    out[t] = sum;
}

extern "C" __global__ void early_exit(int* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = t;
    while (x != 1 && x > 0) x = (x & 1) ? 3 * x + 1 : x / 2;  // Collatz: lane-dependent trips
    out[t] = x + t;
}
