# Clean: launch and arrays agree; the neighbour read is clamped.
# audit: --dim 100 --shape a=100 --shape b=100
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] + a[wp.min(i + 1, 99)]
