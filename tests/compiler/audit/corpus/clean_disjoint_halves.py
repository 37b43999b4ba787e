# Clean: each thread owns two disjoint elements.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def halves(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    s[t + 64] = 2.0 * s[t]
    out[wp.tid()] = s[t] + s[t + 64]
