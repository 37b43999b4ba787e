# Seeded twice: a 6x6 spatial inertia constant (144 bytes) that a loop also indexes by row.
# audit: --dim 64 --shape out=64
import weft as wp

INERTIA = wp.constant(wp.spatial_matrix(2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0))

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    total = float(0.0)
    for r in range(6):
        total = total + INERTIA[r, r]  # expect: oversize-constant
    out[i] = total
