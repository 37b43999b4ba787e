# Seeded: a 2-D launch whose fast index walks down the columns of a row-major array.
# audit: --dim 64,64 --shape a=64x64 --shape out=64x64
import weft as wp

@wp.kernel
def k(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = a[j, i]  # expect: uncoalesced
