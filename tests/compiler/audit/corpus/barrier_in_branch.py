# Seeded: the barrier sits inside a branch only the first warp takes.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    if t < 32:
        wp.sync_threads()  # expect: barrier-divergence
        a[wp.tid()] = s[63 - t]
