# Clean: the same helper with an odd stride (33 words): every lane in its own bank.
# audit: --dim 32
import weft as wp

@wp.func
def put(s: wp.array(dtype=float), t: int, v: float):
    s[33 * t] = v

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(1056,), dtype=float)
    t = wp.thread_idx()
    put(s, t, a[wp.tid()])
    wp.sync_threads()
    a[wp.tid()] = s[33 * t]
