import weft as wp

@wp.kernal
def k(a: wp.array(dtype=int)):
    a[0] = 1
