# Seeded: a shared neighbour read one past the shared array.
# measure-with: shape=(64,) => shape=(65,)
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    wp.sync_threads()
    a[wp.tid()] = s[t + 1]  # expect: bounds
