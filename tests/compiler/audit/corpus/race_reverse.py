# Seeded: reverse a block in shared memory, reading before the barrier.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def reverse(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    out[wp.tid()] = s[63 - t]  # expect: shared-race
