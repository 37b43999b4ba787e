# Seeded: thread t writes s[t] and thread t-1 reads it, with no barrier between.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def neighbor(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(65,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    out[wp.tid()] = s[t + 1]  # expect: shared-race
