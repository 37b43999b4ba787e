# Seeded: a barrier kernel over 100 elements in blocks of 64. It cannot return early before its
# barrier, so every thread of the last block runs (wp.launch takes whole blocks: 128 threads) and
# tids 100-127 read and write past the arrays, unguarded.
# audit: --dim 100 --shape a=100 --shape out=100
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = a[i]  # expect: bounds
    wp.sync_threads()
    out[i] = s[63 - t]  # expect: bounds
