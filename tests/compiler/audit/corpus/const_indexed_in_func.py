# Seeded inside a func: the helper indexes a 6-vector constant with its argument.
# audit: --dim 60 --shape out=60
import weft as wp

AXES = wp.constant(wp.spatial_vector(1.0, 0.0, 0.0, 0.0, 1.0, 0.0))

@wp.func
def axis_weight(j: int) -> float:
    return AXES[j]  # expect: oversize-constant

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = axis_weight(i % 6)
