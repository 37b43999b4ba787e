import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    for i in range(0, 10, 0):
        a[0] = 1.0
