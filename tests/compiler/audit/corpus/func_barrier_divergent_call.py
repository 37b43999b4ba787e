# Seeded: a func that synchronises, called from a branch only the first warp takes.
# audit: --dim 64
import weft as wp

@wp.func
def exchange(s: wp.array(dtype=float), t: int) -> float:
    wp.sync_threads()  # expect: barrier-divergence
    return s[31 - t]

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    if t < 32:
        a[wp.tid()] = exchange(s, t)
