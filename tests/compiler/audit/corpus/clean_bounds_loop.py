# Clean: four elements per thread, exactly fitting.
# audit: --dim 32 --shape a=128 --shape m=32x3
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), m: wp.array2d(dtype=float)):
    i = wp.tid()
    for j in range(4):
        a[4 * i + j] = 0.0  # expect: uncoalesced
    for c in range(3):
        m[i, c] = 1.0  # expect: uncoalesced
