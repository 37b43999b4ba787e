# Clean: the branch does the work; the barrier is outside it.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if t < 32:
        s[t] = a[wp.tid()]
    else:
        s[t] = 0.0
    wp.sync_threads()
    a[wp.tid()] = s[63 - t]
