# Clean: the unguarded barrier kernel of bounds_barrier_last_block.py over 128 elements, two whole
# blocks of 64: no thread is past the arrays.
# audit: --dim 128 --shape a=128 --shape out=128
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    s[t] = a[i]
    wp.sync_threads()
    out[i] = s[63 - t]
