import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    s = wp.shared_array(shape=(n,), dtype=float)
