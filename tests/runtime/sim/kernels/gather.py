"""A random gather for the sim device's reproducibility test: eight reads per thread from a table
far larger than L1, so which reads hit depends on the cache sets their addresses select."""
import weft as wp


@wp.kernel
def gather8(table: wp.array(dtype=float), index: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(8):
        s += table[index[i * 8 + k]]
    out[i] = s
