"""Shared-memory kernels with known bank behaviour, for the sim device's per-line report tests.
Each block is one warp (block_dim=32). Tests check the line numbers named in the comments."""
import weft as wp


@wp.kernel(block_dim=32)
def column_store(values: wp.array(dtype=float), out: wp.array(dtype=float)):
    s = wp.shared_array(shape=(1056,), dtype=float)
    t = wp.thread_idx()
    s[t * 32] = values[wp.tid()]  # line 10: stride 32 words, every lane in bank 0: 32 wavefronts
    wp.sync_threads()
    s[t * 33 + 1] = s[t * 32] * 2.0  # line 12: load 32 wavefronts; store, stride 33: 1 wavefront
    wp.sync_threads()
    out[wp.tid()] = s[t] + s[0]  # line 14: s[t] 1 wavefront, s[0] one broadcast: 1 wavefront
