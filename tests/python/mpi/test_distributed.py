"""wp.distributed on the CPU device, run by CTest under `mpirun -np 2` and `-np 4`: every collective
against a reference that each rank computes alone from every rank's data (each rank's data comes
from a generator seeded with its rank, so any rank can make any other's), and every error a user
can cause, with its message."""
import os
import sys

import numpy as np
import pytest

import weft as wp


def rank_data(r, shape, dtype, seed=0):
    """Rank r's array in numpy form: values that differ per rank, with magnitudes spread over
    several decades for floats so that the order of a float sum shows in its last bits."""
    rng = np.random.default_rng(1000 * seed + r)
    if np.issubdtype(dtype, np.floating):
        v = rng.uniform(-1.0, 1.0, shape) * 10.0 ** rng.integers(-3, 4, shape)
    elif dtype == np.bool_:
        v = rng.integers(0, 2, shape).astype(bool)
    else:
        v = rng.integers(0, 50, shape)
    return np.asarray(v).astype(dtype)


def fold(rows, op):
    """rows[0] op rows[1] op ... in order, in the rows' dtype (the reference of the ordered paths)."""
    acc = np.array(rows[0], copy=True)
    for r in rows[1:]:
        acc = {"sum": acc + r, "mean": acc + r, "max": np.maximum(acc, r), "min": np.minimum(acc, r)}[op]
        acc = acc.astype(rows[0].dtype)
    if op == "mean":
        acc = (acc / len(rows)).astype(rows[0].dtype)
    return acc


# (weft dtype, array shape, numpy dtype of the elements, numpy inner shape)
CASES = [
    (wp.float32, (7,), np.float32, ()),
    (wp.float64, (3, 4), np.float64, ()),
    (wp.int32, (5,), np.int32, ()),
    (wp.int64, (2, 3), np.int64, ()),
    (wp.uint8, (6,), np.uint8, ()),
    (wp.int16, (4,), np.int16, ()),
    (wp.vec3, (5,), np.float32, (3,)),
    (wp.mat22d, (2, 3), np.float64, (2, 2)),
]


def test_group_properties(dist):
    from mpi4py import MPI
    assert dist.is_initialized()
    assert dist.world_size() == MPI.COMM_WORLD.Get_size()
    assert dist.rank() == MPI.COMM_WORLD.Get_rank()
    # mpirun's own count of the ranks on this machine (every rank is on this machine in CI); a
    # process started without mpirun is a group of one
    assert dist.local_rank() == int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", 0))
    assert dist.local_size() == int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", 1))
    expected = f"cuda:{dist.local_rank() % wp.get_cuda_device_count()}" if wp.is_cuda_available() else "cpu"
    assert dist.device() == expected
    assert wp.get_device() == dist.device()  # init makes it the default device
    assert dist.backend("cpu") == "mpi"
    dist.barrier()


@pytest.mark.parametrize("case,op", [(c, op) for c in CASES for op in ("sum", "max", "min", "mean")
                                     if op != "mean" or np.issubdtype(c[2], np.floating)],  # mean: floats only
                         ids=lambda v: v if isinstance(v, str) else f"{np.dtype(v[2]).name}{list(v[3])}")
def test_all_reduce_matches_every_ranks_data(dist, case, op):
    dtype, shape, base, inner = case
    R, r = dist.world_size(), dist.rank()
    data = [rank_data(k, shape + inner, base) for k in range(R)]
    a = wp.array(data[r], dtype=dtype, device="cpu")
    dist.all_reduce(a, op=op)
    got = a.numpy()
    stack = np.stack([d.astype(np.float64) if np.issubdtype(base, np.floating) else d for d in data])
    ref = {"sum": stack.sum(0), "mean": stack.mean(0), "max": stack.max(0), "min": stack.min(0)}[op]
    if np.issubdtype(base, np.floating) and op in ("sum", "mean"):
        np.testing.assert_allclose(got, ref, rtol=4 * R * np.finfo(base).eps, atol=R * np.finfo(base).eps * 1e3)
    else:
        np.testing.assert_array_equal(got, ref.astype(base))
    assert got.shape == shape + inner


def test_all_reduce_bool_and_half(dist):
    R, r = dist.world_size(), dist.rank()
    flags = [rank_data(k, (9,), np.bool_) for k in range(R)]
    a = wp.array(flags[r], dtype=wp.bool, device="cpu")
    dist.all_reduce(a, op="max")
    np.testing.assert_array_equal(a.numpy(), np.any(flags, axis=0))
    a.assign(flags[r])
    dist.all_reduce(a, op="min")
    np.testing.assert_array_equal(a.numpy(), np.all(flags, axis=0))
    # float16 has no MPI type: it is folded in rank order, in half precision
    halves = [rank_data(k, (6,), np.float16) for k in range(R)]
    h = wp.array(halves[r], dtype=wp.float16, device="cpu")
    dist.all_reduce(h)
    assert h.numpy().tobytes() == fold(halves, "sum").tobytes()


