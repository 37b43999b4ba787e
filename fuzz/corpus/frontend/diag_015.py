import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    with open("f") as f:
        pass
