# Clean: the same helper shape, but the func clamps the neighbour to the array.
# audit: --dim 100 --shape a=100 --shape b=100
import weft as wp

@wp.func
def next_value(a: wp.array(dtype=float), i: int) -> float:
    return a[wp.min(i + 1, a.shape[0] - 1)]

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = next_value(a, i) - a[i]
