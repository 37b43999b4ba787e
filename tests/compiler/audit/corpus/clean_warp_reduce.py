# Clean: every lane of every warp reaches the full-mask reduction (256 threads, 8 whole warps).
# audit: --dim 256 --shape a=256 --shape out=8
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = a[i]
    offset = 16
    while offset > 0:
        v += wp.shfl_down_sync(0xffffffff, v, offset)
        offset = offset // 2
    if wp.lane_id() == 0:  # expect: divergence
        out[i // 32] = v
