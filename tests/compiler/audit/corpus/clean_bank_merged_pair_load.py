# Clean look-alike of bank_stride2 on loads: each thread reads the two adjacent floats it owns
# (stride 2); ptxas reads both with one 8-byte LDS.64 (consecutive 8-byte lanes: the ideal).
# machine-code: required
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    s[t + 64] = a[wp.tid()]
    wp.sync_threads()
    a[wp.tid()] = s[2 * t] + s[2 * t + 1]
