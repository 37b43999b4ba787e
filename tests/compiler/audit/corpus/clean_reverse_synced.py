# Clean: the reversal with its barrier.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def reverse(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    wp.sync_threads()
    out[wp.tid()] = s[63 - t]
