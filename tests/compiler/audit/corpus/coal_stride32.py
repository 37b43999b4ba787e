# Seeded: one float per 128 bytes.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[32 * i] = 0.0  # expect: uncoalesced
