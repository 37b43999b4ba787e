import weft as wp

LIMIT = wp.constant(3)

@wp.kernel
def k(a: wp.array(dtype=int)):
    LIMIT[0] = 1
