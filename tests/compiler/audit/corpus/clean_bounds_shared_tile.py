# Clean: a shared tile indexed by thread coordinates that fit it exactly.
# audit: --dim 256
import weft as wp

@wp.kernel(block_dim=256)
def k(a: wp.array(dtype=float)):
    tile = wp.shared_array(shape=(16, 16), dtype=float)
    t = wp.thread_idx()
    tile[t // 16, t % 16] = a[wp.tid()]
    wp.sync_threads()
    a[wp.tid()] = tile[t % 16, t // 16]  # expect: bank-conflict
