# Clean: a vec4 table indexed by the thread: 16 bytes, small enough to select in registers.
# audit: --dim 64 --shape out=64
import weft as wp

STEPS = wp.constant(wp.vec4(0.5, 1.0, 2.0, 4.0))

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = STEPS[i % 4]
