# Seeded: the guard returns lanes 100..127, then the last warp reduces with the full mask.
# audit: --dim 128 --shape a=100 --shape out=4
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    if i >= a.shape[0]:
        return
    v = a[i]
    for k in range(5):
        v += wp.shfl_xor_sync(0xffffffff, v, 1 << k)  # expect: warp-sync-divergence
    if wp.lane_id() == 0:  # expect: divergence
        out[i // 32] = v
