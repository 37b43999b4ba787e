import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    if 1 in a:
        pass
