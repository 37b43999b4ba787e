# Seeded: every other float.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = a[2 * i]  # expect: uncoalesced
