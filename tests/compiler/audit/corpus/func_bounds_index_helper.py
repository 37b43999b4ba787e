# Seeded through a func's return value: the index helper shifts by one, past the shared tile.
# measure-with: shape=(64,) => shape=(65,)
# audit: --dim 64
import weft as wp

@wp.func
def right(t: int) -> int:
    return t + 1

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    wp.sync_threads()
    a[wp.tid()] = s[right(t)]  # expect: bounds
