import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    x = 1.0
    wp.atomic_add(x, 0, 1.0)
