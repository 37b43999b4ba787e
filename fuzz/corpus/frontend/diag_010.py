import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    for i in range(2.5):
        a[0] = 1.0
