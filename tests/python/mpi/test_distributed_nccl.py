"""wp.distributed on cuda arrays: NCCL where it loads and each rank has a GPU of its own, MPI with
host staging where NCCL is turned off, missing, or the ranks share a GPU. Skipped without a GPU.
On a GPU machine (docs/scale-out.md, "Python: wp.distributed"):

    PYTHONPATH=build/python python3 -m pytest -q tests/python/mpi/test_distributed_nccl.py        # one rank
    PYTHONPATH=build/python mpirun -np 2 python3 -m pytest -q -x tests/python/mpi/test_distributed_nccl.py

Each case is checked against values computed on the host from every rank's data; which path ran
is checked against what the ranks' devices imply, found here through MPI, not through the module.
The first test needs no MPI: it drives python/weft/nccl.py alone, as a group of one GPU.
"""
import socket

import numpy as np
import pytest

import weft as wp

pytestmark = pytest.mark.skipif(not wp.is_cuda_available(),
                                reason="no CUDA device: the NCCL and host-staged paths of wp.distributed need a GPU")


@wp.kernel
def fill_for_rank(a: wp.array(dtype=float), rank: int):
    i = wp.tid()
    a[i] = float(rank + 1) * float(i + 1) * 0.25  # multiples of 1/4: every sum below is exact


def test_nccl_bindings_as_a_group_of_one_gpu():
    try:
        lib = wp.nccl.Library()
    except OSError as e:
        pytest.skip(f"NCCL cannot be loaded here: {e}")
    comm = wp.nccl.Communicator(lib, 1, lib.unique_id(), 0, 0)
    stream = wp.Stream("cuda:0")
    n = 1000
    i = np.arange(1, n + 1, dtype=np.float64)
    try:
        with wp.ScopedStream(stream):
            a = wp.empty(n, dtype=float, device="cuda:0")
            wp.launch(fill_for_rank, dim=n, inputs=[a, 2], device="cuda:0")
            for op in ("sum", "max", "min", "mean"):  # one rank: each reduction leaves the values
                comm.all_reduce(a.ptr, n, np.float32, op, stream.cuda_stream)
            assert a.numpy().tobytes() == (0.75 * i).astype(np.float32).tobytes()
            b = wp.zeros(n, dtype=float, device="cuda:0")
            comm.broadcast(a.ptr, b.ptr, a.capacity, 0, stream.cuda_stream)  # root's a into b
            assert b.numpy().tobytes() == a.numpy().tobytes()
            out = wp.full(2 * n, -1.0, dtype=float, device="cuda:0")
            comm.gather(a.ptr, out.ptr, [a.capacity], stream.cuda_stream)  # a into the first half
            got = out.numpy()
            assert got[:n].tobytes() == a.numpy().tobytes() and np.all(got[n:] == -1.0)
            d = wp.array(np.arange(7, dtype=np.int64) - 3, dtype=wp.int64, device="cuda:0")
            comm.all_reduce(d.ptr, 7, np.int64, "max", stream.cuda_stream)
            np.testing.assert_array_equal(d.numpy(), np.arange(7) - 3)
    finally:
        comm.destroy()
    with pytest.raises(wp.nccl.NcclError, match=r"ncclCommInitRank: a unique id has 128 bytes, got 5"):
        wp.nccl.Communicator(lib, 1, b"short", 0, 0)


def expected_cuda_path(dist, mode):
    """('nccl' | 'mpi-staged', a piece of nccl_status()) from the ranks' (host, GPU) pairs."""
    from mpi4py import MPI
    pairs = MPI.COMM_WORLD.allgather((socket.gethostname(), dist.device().ordinal))
    if mode == "off":
        return "mpi-staged", "off"
    if dist.nccl_status().startswith("not loaded"):
        return "mpi-staged", "not loaded"
    if len(set(pairs)) < len(pairs):
        return "mpi-staged", "share cuda:"
    return "nccl", "NCCL "


@pytest.fixture(params=["auto", "off"])
def cuda_dist(request, dist):
    dist.finalize()
    dist.init(nccl=request.param)
    yield dist, request.param
    dist.finalize()
    dist.init()


