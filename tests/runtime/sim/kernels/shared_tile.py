"""Kernels whose machine code issues loads earlier than their PTX does (ptxas moves shared
loads of a row ahead of the arithmetic that uses them: gpusim/sass/sass_map.h, sass_load_hoist), for
the test that the sim device times them as a direct gpusim launch with the settings of the
validated model does (tests/runtime/sim/sim_backend_test.cpp)."""
import weft as wp


@wp.kernel(block_dim=256)
def tile_row_sum(values: wp.array(dtype=float), out: wp.array(dtype=float)):
    tile = wp.shared_array(shape=(16, 16), dtype=float)
    t = wp.thread_idx()
    tile[t // 16, t % 16] = values[wp.tid()]
    wp.sync_threads()
    acc = float(0.0)
    for k in range(16):
        acc += tile[t // 16, k] * float(k + 1)
    out[wp.tid()] = acc


@wp.kernel(block_dim=256)
def tile_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float), n: int):
    a_tile = wp.shared_array(shape=(16, 16), dtype=float)
    b_tile = wp.shared_array(shape=(16, 16), dtype=float)
    t = wp.thread_idx()
    tx = t % 16
    ty = t // 16
    tiles = n // 16
    row = (wp.block_idx() // tiles) * 16 + ty
    col = (wp.block_idx() % tiles) * 16 + tx
    acc = float(0.0)
    for k0 in range(0, n, 16):
        a_tile[ty, tx] = a[row, k0 + tx]
        b_tile[ty, tx] = b[k0 + ty, col]
        wp.sync_threads()
        for k in range(16):
            acc += a_tile[ty, k] * b_tile[k, tx]
        wp.sync_threads()
    c[row, col] = acc
