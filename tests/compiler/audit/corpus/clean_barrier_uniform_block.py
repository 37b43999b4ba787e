# Clean: a barrier under a condition on the block index is uniform in the block.
# audit: --dim 128
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    if wp.block_idx() == 0:
        wp.sync_threads()
        a[wp.tid()] = s[63 - t]
