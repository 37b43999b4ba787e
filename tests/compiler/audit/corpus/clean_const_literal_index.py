# Clean: the same 3x3 table read at literal indices (the compiler keeps it in registers).
# audit: --dim 96 --shape out=96
import weft as wp

WEIGHTS = wp.constant(wp.mat33(0.25, 0.5, 0.25, 0.125, 0.75, 0.125, 0.0, 1.0, 0.0))

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = WEIGHTS[0, 1] + WEIGHTS[2, 1] * float(i)
