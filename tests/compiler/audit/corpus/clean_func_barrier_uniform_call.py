# Clean: the same synchronising func, called by every thread of the block.
# audit: --dim 64
import weft as wp

@wp.func
def exchange(s: wp.array(dtype=float), t: int) -> float:
    wp.sync_threads()
    return s[63 - t]

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    a[wp.tid()] = exchange(s, t)