@pytest.mark.parametrize("op", ["sum", "mean", "max"])
def test_deterministic_all_reduce_is_the_rank_order_fold_on_every_rank(dist, op):
    from mpi4py import MPI
    R, r = dist.world_size(), dist.rank()
    data = [rank_data(k, (64,), np.float32, seed=3) for k in range(R)]
    a = wp.array(data[r], dtype=wp.float32, device="cpu")
    dist.all_reduce(a, op=op, deterministic=True)
    assert a.numpy().tobytes() == fold(data, op).tobytes()
    assert len(set(MPI.COMM_WORLD.allgather(a.numpy().tobytes()))) == 1


def test_broadcast_from_the_last_rank_any_dtype(dist):
    R, r = dist.world_size(), dist.rank()
    root = R - 1
    data = [rank_data(k, (4, 3), np.float32) for k in range(R)]
    a = wp.array(data[r], dtype=wp.vec3, device="cpu")
    dist.broadcast(a, root=root)
    assert a.numpy().tobytes() == data[root].tobytes()

    @wp.struct
    class Pair:
        i: int
        x: float

    items = [Pair(i=10 * k + j, x=0.5 * k + j) for k in range(R) for j in range(3)]
    s = wp.array(items[3 * r:3 * r + 3], dtype=Pair, device="cpu")
    dist.broadcast(s, root=0)
    assert [(p.i, p.x) for p in s.list()] == [(p.i, p.x) for p in items[:3]]


