# Clean: guarded by the array's own shape, also with an early return.
# audit: --dim 128 --shape a=100 --shape b=100
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = 1.0
    if i >= b.shape[0]:
        return
    b[i] = 2.0
