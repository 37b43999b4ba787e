# Clean: a barrier in a constant loop.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(32,), dtype=float)
    t = wp.thread_idx()
    for j in range(4):
        s[t] = a[wp.tid()] * float(j)
        wp.sync_threads()
        a[wp.tid()] = s[31 - t]
        wp.sync_threads()
