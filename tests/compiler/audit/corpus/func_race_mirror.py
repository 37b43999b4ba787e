# Seeded through a func's return value: the mirrored read comes before any barrier.
# audit: --dim 64
import weft as wp

@wp.func
def mirror(t: int) -> int:
    return 63 - t

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
    out[wp.tid()] = s[mirror(t)]  # expect: shared-race
