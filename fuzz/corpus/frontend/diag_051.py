import weft as wp

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    if a[0]:
        pass
