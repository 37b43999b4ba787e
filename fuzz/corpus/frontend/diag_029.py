import weft as wp

@wp.func
def f(x: float) -> float:
    return x

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    b = f(a[0])
