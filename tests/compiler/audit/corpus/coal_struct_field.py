# Seeded: one field of an array of structs: 4 bytes used per 28.
# audit: --dim 256
import weft as wp

@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float

@wp.kernel
def k(ps: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = ps[i].mass  # expect: uncoalesced
