# Clean with the parameter known: the guard's count equals the array's length.
# audit: --dim 128 --shape a=100 --arg n=100
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i >= n:
        return
    a[i] = 0.0
