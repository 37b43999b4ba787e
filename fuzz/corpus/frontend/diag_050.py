import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    x = undefined_one
    y = undefined_two + 1.0
    a[0] = wp.nope(1.0)
