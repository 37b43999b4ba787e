# Seeded: column 3 of an array with 3 columns.
# audit: --dim 10 --shape m=10x3
import weft as wp

@wp.kernel
def k(m: wp.array2d(dtype=float)):
    i = wp.tid()
    for c in range(3):
        m[i, c] = 0.0  # expect: uncoalesced
    m[i, 3] = 1.0  # expect: bounds, uncoalesced
