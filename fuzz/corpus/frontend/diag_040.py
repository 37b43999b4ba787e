import weft as wp

@wp.kernel
def k(a: wp.array2d(dtype=float)):
    wp.atomic_add(a, 0, 1.0)
