# Seeded: stride-32 accesses: every lane in bank 0.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(1024,), dtype=float)
    t = wp.thread_idx()
    s[32 * t] = a[wp.tid()]  # expect: bank-conflict
