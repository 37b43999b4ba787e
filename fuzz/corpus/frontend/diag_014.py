import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    b = [x for x in range(3)]
