# Seeded: a smoothing loop that reads a neighbour written in the same interval.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def smooth(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(32,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    wp.sync_threads()
    for k in range(3):
        s[t] = 0.5 * (s[t] + s[(t + 1) % 32])  # expect: shared-race
    a[wp.tid()] = s[t]
