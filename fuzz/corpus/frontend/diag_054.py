import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = wp.sqrt(x=2.0)
