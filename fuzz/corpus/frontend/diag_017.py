import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    b = a[1:2]
