# Seeded: a double-precision 4x4 constant (128 bytes, 32 registers at each use).
# audit: --dim 64
import weft as wp

FRAME = wp.constant(wp.mat44d(1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 0.0, 0.0, 1.0, 0.125, 0.0, 0.0, 0.0, 1.0))

@wp.kernel
def k(p: wp.array(dtype=wp.vec4d)):
    i = wp.tid()
    p[i] = FRAME * p[i]  # expect: oversize-constant
