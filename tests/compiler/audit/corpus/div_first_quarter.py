# Seeded: a block of 64 with `t < 16`: warp 0 splits 16/16.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    t = wp.thread_idx()
    if t < 16:  # expect: divergence
        a[wp.tid()] = 0.0
