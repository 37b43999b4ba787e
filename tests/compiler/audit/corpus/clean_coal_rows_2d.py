# Clean: a 2-D launch whose fast index walks along the rows.
# audit: --dim 64,64 --shape a=64x64
import weft as wp

@wp.kernel
def k(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] * 2.0
