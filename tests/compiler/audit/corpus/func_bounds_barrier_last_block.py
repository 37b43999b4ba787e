# Seeded: the barrier is inside a func, so the kernel still runs in whole blocks: over 100 elements
# in blocks of 64, tids 100-127 run too and overrun 'a' (unguarded), in the kernel and in the func.
# audit: --dim 100 --shape a=100
import weft as wp

@wp.func
def exchange(s: wp.array(dtype=float), a: wp.array(dtype=float), i: int, t: int):
    wp.sync_threads()
    a[i] = s[63 - t]  # expect: bounds

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = a[i]  # expect: bounds
    exchange(s, a, i, t)
