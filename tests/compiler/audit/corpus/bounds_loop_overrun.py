# Seeded: four elements per thread, but the array holds 127.
# audit: --dim 32 --shape a=127
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    for j in range(4):
        a[4 * i + j] = 0.0  # expect: bounds, uncoalesced
