"""A kernel that reads one element past its input's end (thread n - 1 reads values[n]), for the
sim device's out-of-bounds error test (tests/runtime/sim/sim_backend_test.cpp)."""
import weft as wp


@wp.kernel
def read_next(values: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = values[i + 1]  # line 9
