"""wp.distributed: collectives on weft arrays across MPI ranks, for data-parallel work.

    mpirun -np 4 python3 train.py

    import weft as wp
    wp.distributed.init()                      # MPI.COMM_WORLD; the rank's device becomes the default
    g = ...                                    # a wp.array, e.g. a gradient
    wp.distributed.all_reduce(g)               # in place: the sum over ranks
    wp.distributed.all_reduce(g, op="mean")    # or "max", "min"
    rows = wp.distributed.gather_reduce(per_world_rows)   # the same bits as one process with every row

Processes come from MPI (mpi4py on the MPI of the machine). Each collective first exchanges a
few bytes of description (operation, dtype, shape, device kind, root) so that ranks that disagree
get an error naming every rank's call instead of a hang or corrupted memory; then the data moves
by one of three paths, chosen per array and readable with backend(device):

    "mpi"         cpu and sim arrays: MPI works in place on the array's host memory
    "nccl"        cuda arrays: NCCL (python/weft/nccl.py, loaded at run time) on the thread's current
                  stream of the array's device, one GPU per rank
    "mpi-staged"  cuda arrays where NCCL is off, missing, failed to start, or has no type for the
                  dtype (int16, uint16): the array is copied to the host, reduced by MPI, copied back

Determinism. MPI's and NCCL's reduction orders depend on the library's algorithm and the rank
count, so a float sum may differ in its last bits between runs with 2 and 4 ranks, and MPI does
not promise the same bits on every rank. gather_reduce(rows) does not depend on either: it
gathers every rank's rows in rank order and folds them one by one, first to last, on every rank,
so ranks holding consecutive blocks of worlds get exactly what one process holding them all gets
from the same call. all_reduce(deterministic=True) is the same fold over the ranks' arrays.

Counters: stats() holds the payload bytes this rank sent and received (the arrays' bytes, not
what the transport's algorithm moves on the wire) per call and in total, per path, and the bytes
copied between device and host by staging. The descriptions exchanged first are not counted.
"""

import socket
import sys

import numpy as np

from . import _weft
from . import arrays as _arrays
from . import context as _context
from . import nccl as _nccl
from . import types as _types

OPS = ("sum", "max", "min", "mean")
NCCL_MODES = ("auto", "on", "off")


class DistributedError(RuntimeError):
    """A collective the ranks cannot carry out together (their arrays or arguments differ)."""


_state = None


class _State:
    def __init__(self, comm, mpi, nccl):
        self.comm, self.MPI, self.nccl_mode = comm, mpi, nccl
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        local = comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
        local.Free()
        count = _context.get_cuda_device_count()
        self.device = _context.get_device(f"cuda:{self.local_rank % count}" if count else "cpu")
        self.nccl_lib, self.nccl_reason = None, None
        if nccl == "off":
            self.nccl_reason = "off (init(nccl='off'))"
        else:
            try:
                self.nccl_lib = _nccl.Library()
            except (OSError, _nccl.NcclError) as e:
                if nccl == "on":
                    raise DistributedError(f"wp.distributed.init(nccl='on'): {e}") from None
                self.nccl_reason = f"not loaded: {e}"
        self.nccl_comm = None  # made by the first collective on a cuda array
        self.nccl_tried = False
        self.scratch = np.empty(0, dtype=np.uint8)  # _scratch(): the gathering calls' host buffer
        self.previous_excepthook = sys.excepthook
        self.stats = {"calls": 0, "bytes": 0, "staged_bytes": 0, "last": None,
                      "by_backend": {"mpi": 0, "nccl": 0, "mpi-staged": 0}}


def _mpi():
    try:
        from mpi4py import MPI
    except (ImportError, RuntimeError, OSError) as e:  # not installed, or no MPI library for it to load
        raise DistributedError(f"wp.distributed needs mpi4py ({e}); on Debian: apt-get install python3-mpi4py "
                               "openmpi-bin") from None
    return MPI


