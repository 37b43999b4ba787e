import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    x = 1.0
    y = x(2.0)
