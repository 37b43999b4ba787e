import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    a = b