def init(comm=None, nccl="auto"):
    """Joins the ranks of `comm` (an mpi4py communicator; default MPI.COMM_WORLD) and makes this
    rank's device (device()) Weft's default device. With several ranks, an uncaught exception
    then stops every rank (MPI_Abort) instead of leaving them waiting. nccl: 'auto' uses NCCL for cuda arrays when it
    loads and starts, else MPI with host staging; 'off' always stages; 'on' raises where NCCL
    cannot be loaded or started. Run under mpirun, or alone as a world of one rank."""
    global _state
    if _state is not None:
        raise DistributedError("wp.distributed.init: already initialised; call wp.distributed.finalize() first")
    if nccl not in NCCL_MODES:
        raise ValueError(f"wp.distributed.init: nccl={nccl!r} is not one of {', '.join(map(repr, NCCL_MODES))}")
    MPI = _mpi()
    if comm is None:
        comm = MPI.COMM_WORLD
    elif not isinstance(comm, MPI.Intracomm):
        raise TypeError(f"wp.distributed.init: comm must be an mpi4py intracommunicator, got {type(comm).__name__}")
    _state = _State(comm, MPI, nccl)
    _context.set_device(_state.device)
    if _state.size > 1:
        _state.previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught_exception


def _abort_on_uncaught_exception(kind, value, tb):
    """sys.excepthook while a group of several ranks is joined: an exception that ends this rank's
    script would otherwise leave the other ranks waiting in their next collective for ever (and
    this rank's MPI_Finalize waiting for them). It prints the traceback, names the rank, and
    stops every rank (MPI_Abort), so that mpirun exits non-zero."""
    s = _state
    (s.previous_excepthook if s is not None else sys.__excepthook__)(kind, value, tb)
    if s is not None:
        sys.stderr.write(f"wp.distributed: rank {s.rank} of {s.size} stopped by an uncaught {kind.__name__}; "
                         "stopping every rank\n")
        sys.stderr.flush()
        s.comm.Abort(1)


def finalize():
    """Leaves the group: destroys the NCCL communicator (MPI itself stays up until the process
    ends, as mpi4py arranges). init() may be called again afterwards."""
    global _state
    if _state is not None and _state.nccl_comm is not None:
        _state.nccl_comm.destroy()
    if _state is not None and sys.excepthook is _abort_on_uncaught_exception:
        sys.excepthook = _state.previous_excepthook
    _state = None


def is_initialized():
    return _state is not None


def _s(where):
    if _state is None:
        raise DistributedError(f"wp.distributed.{where}: wp.distributed.init() has not been called")
    return _state


def rank():
    """This process's rank in the group (0 .. world_size() - 1)."""
    return _s("rank").rank


def world_size():
    return _s("world_size").size


def local_rank():
    """This process's rank among the group's processes on its own machine."""
    return _s("local_rank").local_rank


def local_size():
    return _s("local_size").local_size


def device():
    """This rank's device: cuda:(local_rank % GPU count) where there are GPUs, else cpu."""
    return _s("device").device


def barrier():
    """Returns once every rank has called it."""
    _s("barrier").comm.Barrier()


def backend(device=None):
    """'mpi', 'nccl' or 'mpi-staged': the path the data of arrays on `device` (default: this rank's)
    takes. For cuda, 'nccl' means NCCL is loaded and not refused yet (the communicator starts at the
    first collective; if that fails, later calls say 'mpi-staged'); nccl_status() says why not."""
    s = _s("backend")
    d = _context.get_device(device) if device is not None else s.device
    if d.is_host_memory:
        return "mpi"
    return "nccl" if s.nccl_lib is not None and s.nccl_reason is None else "mpi-staged"


def nccl_status():
    """'NCCL 2.28.9 from PATH' while NCCL is in use or may be, else why it is not."""
    s = _s("nccl_status")
    if s.nccl_reason is not None:
        return s.nccl_reason
    return f"NCCL {s.nccl_lib.version_string} from {s.nccl_lib.path}"


def stats():
    """{'calls', 'bytes', 'staged_bytes', 'by_backend': {path: bytes}, 'last': {'op', 'backend',
    'bytes', 'staged_bytes'}}: this rank's payload counters since init() or reset_stats()."""
    s = _s("stats").stats
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in s.items()}


def reset_stats():
    _s("reset_stats").stats.update(calls=0, bytes=0, staged_bytes=0, last=None,
                                   by_backend={"mpi": 0, "nccl": 0, "mpi-staged": 0})


# ---- what every collective does first ----

def _check_array(where, a):
    if not isinstance(a, _arrays.array):
        raise TypeError(f"wp.distributed.{where}: expected a wp.array, got {type(a).__name__}")
    if not a.is_contiguous:
        raise ValueError(f"wp.distributed.{where}: the array must be contiguous, got strides {a.strides}")


