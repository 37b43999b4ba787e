# Seeded: stride-2 float64 accesses (16 bytes apart per lane, 8-byte accesses).
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=wp.float64)):
    s = wp.shared_array(shape=(64,), dtype=wp.float64)
    t = wp.thread_idx()
    s[2 * t] = a[wp.tid()]  # expect: bank-conflict
