# Clean: atomics on one shared counter do not race with each other.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def histogram(bins: wp.array(dtype=int), out: wp.array(dtype=int)):
    h = wp.shared_array(shape=(8,), dtype=int)
    t = wp.thread_idx()
    if t < 8:  # expect: divergence
        h[t] = 0
    wp.sync_threads()
    wp.atomic_add(h, bins[wp.tid()] % 8, 1)
    wp.atomic_add(h, 0, 1)
    wp.sync_threads()
    if t < 8:  # expect: divergence
        out[t] = h[t]
