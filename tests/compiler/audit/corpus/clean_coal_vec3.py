# Clean: whole vec3 elements: a 12-byte stride that uses every byte it fetches.
# audit: --dim 256
import weft as wp

@wp.kernel
def k(pts: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    pts[i] = pts[i] + vel[i] * dt
