# Seeded with the parameter known: n = 100 sends threads 100-127 of block 1 home before its barrier.
# audit: --dim 128 --arg n=100
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    if i >= n:
        return
    s[t] = a[i]
    wp.sync_threads()  # expect: barrier-divergence
    a[i] = s[63 - t]
