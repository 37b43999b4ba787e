# Seeded: the x component of an array of vec3: 4 bytes used per 12.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = pts[i][0]  # expect: uncoalesced
