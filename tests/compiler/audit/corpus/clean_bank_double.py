# Clean: consecutive float64: two half-warp phases, the ideal.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=wp.float64)):
    s = wp.shared_array(shape=(32,), dtype=wp.float64)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
