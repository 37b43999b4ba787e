# Clean: consecutive vec4: four quarter-warp phases, the ideal.
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=wp.vec4)):
    s = wp.shared_array(shape=(32,), dtype=wp.vec4)
    t = wp.thread_idx()
    s[t] = a[wp.tid()]
