# Seeded two calls deep: the inner helper reads i + 2, the outer passes the thread index through.
# audit: --dim 64 --shape a=64 --shape out=64
import weft as wp

@wp.func
def ahead(a: wp.array(dtype=float), i: int) -> float:
    return a[i + 2]  # expect: bounds

@wp.func
def diff(a: wp.array(dtype=float), i: int) -> float:
    return ahead(a, i) - a[i]

@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = diff(a, i)
