# Clean (a note): the early return on a parameter decides; the audit states what n must satisfy.
# audit: --dim 128 --shape a=100
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    if i >= n:
        return
    a[i] = 0.0
