# Clean: whole structs copied: every fetched byte is used.
# audit: --dim 256
import weft as wp

@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float

@wp.kernel
def k(ps: wp.array(dtype=Particle), out: wp.array(dtype=Particle)):
    i = wp.tid()
    out[i] = ps[i]
