# Clean: a barrier in a loop over a parameter: every thread iterates the same number of times.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    for j in range(n):
        s[t] = a[wp.tid()] * float(j)
        wp.sync_threads()
        a[wp.tid()] = s[63 - t]
        wp.sync_threads()
