// Warp-level primitives: shuffles, votes, ballot, a warp reduction.
extern "C" __global__ void warp_ops(int* out) {
    int t = threadIdx.x;
    int lane = t & 31;
    int v = t * 3 + 1;
    out[0 * 64 + t] = __shfl_down_sync(0xffffffff, v, 1);
    out[1 * 64 + t] = __shfl_up_sync(0xffffffff, v, 2);
    out[2 * 64 + t] = __shfl_xor_sync(0xffffffff, v, 5);
    out[3 * 64 + t] = __shfl_sync(0xffffffff, v, 7);
    out[4 * 64 + t] = __shfl_down_sync(0xffffffff, v, 3, 8);  // width 8 segments
    out[5 * 64 + t] = (int)__ballot_sync(0xffffffff, lane % 3 == 0);
    out[6 * 64 + t] =
        __all_sync(0xffffffff, lane < 40) + 2 * __any_sync(0xffffffff, lane == 31) + 4 * __all_sync(0xffffffff, lane < 31);
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    out[7 * 64 + t] = s;
    unsigned m = 0;
    if (lane < 10) m = __activemask();
    out[8 * 64 + t] = (int)m;
}
