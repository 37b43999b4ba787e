import weft as wp

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    a[0] = wp.cross(a[0], 1.0)
