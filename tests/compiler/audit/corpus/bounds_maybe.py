# Seeded: an overrun on a path that depends on data: possible, not certain.
# audit: --dim 64 --shape a=64 --shape b=64
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    if a[i] > 0.0:  # expect: divergence
        b[i + 1] = 1.0  # expect: bounds
