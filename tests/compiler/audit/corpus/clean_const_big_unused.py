# Clean: a large constant the module defines but this kernel never uses, and an equal literal.
# audit: --dim 64
import weft as wp

FRAME = wp.constant(wp.mat44d(1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 0.0, 0.0, 1.0, 0.125, 0.0, 0.0, 0.0, 1.0))
SCALE = wp.constant(2.0)

@wp.kernel
def k(p: wp.array(dtype=wp.vec4d)):
    i = wp.tid()
    p[i] = p[i] * wp.float64(SCALE)
