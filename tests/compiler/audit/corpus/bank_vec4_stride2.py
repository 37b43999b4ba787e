# Seeded: stride-2 vec4 accesses (32 bytes apart per lane, 16-byte accesses).
# audit: --dim 32
import weft as wp

@wp.kernel(block_dim=32)
def k(a: wp.array(dtype=wp.vec4)):
    s = wp.shared_array(shape=(64,), dtype=wp.vec4)
    t = wp.thread_idx()
    s[2 * t] = a[wp.tid()]  # expect: bank-conflict
