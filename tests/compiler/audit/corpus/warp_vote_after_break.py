# Seeded: lanes leave the loop at different trip counts; the vote after the break is still inside it.
# audit: --dim 32 --shape out=32
import weft as wp

@wp.kernel
def k(out: wp.array(dtype=int)):
    i = wp.tid()
    n = 0
    for j in range(8):
        if j > wp.lane_id():  # expect: divergence
            break
        n += 1
        if wp.any_sync(0xffffffff, n > 3):  # expect: warp-sync-divergence
            out[i] = n
