# Seeded: a while loop counting to the thread's own index.
# audit: --dim 64
import weft as wp

@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    n = 0
    while n < i % 8:  # expect: divergence
        n = n + 1
    a[i] = n
