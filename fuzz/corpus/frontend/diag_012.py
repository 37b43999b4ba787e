import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    for x in a:
        pass
