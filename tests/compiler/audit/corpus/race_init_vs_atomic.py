# Seeded: thread 0 clears the accumulator while the others already add to it.
# audit: --dim 64
import weft as wp

@wp.kernel(block_dim=64)
def count(flags: wp.array(dtype=int), out: wp.array(dtype=int)):
    acc = wp.shared_array(shape=(1,), dtype=int)
    t = wp.thread_idx()
    if t == 0:  # expect: divergence
        acc[0] = 0
    wp.atomic_add(acc, 0, flags[wp.tid()])  # expect: shared-race
    wp.sync_threads()
    if t == 0:  # expect: divergence
        out[wp.block_idx()] = acc[0]
