import weft as wp

@wp.kernel
def other(a: wp.array(dtype=float)):
    pass

@wp.kernel
def k(a: wp.array(dtype=float)):
    other(a)
