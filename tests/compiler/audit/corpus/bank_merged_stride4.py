# Seeded: two adjacent floats per thread, threads 16 bytes apart. ptxas merges the two 4-byte
# stores into one 8-byte STS.64 (at line 10); 8-byte lanes 16 bytes apart still conflict 2-way.
# machine-code: required
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(256,), dtype=float)
    t = wp.thread_idx()
    s[4 * t] = a[wp.tid()]
    s[4 * t + 1] = 0.0  # expect: bank-conflict
