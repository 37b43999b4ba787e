import weft as wp

@wp.func
def f(x: float, y: float) -> float:
    return x + y

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = f(1.0)
