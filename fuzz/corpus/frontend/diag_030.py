import weft as wp

@wp.func
def f(x: float) -> float:
    if x > 0.0:
        return x

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = f(a[0])
