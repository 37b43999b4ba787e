# Seeded: 40 threads leave the second warp 8 lanes; the vote's full mask names 24 that do not exist.
# audit: --dim 40 --shape p=40 --shape out=40
import weft as wp

@wp.kernel
def k(p: wp.array(dtype=int), out: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    out[i] = wp.ballot_sync(0xffffffff, p[i] > 0)  # expect: warp-sync-divergence
