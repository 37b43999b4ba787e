# Clean: the usual bound guard.
# audit: --dim 1000 --shape a=1000
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if i < a.shape[0]:
        a[i] = 1.0
