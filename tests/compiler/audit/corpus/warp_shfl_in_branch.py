# Seeded: a full-mask shuffle inside a branch that only half of each warp takes.
# audit: --dim 64
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = a[i]
    if wp.lane_id() < 16:  # expect: divergence
        v += wp.shfl_down_sync(0xffffffff, v, 16)  # expect: warp-sync-divergence
    out[i] = v
