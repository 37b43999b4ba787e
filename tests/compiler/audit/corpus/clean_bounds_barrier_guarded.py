# Clean look-alike of bounds_barrier_last_block.py: the same launch, with the global accesses
# guarded by `if i < n:` and the barrier outside the guards, so every thread reaches it.
# audit: --dim 100 --shape a=100 --shape out=100 --arg n=100
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    i = wp.tid()
    v = 0.0
    if i < n:
        v = a[i]
    s[t] = v
    wp.sync_threads()
    if i < n:
        out[i] = s[63 - t]
