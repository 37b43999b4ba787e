# Seeded: even and odd lanes take different sides in every warp.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if i % 2 == 0:  # expect: divergence
        a[i] = wp.sin(a[i])
    else:
        a[i] = wp.cos(a[i])
