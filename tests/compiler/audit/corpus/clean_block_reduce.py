# Clean: the classic reduction, with a barrier each step (divergence is expected and real).
# audit: --dim 128
import weft as wp

@wp.kernel(block_dim=64)
def block_sum(values: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = values[wp.tid()]
    wp.sync_threads()
    stride = 32
    while stride > 0:
        if t < stride:  # expect: divergence
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:  # expect: divergence
        sums[wp.block_idx()] = s[0]