def _describe(a):
    return {"dtype": str(_types.type_of(a.dtype)), "shape": tuple(a.shape),
            "memory": "host" if a.device.is_host_memory else "cuda"}


def _agree(s, where, a, fields, leading_may_differ=False):
    """Exchanges each rank's description of the call; every rank raises the same error if they differ."""
    mine = dict(_describe(a), **fields)
    everyone = s.comm.allgather(mine)

    def key(d):
        d = dict(d)
        if leading_may_differ:
            d["shape"] = d["shape"][1:]
        return d

    if any(key(d) != key(everyone[0]) for d in everyone):
        def text(d):
            extra = "".join(f", {k}={v!r}" for k, v in d.items() if k not in ("dtype", "shape", "memory"))
            return f"{d['dtype']} array of shape {d['shape']} in {d['memory']} memory{extra}"
        what = "arrays whose shapes may differ only in their first dimension" if leading_may_differ else "the same call"
        raise DistributedError(f"wp.distributed.{where}: the ranks' calls differ (every rank must make {what}): "
                               + "; ".join(f"rank {r}: {text(d)}" for r, d in enumerate(everyone)))
    return everyone


def _check_op(where, a, op):
    if op not in OPS:
        raise ValueError(f"wp.distributed.{where}: unknown op {op!r}; expected one of {', '.join(map(repr, OPS))}")
    t = _types.type_of(a.dtype)
    if t.kind == "struct":
        raise TypeError(f"wp.distributed.{where}: arrays of struct {t} cannot be reduced (broadcast and all_gather move them)")
    base, _ = _types.numpy_layout(t)
    if base == np.bool_ and op not in ("max", "min"):
        raise TypeError(f"wp.distributed.{where}: op={op!r} on a bool array; use 'max' (any) or 'min' (all)")
    if op == "mean" and not np.issubdtype(base, np.floating):
        raise TypeError(f"wp.distributed.{where}: op='mean' needs a float dtype, got {t}")
    return np.dtype(base)


def _count(s, op, path, sent, received, staged=0):
    n = int(sent + received)
    st = s.stats
    st["calls"] += 1
    st["bytes"] += n
    st["staged_bytes"] += int(staged)
    st["by_backend"][path] += n
    st["last"] = {"op": op, "backend": path, "bytes": n, "staged_bytes": int(staged)}


def _path(s, a, base=None):
    """The data path for `a` (see the module docstring), starting NCCL on first use."""
    if a.device.is_host_memory:
        return "mpi"
    if base is not None and base not in _nccl.DTYPES:
        return "mpi-staged"
    if s.nccl_reason is None and s.nccl_lib is not None:
        _start_nccl(s, a.device)
    if s.nccl_comm is not None:
        if s.nccl_comm.ordinal != a.device.ordinal:
            raise DistributedError(f"wp.distributed: this rank's NCCL communicator is on cuda:{s.nccl_comm.ordinal}; "
                                   f"an array on {a.device} cannot join it (one GPU per rank)")
        return "nccl"
    return "mpi-staged"


def _start_nccl(s, dev):
    """Collective (every rank reaches it in the same call): ncclCommInitRank on `dev`, or the reason
    it is not used, the same on every rank."""
    if s.nccl_comm is not None or s.nccl_tried:
        return
    s.nccl_tried = True
    where = s.comm.allgather((socket.gethostname(), dev.ordinal, s.nccl_lib is not None))
    reason = None
    seen = {}
    for r, (host, ordinal, loaded) in enumerate(where):
        if not loaded:
            reason = f"not used: rank {r} could not load libnccl.so.2"
            break
        if (host, ordinal) in seen:
            reason = (f"not used: ranks {seen[(host, ordinal)]} and {r} share cuda:{ordinal} on {host} "
                      "(NCCL needs one GPU per rank)")
            break
        seen[(host, ordinal)] = r
    comm = None
    if reason is None:
        uid = s.comm.bcast(s.nccl_lib.unique_id() if s.rank == 0 else None, root=0)
        error = None
        try:
            comm = _nccl.Communicator(s.nccl_lib, s.size, uid, s.rank, dev.ordinal)
        except (_nccl.NcclError, OSError) as e:
            error = str(e)
        errors = s.comm.allgather(error)
        failed = [(r, e) for r, e in enumerate(errors) if e is not None]
        if failed:
            if comm is not None:
                comm.destroy()
                comm = None
            reason = "not used: " + "; ".join(f"rank {r}: {e}" for r, e in failed)
    if reason is not None:
        if s.nccl_mode == "on":
            raise DistributedError(f"wp.distributed (nccl='on'): NCCL {reason}")
        s.nccl_reason = reason
    s.nccl_comm = comm


