import weft as wp

@wp.func
def f(x: float):
    if x > 0.0:
        return x
    return wp.vec3(0.0, 0.0, 0.0)

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = f(a[0])
