# Seeded: a branch on loaded data.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if a[i] > 0.0:  # expect: divergence
        a[i] = wp.sqrt(a[i])
