# Seeded: a barrier in a loop whose trip count depends on the thread.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(32,), dtype=float)
    t = wp.thread_idx()
    i = 0
    while i < t % 4:  # expect: divergence
        s[t] = a[wp.tid()] + float(i)
        wp.sync_threads()  # expect: barrier-divergence
        i = i + 1
