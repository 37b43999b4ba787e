# Seeded: the barrier is in the else branch of a lane test.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    if wp.lane_id() == 0:  # expect: divergence
        s[t] = 0.0
    else:
        s[t] = a[wp.tid()]
        wp.sync_threads()  # expect: barrier-divergence
    a[wp.tid()] = s[t]
