# Clean: a barrier under a condition on a parameter.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    if n > 4:
        wp.sync_threads()
        a[wp.tid()] = s[63 - t]
