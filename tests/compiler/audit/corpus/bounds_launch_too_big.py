# Seeded: a launch of 128 threads over an array of 100, unguarded.
# audit: --dim 128 --shape a=100
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 0.0  # expect: bounds