def _stream(a):
    return _weft.current_stream_handle(a.device.alias)


# ---- collectives ----

def all_reduce(array, op="sum", deterministic=False):
    """Replaces `array` (any shape; scalar, vector or matrix dtype) on every rank by the
    element-wise reduction over ranks: 'sum', 'max', 'min' or 'mean' (sum / world_size; float
    dtypes). deterministic=True folds the ranks' arrays in rank order (gather_reduce), the same
    bits on every rank and for every MPI or NCCL algorithm; it moves world_size times the data."""
    s = _s("all_reduce")
    _check_array("all_reduce", array)
    base = _check_op("all_reduce", array, op)
    _agree(s, "all_reduce", array, {"op": op, "deterministic": bool(deterministic)})
    nbytes = array.capacity
    if deterministic or base == np.float16 and array.device.is_host_memory:
        rows, path, staged = _gather_host(s, array, leading=1)
        result = _fold(rows, op, s.size)
        _write(array, result, path)
        _count(s, "all_reduce", path, nbytes, nbytes * (s.size - 1), staged + (nbytes if path != "mpi" else 0))
        return
    path = _path(s, array, base)
    if path == "nccl":
        s.nccl_comm.all_reduce(array.ptr, array.capacity // base.itemsize, base, op, _stream(array))
        _count(s, "all_reduce", path, nbytes, nbytes)
        return
    host = array.numpy()
    if base == np.float16:  # MPI has no half type: gather and fold (as deterministic=True)
        rows = np.empty((s.size,) + host.shape, dtype=host.dtype)
        s.comm.Allgather(host.view(np.uint8), rows.view(np.uint8))
        host[...] = _fold(rows, op, s.size)
    else:
        mpi_op = {"sum": s.MPI.SUM, "mean": s.MPI.SUM, "max": s.MPI.MAX, "min": s.MPI.MIN}[op]
        if base == np.bool_:
            mpi_op = s.MPI.LOR if op == "max" else s.MPI.LAND
        s.comm.Allreduce(s.MPI.IN_PLACE, host, op=mpi_op)
        if op == "mean":
            host /= host.dtype.type(s.size)
    staged = 0
    if path == "mpi-staged":
        array.assign(host)
        staged = 2 * nbytes
    _count(s, "all_reduce", path, nbytes, nbytes, staged)


def broadcast(array, root=0):
    """Replaces `array` on every rank by root's (any dtype, structs too)."""
    s = _s("broadcast")
    _check_array("broadcast", array)
    if not isinstance(root, (int, np.integer)) or not 0 <= root < s.size:
        raise ValueError(f"wp.distributed.broadcast: root={root!r} is not a rank (0 .. {s.size - 1})")
    _agree(s, "broadcast", array, {"root": int(root)})
    nbytes = array.capacity
    sent, received = (nbytes * (s.size - 1), 0) if s.rank == root else (0, nbytes)
    path = _path(s, array)
    if path == "nccl":
        s.nccl_comm.broadcast(array.ptr, array.ptr, nbytes, int(root), _stream(array))
        _count(s, "broadcast", path, sent, received)
        return
    host = array.numpy()
    s.comm.Bcast(host.reshape(-1).view(np.uint8), root=int(root))
    staged = nbytes
    if path == "mpi-staged" and s.rank != root:
        array.assign(host)
        staged += nbytes
    _count(s, "broadcast", path, sent, received, staged if path == "mpi-staged" else 0)


def all_gather(array):
    """A new array on array's device: every rank's array concatenated along the first dimension in
    rank order. The first dimensions may differ between ranks; the rest, dtype and memory may not."""
    s = _s("all_gather")
    _check_array("all_gather", array)
    everyone = _agree(s, "all_gather", array, {}, leading_may_differ=True)
    counts = [d["shape"][0] for d in everyone]
    shape = (sum(counts),) + tuple(array.shape[1:])
    row_bytes = _row_bytes(array)
    path = _path(s, array)
    nbytes = array.capacity
    received = row_bytes * sum(counts) - nbytes
    if path == "nccl":
        out = _arrays.empty(shape, dtype=array.dtype, device=array.device)
        s.nccl_comm.gather(array.ptr, out.ptr, [c * row_bytes for c in counts], _stream(array))
        _count(s, "all_gather", path, nbytes, received)
        return out
    rows, path, staged = _gather_host(s, array, counts=counts)
    out = _arrays.array(rows, dtype=array.dtype, device=array.device)
    _count(s, "all_gather", path, nbytes, received, staged + (rows.nbytes if path != "mpi" else 0))
    return out


def gather_reduce(array, op="sum"):
    """The reduction over the first dimension of every rank's rows concatenated in rank order,
    folded one row at a time from the first: a new array of shape array.shape[1:] (or (1,)) on
    array's device, with the same bits on every rank. When rank r holds the rows of a contiguous
    block of worlds, in order, the result does not depend on how many ranks share the worlds: it
    equals one process's gather_reduce of all the rows. The first dimensions may differ."""
    s = _s("gather_reduce")
    _check_array("gather_reduce", array)
    _check_op("gather_reduce", array, op)
    if array.ndim < 1:
        raise ValueError("wp.distributed.gather_reduce: the array needs a first dimension to reduce over")
    everyone = _agree(s, "gather_reduce", array, {"op": op}, leading_may_differ=True)
    counts = [d["shape"][0] for d in everyone]
    if sum(counts) == 0:
        raise ValueError("wp.distributed.gather_reduce: every rank's array is empty; there is nothing to reduce")
    rows, path, staged = _gather_host(s, array, counts=counts)
    result = _fold(rows, op, rows.shape[0])
    out_shape = tuple(array.shape[1:]) or (1,)
    out = _arrays.array(result.reshape(out_shape + rows.shape[1 + len(array.shape[1:]):]), dtype=array.dtype,
                        device=array.device)
    nbytes = array.capacity
    _count(s, "gather_reduce", path, nbytes, rows.nbytes - nbytes, staged + (result.nbytes if path != "mpi" else 0))
    return out


# ---- helpers of the gathering collectives ----

def _row_bytes(a):
    t = _types.type_of(a.dtype)
    return t.size * int(np.prod(a.shape[1:], dtype=np.int64))


def _gather_host(s, array, leading=None, counts=None):
    """(every rank's elements stacked in rank order as a host numpy array, path, staged bytes).
    leading=1 stacks whole arrays (shape (world_size,) + shape); else counts are first dimensions."""
    host = array.numpy()
    path = "mpi" if array.device.is_host_memory else "mpi-staged"
    staged = 0 if path == "mpi" else array.capacity
    if leading is not None:
        counts = [1] * s.size
        host = host.reshape((1,) + host.shape)
    inner = host.shape[1:]
    rows = _scratch(s, (sum(counts),) + inner, host.dtype)
    row_bytes = rows.itemsize * int(np.prod(inner, dtype=np.int64))
    byte_counts = [c * row_bytes for c in counts]
    s.comm.Allgatherv(host.reshape(-1).view(np.uint8),
                      [rows.view(np.uint8).reshape(-1), byte_counts, s.MPI.BYTE])
    return rows, path, staged


def _scratch(s, shape, dtype):
    """A host buffer of `shape` reused by every gathering call (grown when too small), so that a
    gather does not fault in fresh pages each time; callers copy out of it before returning."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if s.scratch.nbytes < nbytes:
        s.scratch = np.empty(nbytes, dtype=np.uint8)
    return s.scratch[:nbytes].view(dtype).reshape(shape)


def _fold(rows, op, count):
    """rows[0] op rows[1] op ... in this order, in the rows' dtype ('mean': the sum / count).
    Sums run as one np.add.accumulate over the rows, in place (`rows` is the caller's scratch and
    is consumed): accumulate is sequential by definition (out[i] = out[i-1] + rows[i]), unlike
    np.sum, whose pairwise order would differ from a one-by-one fold. Maxima and minima do not
    depend on the order."""
    if rows.dtype == np.bool_:
        return (np.logical_or if op == "max" else np.logical_and).reduce(rows, axis=0)
    if op in ("max", "min"):
        return (np.maximum if op == "max" else np.minimum).reduce(rows, axis=0)
    np.add.accumulate(rows, axis=0, dtype=rows.dtype, out=rows)
    acc = np.array(rows[-1], copy=True)
    if op == "mean":
        acc = np.array(acc / acc.dtype.type(count), dtype=rows.dtype)
    return acc


def _write(array, values, path):
    if path == "mpi":
        array.numpy()[...] = values
    else:
        array.assign(values)
