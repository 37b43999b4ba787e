# Seeded: the full-mask shuffle sits in a func that only the even lanes call.
# audit: --dim 64 --shape a=64
import weft as wp

@wp.func
def neighbour_sum(v: float) -> float:
    return v + wp.shfl_xor_sync(0xffffffff, v, 2)  # expect: warp-sync-divergence

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() % 2 == 0:  # expect: divergence
        a[i] = neighbour_sum(a[i])
