# Clean: the lanes that take the branch shuffle among themselves, with the mask a ballot gave
# before the branch (where every lane was present).
# audit: --dim 64 --shape a=64 --shape out=64
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    v = a[i]
    take = wp.lane_id() < 16
    m = wp.ballot_sync(0xffffffff, take)
    if take:  # expect: divergence
        v += wp.shfl_xor_sync(m, v, 1)
    out[i] = v
