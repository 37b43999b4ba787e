import weft as wp

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    x = a[0].q
