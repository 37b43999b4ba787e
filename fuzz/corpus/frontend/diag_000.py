import weft as wp

@wp.kernel
def k(velocity: wp.array(dtype=float)):
    v = veloctiy[0]
