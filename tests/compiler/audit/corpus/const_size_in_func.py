# Seeded inside a func: a 4x4 double-precision constant used by a helper the kernel calls.
# audit: --dim 64
import weft as wp

BASIS = wp.constant(wp.mat44d(2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 1.0))

@wp.func
def to_world(v: wp.vec4d) -> wp.vec4d:
    return BASIS * v  # expect: oversize-constant

@wp.kernel
def k(p: wp.array(dtype=wp.vec4d)):
    i = wp.tid()
    p[i] = to_world(p[i])