def test_all_gather_concatenates_in_rank_order_with_uneven_rows(dist):
    R, r = dist.world_size(), dist.rank()
    data = [rank_data(k, (k + 1, 2, 3), np.float32) for k in range(R)]
    a = wp.array(data[r], dtype=wp.vec3, device="cpu")
    out = dist.all_gather(a)
    assert out.shape == (R * (R + 1) // 2, 2) and out.dtype == wp.vec3 and out.device == "cpu"
    assert out.numpy().tobytes() == np.concatenate(data).tobytes()


def test_gather_reduce_equals_one_process_holding_every_row(dist):
    from mpi4py import MPI
    R, r = dist.world_size(), dist.rank()
    rows = rank_data(0, (11, 3), np.float32, seed=7)   # the rows of all "worlds" (11: uneven splits)
    first, last = r * 11 // R, (r + 1) * 11 // R
    mine = wp.array(rows[first:last], dtype=wp.vec3, device="cpu")
    got = dist.gather_reduce(mine)
    assert got.shape == (1,) and got.dtype == wp.vec3
    assert got.numpy().reshape(3).tobytes() == fold(rows, "sum").tobytes()
    assert len(set(MPI.COMM_WORLD.allgather(got.numpy().tobytes()))) == 1
    # a 2-D array reduces over its first dimension only
    grid = rank_data(0, (5, 4), np.float64, seed=8)
    part = wp.array(grid[r * 5 // R:(r + 1) * 5 // R], dtype=wp.float64, device="cpu")
    assert dist.gather_reduce(part, op="max").numpy().tobytes() == grid.max(axis=0).tobytes()
    assert dist.gather_reduce(part, op="mean").numpy().tobytes() == fold(grid, "mean").tobytes()


def test_gather_reduce_of_many_rows_is_still_the_one_by_one_fold(dist):
    # 300007 rows split unevenly; a pairwise sum (np.sum along each column) differs from the fold here
    R, r = dist.world_size(), dist.rank()
    n = 300007
    rows = rank_data(0, (n, 4), np.float32, seed=9)
    first, last = r * n // R, (r + 1) * n // R
    got = dist.gather_reduce(wp.array(rows[first:last], dtype=wp.vec4, device="cpu")).numpy().reshape(4)
    assert got.tobytes() == fold(rows, "sum").tobytes()
    assert got.tobytes() != np.ascontiguousarray(rows.T).sum(axis=1).tobytes()


def test_byte_counters(dist):
    R, r = dist.world_size(), dist.rank()
    dist.reset_stats()
    a = wp.zeros(10, dtype=wp.float32, device="cpu")
    dist.all_reduce(a)
    assert dist.stats()["last"] == {"op": "all_reduce", "backend": "mpi", "bytes": 80, "staged_bytes": 0}
    dist.broadcast(a, root=0)
    assert dist.stats()["last"]["bytes"] == (40 * (R - 1) if r == 0 else 40)
    g = wp.zeros((r + 1, 3), dtype=wp.float64, device="cpu")
    dist.all_gather(g)
    assert dist.stats()["last"]["bytes"] == 24 * R * (R + 1) // 2  # its own rows out, the others' in
    dist.all_reduce(a, deterministic=True)
    assert dist.stats()["last"]["bytes"] == 40 * R
    s = dist.stats()
    assert s["calls"] == 4
    assert s["bytes"] == s["by_backend"]["mpi"] == 80 + (40 * (R - 1) if r == 0 else 40) + 24 * R * (R + 1) // 2 + 40 * R
    dist.reset_stats()
    assert dist.stats()["calls"] == 0 and dist.stats()["last"] is None


# ---- what a user can get wrong, and the message they get ----

def test_bad_arguments_are_named(dist):
    a = wp.zeros(4, dtype=float, device="cpu")
    with pytest.raises(ValueError, match=r"wp.distributed.all_reduce: unknown op 'avg'; expected one of 'sum', 'max', "
                                         r"'min', 'mean'"):
        dist.all_reduce(a, op="avg")
    with pytest.raises(TypeError, match="unexpected keyword argument 'opp'"):
        dist.all_reduce(a, opp="sum")
    with pytest.raises(TypeError, match="unexpected keyword argument 'src'"):
        dist.broadcast(a, src=0)
    with pytest.raises(TypeError, match=r"wp.distributed.all_reduce: expected a wp.array, got ndarray"):
        dist.all_reduce(np.zeros(4))
    with pytest.raises(ValueError, match=rf"wp.distributed.broadcast: root=7 is not a rank \(0 .. {dist.world_size() - 1}\)"):
        dist.broadcast(a, root=7)
    with pytest.raises(TypeError, match=r"op='mean' needs a float dtype, got int32"):
        dist.all_reduce(wp.zeros(2, dtype=wp.int32, device="cpu"), op="mean")
    with pytest.raises(TypeError, match=r"op='sum' on a bool array; use 'max' \(any\) or 'min' \(all\)"):
        dist.all_reduce(wp.zeros(2, dtype=wp.bool, device="cpu"))

    @wp.struct
    class S:
        x: float

    with pytest.raises(TypeError, match=r"arrays of struct .* cannot be reduced \(broadcast and all_gather move them\)"):
        dist.gather_reduce(wp.zeros(2, dtype=S, device="cpu"))
    with pytest.raises(ValueError, match=r"gather_reduce: every rank's array is empty"):
        dist.gather_reduce(wp.zeros(0, dtype=float, device="cpu"))
    dist.barrier()  # every rank got here with no collective half-done


def test_ranks_that_disagree_all_get_an_error_naming_each_rank(dist):
    R, r = dist.world_size(), dist.rank()
    if R < 2:
        pytest.skip("needs two ranks to disagree (CTest runs this file under mpirun -np 2 and 4)")
    a = wp.zeros(3 + r, dtype=float, device="cpu")
    with pytest.raises(wp.distributed.DistributedError) as e:
        dist.all_reduce(a)
    text = str(e.value)
    assert text.startswith("wp.distributed.all_reduce: the ranks' calls differ (every rank must make the same call): ")
    for k in range(R):
        assert f"rank {k}: float32 array of shape ({3 + k},) in host memory, op='sum', deterministic=False" in text
    b = wp.zeros(3, dtype=wp.float32 if r == 0 else wp.float64, device="cpu")
    with pytest.raises(wp.distributed.DistributedError, match=r"rank 0: float32 array of shape \(3,\).*rank 1: float64"):
        dist.broadcast(b)
    with pytest.raises(wp.distributed.DistributedError, match=r"rank 0: .*op='sum'.*; rank 1: .*op='max'"):
        dist.all_reduce(wp.zeros(3, dtype=float, device="cpu"), op="sum" if r == 0 else "max")
    with pytest.raises(wp.distributed.DistributedError, match=r"broadcast: .*rank 0: .*root=0; rank 1: .*root=1"):
        dist.broadcast(wp.zeros(3, dtype=float, device="cpu"), root=min(r, 1))
    c = wp.zeros((2, 3 if r == 0 else 4), dtype=float, device="cpu")
    with pytest.raises(wp.distributed.DistributedError,
                       match=r"all_gather: the ranks' calls differ \(every rank must make arrays whose shapes may differ "
                             r"only in their first dimension\): rank 0: float32 array of shape \(2, 3\)"):
        dist.all_gather(c)
    dist.barrier()


def test_init_finalize_and_their_errors(dist):
    with pytest.raises(wp.distributed.DistributedError, match="already initialised; call wp.distributed.finalize"):
        dist.init()
    dist.finalize()
    assert not dist.is_initialized()
    for call in (dist.rank, dist.world_size, dist.barrier, lambda: dist.all_reduce(wp.zeros(1))):
        with pytest.raises(wp.distributed.DistributedError, match=r"wp.distributed.\w+: wp.distributed.init\(\) has not "
                                                                     r"been called"):
            call()
    with pytest.raises(ValueError, match=r"init: nccl='yes' is not one of 'auto', 'on', 'off'"):
        dist.init(nccl="yes")
    with pytest.raises(TypeError, match=r"init: comm must be an mpi4py intracommunicator, got int"):
        dist.init(comm=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'backend'"):
        dist.init(backend="nccl")
    saved = {k: sys.modules.get(k) for k in ("mpi4py", "mpi4py.MPI")}
    sys.modules.update({"mpi4py": None, "mpi4py.MPI": None})  # what Python does when mpi4py is not installed
    try:
        with pytest.raises(wp.distributed.DistributedError, match=r"wp.distributed needs mpi4py .*apt-get install "
                                                                     r"python3-mpi4py openmpi-bin"):
            dist.init()
    finally:
        sys.modules.update(saved)
    dist.init()
    assert dist.is_initialized()


def test_init_on_a_subcommunicator(dist):
    from mpi4py import MPI
    r = dist.rank()
    dist.finalize()
    dist.init(comm=MPI.COMM_SELF)  # a group of one: collectives are the identity, the fold is the local one
    assert (dist.rank(), dist.world_size()) == (0, 1)
    rows = rank_data(r, (5,), np.float32)
    assert dist.gather_reduce(wp.array(rows, device="cpu")).numpy().tobytes() == fold(rows, "sum").tobytes()
    dist.finalize()
    dist.init()


# ---- the cuda path's selection, without a GPU: NCCL found, missing, or turned off ----

def _nccl_header_version():
    for path in ("/usr/local/cuda/include/nccl.h", "/usr/include/nccl.h"):
        if os.path.exists(path):
            fields = {}
            for line in open(path):
                parts = line.split()
                if len(parts) == 3 and parts[0] == "#define" and parts[1] in ("NCCL_MAJOR", "NCCL_MINOR", "NCCL_PATCH"):
                    fields[parts[1]] = parts[2]
            if len(fields) == 3:
                return f"{fields['NCCL_MAJOR']}.{fields['NCCL_MINOR']}.{fields['NCCL_PATCH']}"
    return None


def test_nccl_is_loaded_at_run_time_when_present(dist):
    status = dist.nccl_status()
    header = _nccl_header_version()
    if header is None or status.startswith("not loaded"):
        pytest.skip(f"no NCCL here (header {header}, status: {status})")
    # the library's own ncclGetVersion agrees with the toolkit's header
    assert status.startswith(f"NCCL {header} from ")
    assert dist.backend("cuda:0") == "nccl"
    # ncclGetUniqueId needs no GPU: 128 bytes (NULs kept), new each time
    lib = wp.nccl.Library()
    ids = [lib.unique_id(), lib.unique_id()]
    assert [len(u) for u in ids] == [wp.nccl.UNIQUE_ID_BYTES] * 2 and ids[0] != ids[1]


def test_nccl_missing_or_off_falls_back_to_mpi_with_host_staging(dist, monkeypatch):
    dist.finalize()
    monkeypatch.setenv("WEFT_NCCL_LIBRARY", "/nonexistent/libnccl.so.2")
    try:
        dist.init()
        assert dist.backend("cuda:0") == "mpi-staged" and dist.backend("cpu") == "mpi"
        assert dist.nccl_status().startswith("not loaded: libnccl.so.2 could not be loaded (/nonexistent/libnccl.so.2: ")
        dist.finalize()
        with pytest.raises(wp.distributed.DistributedError, match=r"init\(nccl='on'\): libnccl.so.2 could not be loaded "
                                                                     r"\(/nonexistent/libnccl.so.2: "):
            dist.init(nccl="on")
        monkeypatch.delenv("WEFT_NCCL_LIBRARY")
        dist.init(nccl="off")
        assert dist.backend("cuda:0") == "mpi-staged"
        assert dist.nccl_status() == "off (init(nccl='off'))"
    finally:
        dist.finalize()
        monkeypatch.delenv("WEFT_NCCL_LIBRARY", raising=False)
        dist.init()
