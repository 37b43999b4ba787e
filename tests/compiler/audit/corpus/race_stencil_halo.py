# Seeded: the halo is written by the last thread while its neighbours read it.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def stencil(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(33,), dtype=float)
    t = wp.thread_idx()
    s[t + 1] = a[wp.tid()]
    wp.sync_threads()
    s[0] = 0.0  # expect: shared-race
    out[wp.tid()] = s[t] + s[t + 1]
