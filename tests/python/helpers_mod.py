"""Kernel-language helpers in a module of their own: test_sources.py uses them as
`helpers_mod.name`, to check that funcs, structs and constants of another Python module are
found and compiled with the kernel (transitively: lerp3 calls mix, which uses BLEND)."""
import weft as wp

BLEND = wp.constant(0.25)


@wp.struct
class Segment:
    a: wp.vec3
    b: wp.vec3


@wp.func
def mix(x: float, y: float) -> float:
    return x + BLEND * (y - x)


@wp.func
def lerp3(a: wp.vec3, b: wp.vec3) -> wp.vec3:
    return wp.vec3(mix(a[0], b[0]), mix(a[1], b[1]), mix(a[2], b[2]))


@wp.func
def segment_length(s: Segment) -> float:
    return wp.length(s.b - s.a)