def test_collectives_on_cuda_arrays_on_a_stream_of_their_own(cuda_dist):
    dist, mode = cuda_dist
    R, r = dist.world_size(), dist.rank()
    dev = dist.device()
    assert dev.is_cuda
    n = 1000
    stream = wp.Stream(dev)
    with wp.ScopedStream(stream):  # the kernel and the collectives are queued on `stream`
        a = wp.empty(n, dtype=float, device=dev)
        wp.launch(fill_for_rank, dim=n, inputs=[a, r], device=dev)
        dist.all_reduce(a)
        got = a.numpy()
    path, status = expected_cuda_path(dist, mode)
    assert dist.stats()["last"]["backend"] == path == dist.backend(dev)
    assert status in dist.nccl_status()
    i = np.arange(1, n + 1, dtype=np.float64)
    np.testing.assert_array_equal(got, (0.25 * i * R * (R + 1) / 2).astype(np.float32))
    with wp.ScopedStream(stream):
        wp.launch(fill_for_rank, dim=n, inputs=[a, r], device=dev)
        dist.all_reduce(a, op="max")
        assert a.numpy().tobytes() == (0.25 * i * R).astype(np.float32).tobytes()
        wp.launch(fill_for_rank, dim=n, inputs=[a, r], device=dev)
        dist.all_reduce(a, op="mean")
        np.testing.assert_allclose(a.numpy(), 0.25 * i * (R + 1) / 2, rtol=1e-6)
        wp.launch(fill_for_rank, dim=n, inputs=[a, r], device=dev)
        dist.broadcast(a, root=R - 1)
        assert a.numpy().tobytes() == (0.25 * i * R).astype(np.float32).tobytes()


def test_dtypes_gather_and_ordered_reduction_on_cuda(cuda_dist):
    dist, mode = cuda_dist
    R, r = dist.world_size(), dist.rank()
    dev = dist.device()
    rng = [np.random.default_rng(k) for k in range(R)]
    data = [g.uniform(-1.0, 1.0, (33, 3)) for g in rng]
    a = wp.array(data[r], dtype=wp.vec3d, device=dev)
    dist.all_reduce(a)
    np.testing.assert_allclose(a.numpy(), np.sum(data, axis=0), rtol=1e-12, atol=1e-15)
    # int16 has no NCCL type: staged through MPI whatever the mode
    small = wp.array(np.arange(5, dtype=np.int16) * (r + 1), dtype=wp.int16, device=dev)
    dist.all_reduce(small)
    assert dist.stats()["last"] == {"op": "all_reduce", "backend": "mpi-staged", "bytes": 20, "staged_bytes": 20}
    np.testing.assert_array_equal(small.numpy(), np.arange(5) * R * (R + 1) // 2)
    # uneven rows, gathered in rank order
    rows = [np.full((k + 1, 2), k, dtype=np.float32) for k in range(R)]
    out = dist.all_gather(wp.array(rows[r], dtype=wp.float32, device=dev))
    assert out.device == dev and out.numpy().tobytes() == np.concatenate(rows).tobytes()
    # the ordered reduction: the same bits as a host fold of every rank's rows
    parts = [np.random.default_rng(10 + k).uniform(-1, 1, (k + 2, 4)).astype(np.float32) * 10.0 ** k for k in range(R)]
    got = dist.gather_reduce(wp.array(parts[r], dtype=wp.float32, device=dev)).numpy()
    acc = np.zeros(4, dtype=np.float32)
    for row in np.concatenate(parts):
        acc = (acc + row).astype(np.float32)
    assert got.tobytes() == acc.tobytes()


def test_nccl_on_refuses_ranks_that_share_a_gpu(dist):
    from mpi4py import MPI
    pairs = MPI.COMM_WORLD.allgather((socket.gethostname(), dist.device().ordinal))
    if len(set(pairs)) == len(pairs) or dist.nccl_status().startswith("not loaded"):
        pytest.skip("every rank has a GPU of its own here (or NCCL is missing): nothing to refuse")
    dist.finalize()
    try:
        dist.init(nccl="on")
        with pytest.raises(wp.distributed.DistributedError, match=r"\(nccl='on'\): NCCL not used: ranks 0 and 1 share "
                                                                     r"cuda:\d+ on .* \(NCCL needs one GPU per rank\)"):
            dist.all_reduce(wp.zeros(4, dtype=float, device=dist.device()))
    finally:
        dist.finalize()
        dist.init()
