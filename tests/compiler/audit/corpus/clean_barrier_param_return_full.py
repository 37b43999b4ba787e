# Clean with the parameter known: n equals the launch, so no thread returns before the barrier.
# audit: --dim 128 --arg n=128
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    if i >= n:
        return
    s[t] = a[i]
    wp.sync_threads()
    a[i] = s[63 - t]
