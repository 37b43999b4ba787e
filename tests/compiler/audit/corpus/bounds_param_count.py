# Seeded with the parameter known: the guard uses a count one larger than the array.
# audit: --dim 128 --shape a=100 --arg n=101
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i >= n:
        return
    a[i] = 0.0  # expect: bounds
