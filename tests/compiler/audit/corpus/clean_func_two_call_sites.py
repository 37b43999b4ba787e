# Clean: one helper called with two different offsets, both inside the array.
# audit: --dim 62 --shape a=64 --shape out=62
import weft as wp

@wp.func
def at(a: wp.array(dtype=float), i: int, k: int) -> float:
    return a[i + k]

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = at(a, i, 0) + at(a, i, 2)
