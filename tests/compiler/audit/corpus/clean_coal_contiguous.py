# Clean: contiguous, offset by a parameter, broadcast.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float), offset: int):
    i = wp.tid()
    b[i] = a[i + offset] + a[0]
