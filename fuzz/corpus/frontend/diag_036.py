import weft as wp

@wp.func
def f() -> float:
    s = wp.shared_array(shape=(32,), dtype=float)
    return s[0]

@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = f()
