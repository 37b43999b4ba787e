import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = wp.sqrtt(2.0)
