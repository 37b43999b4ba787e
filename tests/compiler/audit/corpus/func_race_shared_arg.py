# Seeded inside a func: the shared tile is passed to a helper that reads a neighbour nobody synced.
# audit: --dim 64
import weft as wp

@wp.func
def smooth(s: wp.array(dtype=float), t: int) -> float:
    return 0.5 * (s[t] + s[t + 1])  # expect: shared-race

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(65,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    out[wp.tid()] = smooth(s, t)
