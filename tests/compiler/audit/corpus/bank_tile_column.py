# Seeded: a warp reads a column of a [32][32] tile: 32-way conflict; padding to 33 fixes it.
# audit: --dim 1024
import weft as wp

@wp.kernel(block_dim=1024)
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    tile = wp.shared_array(shape=(32, 32), dtype=float)
    t = wp.thread_idx()
    tx = t % 32
    ty = t // 32
    tile[ty, tx] = a[wp.tid()]
    wp.sync_threads()
    out[wp.tid()] = tile[tx, ty]  # expect: bank-conflict
