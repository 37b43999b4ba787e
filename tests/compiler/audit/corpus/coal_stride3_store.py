# Seeded: a strided store through an offset parameter.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), offset: int):
    i = wp.tid()
    a[offset + 3 * i] = 1.0  # expect: uncoalesced
