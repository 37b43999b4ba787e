# Clean (notes only): no shapes given, so the audit states conditions instead of verdicts.
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i < n:
        b[i] = a[i]
