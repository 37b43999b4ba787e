# Written as stride-2 float stores (two lanes per bank), but ptxas merges each thread's two
# adjacent stores into one 8-byte STS.64: consecutive 8-byte lanes, the ideal (H200: 2 requests,
# 4 wavefronts, no conflict). Clean when the audit reads the machine code.
# machine-code: required
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float)):
    s = wp.shared_array(shape=(128,), dtype=float)
    t = wp.thread_idx()
    s[2 * t] = a[wp.tid()]
    s[2 * t + 1] = 0.0
