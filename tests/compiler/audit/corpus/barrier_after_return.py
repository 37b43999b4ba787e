# Seeded: an early return before the barrier.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if t >= 48:  # expect: divergence
        return
    s[t] = a[wp.tid()]
    wp.sync_threads()  # expect: barrier-divergence
    a[wp.tid()] = s[47 - t]
