import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    a[0] = a[0] * n
