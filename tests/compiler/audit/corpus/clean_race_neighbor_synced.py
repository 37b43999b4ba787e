# Clean: the neighbour read comes after a barrier.
# audit: --dim 64 --shape a=64 --shape out=64
import weft as wp

@wp.kernel(block_dim=64)
def neighbor(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(65,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    s[64] = 0.0  # weft: ignore[shared-race]
    wp.sync_threads()
    out[wp.tid()] = s[t + 1]
