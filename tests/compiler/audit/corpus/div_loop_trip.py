# Seeded: a loop whose trip count differs per lane.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    x = a[i]
    for j in range(i % 4):  # expect: divergence
        x = x * 0.5
    a[i] = x
