# Seeded: a barrier under a condition on loaded data.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    if a[wp.tid()] > 0.0:  # expect: divergence
        wp.sync_threads()  # expect: barrier-divergence
    out[wp.tid()] = s[t]
