# Seeded: every thread writes s[0].
# audit: --dim 128
import weft as wp

@wp.kernel(block_dim=128)
def all_write(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(1,), dtype=float)
    s[0] = a[wp.tid()]  # expect: shared-race
    wp.sync_threads()
    out[wp.tid()] = s[0]
