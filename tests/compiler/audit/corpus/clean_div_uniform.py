# Clean: conditions on the block index, parameters, a bound guard, and a warp-aligned split.
# audit: --dim 256
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), n: int, scale: float):
    i = wp.tid()
    if i >= n:
        return
    if wp.block_idx() == 0:
        a[i] = 0.0
    if scale > 1.0:
        a[i] = a[i] * scale
    if wp.thread_idx() < 32:
        a[i] = a[i] + 1.0
    for j in range(n):
        a[i] = a[i] + 1.0
