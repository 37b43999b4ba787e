# Seeded: the left neighbour of thread 0.
# audit: --dim 64 --shape a=64 --shape out=64
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[i] - a[i - 1]  # expect: bounds
