import weft as wp

@wp.kernel
def k(a):
    pass
