# Seeded: stride-2 float accesses: two lanes per bank.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[2 * t] = a[wp.tid()]  # expect: bank-conflict
    s[2 * t + 1] = 0.0  # expect: bank-conflict
