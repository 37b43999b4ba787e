# Seeded: lanes 0-15 and 16-31 of each warp.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if wp.lane_id() < 16:  # expect: divergence
        a[i] = 2.0 * a[i]
