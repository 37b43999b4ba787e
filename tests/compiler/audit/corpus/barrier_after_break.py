# Seeded: threads leave the loop early and miss its barrier.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(32,), dtype=float)
    t = wp.thread_idx()
    for j in range(4):
        if t == j:  # expect: divergence
            break
        s[t] = a[wp.tid()] * float(j)
        wp.sync_threads()  # expect: barrier-divergence
    a[wp.tid()] = s[t]
