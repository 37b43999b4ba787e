# Seeded inside a func: the helper reads one past the index it is given; the kernel's last thread overruns.
# audit: --dim 100 --shape a=100 --shape b=100
import weft as wp

@wp.func
def next_value(a: wp.array(dtype=float), i: int) -> float:
    return a[i + 1]  # expect: bounds

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = next_value(a, i) - a[i]
