# Seeded two calls deep: a 4x4 double-precision constant used by a func that another func calls.
# audit: --dim 64
import weft as wp

SCALE = wp.constant(wp.mat44d(2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0))

@wp.func
def scaled(v: wp.vec4d) -> wp.vec4d:
    return SCALE * v  # expect: oversize-constant

@wp.func
def step(v: wp.vec4d) -> wp.vec4d:
    return scaled(v) + v

@wp.kernel
def k(p: wp.array(dtype=wp.vec4d)):
    i = wp.tid()
    p[i] = step(p[i])
