import weft as wp

@wp.kernel
def k(a: wp.array(dtype=int)):
    x, y, z = 1, 2
