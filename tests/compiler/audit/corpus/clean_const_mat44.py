# Clean: the same frame in single precision: 64 bytes, at the limit, not over it.
# audit: --dim 64
import weft as wp

FRAME = wp.constant(wp.mat44(1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 0.0, 0.0, 1.0, 0.125, 0.0, 0.0, 0.0, 1.0))

@wp.kernel
def k(p: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    p[i] = FRAME * p[i]
