# Seeded and suppressed on its line: the audit must stay silent.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(512,), dtype=float)
    t = wp.thread_idx()
    s[16 * t] = a[wp.tid()]  # weft: ignore[bank-conflict]
