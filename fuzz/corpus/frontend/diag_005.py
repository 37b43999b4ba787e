import weft as wp

@wp.kernel
def k(a: wp.vec5):
    pass
