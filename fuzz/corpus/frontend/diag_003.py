import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    x = 1.0
    x = wp.vec3(1.0, 2.0, 3.0)
