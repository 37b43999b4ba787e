# Seeded inside a func: a helper stores each thread's value 32 words apart (every lane in bank 0).
# audit: --dim 32
import weft as wp

@wp.func
def put(s: wp.array(dtype=float), t: int, v: float):
    s[32 * t] = v  # expect: bank-conflict

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(1024,), dtype=float)
    t = wp.thread_idx()
    put(s, t, a[wp.tid()])
    wp.sync_threads()
    a[wp.tid()] = s[32 * t]  # expect: bank-conflict
