# Seeded: a double-precision 4x4 table indexed by the thread: over the size limit, and ptxas gives
# every thread a 128-byte stack frame in local memory for it (measured with ptxas -v for sm_90).
# audit: --dim 64 --shape out=64
import weft as wp

TABLE = wp.constant(wp.mat44d(0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 7.5))

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = float(TABLE[i % 4, 1])  # expect: oversize-constant
