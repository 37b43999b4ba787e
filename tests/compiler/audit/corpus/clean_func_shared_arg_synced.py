# Clean: the same helper, called after the barrier; the halo element is written before it.
# audit: --dim 64
import weft as wp

@wp.func
def smooth(s: wp.array(dtype=float), t: int) -> float:
    return 0.5 * (s[t] + s[t + 1])

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(65,), dtype=float)
    t = wp.thread_idx()
    s[t + 1] = a[wp.tid()]
    if t == 0:  # expect: divergence
        s[0] = 0.0
    wp.sync_threads()
    out[wp.tid()] = smooth(s, t)
