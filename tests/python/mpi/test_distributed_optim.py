"""Data-parallel optimisation over scenarios (examples/sim_distributed_chain.py) under mpirun: the
ranks split the worlds, all-reduce the gradient with wp.distributed.gather_reduce, and after every
iteration hold the same parameter, bit for bit, as one process that simulates every world in one
model (built here on each rank, with a sum over the worlds' rows written in this file)."""
import numpy as np
import pytest

import weft as wp

import sim_distributed_chain as chain

ITERATIONS = 4


def one_process_sum(rows):
    """The reference reduction: every particle's row of one model holding every world, added one
    after the other from the first (float32, numpy's scalar addition), as a wp.array."""
    values = rows.numpy()
    total = np.zeros(3, dtype=np.float32)
    for row in values:
        total = (total + row).astype(np.float32)
    return wp.array(total.reshape(1, 3), dtype=wp.vec3, device="cpu")


@pytest.fixture
def one_thread():
    # The adjoint kernels add into gradients with float atomics: one thread fixes their order.
    saved = wp.config.num_threads
    wp.config.num_threads = 1
    yield
    wp.config.num_threads = saved


def test_split_worlds_reach_the_one_process_parameter_bit_for_bit(dist, one_thread):
    from mpi4py import MPI
    R, r = dist.world_size(), dist.rank()
    first, count = chain.my_worlds(r, R)
    assert count >= 1
    dist.reset_stats()
    split, split_losses = chain.optimise(first, count, dist.gather_reduce, iterations=ITERATIONS, device="cpu")
    reference, reference_losses = chain.optimise(0, chain.WORLDS, one_process_sum, iterations=ITERATIONS, device="cpu")
    for it in range(ITERATIONS):
        assert split[it].tobytes() == reference[it].tobytes(), (it, split[it], reference[it])
    # it did optimise: the parameter moved and the loss over every world fell
    assert np.linalg.norm(split[-1]) > 0.1
    totals = np.sum(MPI.COMM_WORLD.allgather(split_losses), axis=0)
    assert totals[-1] < totals[0]
    np.testing.assert_allclose(totals, reference_losses, rtol=1e-5)
    # every rank moved its rows out and the others' in: WORLDS * CHAIN vec3 rows per iteration
    s = dist.stats()
    assert s["calls"] == ITERATIONS
    assert s["bytes"] == ITERATIONS * chain.WORLDS * chain.CHAIN * 12


def test_unordered_all_reduce_of_partial_sums_stays_within_the_stated_tolerance(dist):
    # The plain path: each rank sums its own rows (with 2 CPU threads, so even the rows' float
    # atomics follow the threads), then all_reduce adds the partial sums in MPI's order. The
    # parameter then differs from the one-process run in its last bits only: docs/scale-out.md
    # states 1e-5 relative over these iterations.
    saved = wp.config.num_threads
    wp.config.num_threads = 2
    try:
        def partial_then_all_reduce(rows):
            total = one_process_sum(rows)
            dist.all_reduce(total)
            return total

        R, r = dist.world_size(), dist.rank()
        first, count = chain.my_worlds(r, R)
        split, _ = chain.optimise(first, count, partial_then_all_reduce, iterations=ITERATIONS, device="cpu")
        reference, _ = chain.optimise(0, chain.WORLDS, one_process_sum, iterations=ITERATIONS, device="cpu")
    finally:
        wp.config.num_threads = saved
    for it in range(ITERATIONS):
        np.testing.assert_allclose(split[it], reference[it], rtol=1e-5, atol=1e-7)
