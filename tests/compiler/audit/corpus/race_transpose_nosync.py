# Seeded: a tile transpose that forgets the barrier between the write and the transposed read.
# audit: --dim 1024
import weft as wp

@wp.kernel(block_dim=1024)
def transpose(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    tile = wp.shared_array(shape=(32, 33), dtype=float)
    t = wp.thread_idx()
    tx = t % 32
    ty = t // 32
    tile[ty, tx] = a[wp.tid()]
    out[wp.tid()] = tile[tx, ty]  # expect: shared-race
