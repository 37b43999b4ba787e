# Clean: the index helper wraps around the tile, with an early return for the last thread.
# audit: --dim 64
import weft as wp

@wp.func
def right(t: int, n: int) -> int:
    if t == n - 1:
        return 0
    return t + 1

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    wp.sync_threads()
    a[wp.tid()] = s[right(t, 64)]
