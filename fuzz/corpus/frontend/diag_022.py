import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[1.5] = 1.0
