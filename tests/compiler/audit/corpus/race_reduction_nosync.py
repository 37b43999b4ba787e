# Seeded: a tree reduction without the barrier inside the loop.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def reduce_nosync(values: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = values[wp.tid()]
    wp.sync_threads()
    stride = 32
    while stride > 0:
        if t < stride:  # expect: divergence
            s[t] = s[t] + s[t + stride]  # expect: shared-race
        stride = stride // 2
    wp.sync_threads()
    if t == 0:  # expect: divergence
        sums[wp.block_idx()] = s[0]
