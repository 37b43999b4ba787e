# Seeded look-alike of bank_stride2 that ptxas cannot merge: the pair starts at an odd element,
# so the 8 bytes are not 8-byte aligned; two 4-byte stores, each 2-way conflicted.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(130,), dtype=float)
    t = wp.thread_idx()
    s[2 * t + 1] = a[wp.tid()]  # expect: bank-conflict
    s[2 * t + 2] = 0.0  # expect: bank-conflict
