import weft as wp

LIMIT = wp.constant(wp.sqrt)

@wp.kernel
def k(a: wp.array(dtype=int)):
    a[0] = 1
