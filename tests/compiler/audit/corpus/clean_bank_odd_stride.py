# Clean: an odd stride (3) visits every bank once.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(96,), dtype=float)
    t = wp.thread_idx()
    s[3 * t] = a[wp.tid()]
