import weft as wp

@wp.func
def f(x: int) -> int:
    return f(x - 1)

@wp.kernel
def k(a: wp.array(dtype=int)):
    a[0] = f(3)
