"""NCCL, loaded at run time through ctypes, for wp.distributed's collectives on cuda arrays.

NCCL is not linked: like the CUDA driver (runtime/cuda/cuda_driver.cpp), libnccl.so.2 is opened
on first use, so a build and a machine without it work, and wp.distributed falls back to MPI with
host staging. The library is looked for, in order, at $WEFT_NCCL_LIBRARY (alone, when set), by
the loader's search path ("libnccl.so.2", which finds the CUDA toolkit's copy where ldconfig
knows it), in /usr/local/cuda/lib64 and /usr/local/cuda/lib, and in the `nvidia-nccl` Python
package's lib/ folder.

NCCL's calls take the CUDA runtime's current device from the calling thread's current context;
Weft's cuda device works in each GPU's primary context, so a Communicator makes that context
current (through the driver, libcuda.so.1) before each call. Every call queues its work on the
stream it is given and returns: ordering with kernels is the stream's, as for a launch.
"""

import ctypes
import importlib.util
import os

import numpy as np

UNIQUE_ID_BYTES = 128

# ncclDataType_t and ncclRedOp_t (nccl.h). int16/uint16 and bool have no NCCL type of their own:
# bool travels as uint8 (max = any, min = all); int16 and uint16 are not reduced through NCCL.
DTYPES = {np.dtype(np.int8): 0, np.dtype(np.uint8): 1, np.dtype(np.bool_): 1, np.dtype(np.int32): 2,
          np.dtype(np.uint32): 3, np.dtype(np.int64): 4, np.dtype(np.uint64): 5, np.dtype(np.float16): 6,
          np.dtype(np.float32): 7, np.dtype(np.float64): 8}
OPS = {"sum": 0, "max": 2, "min": 3, "mean": 4}  # ncclSum, ncclMax, ncclMin, ncclAvg (NCCL >= 2.10)
_UINT8 = 1
_REQUIRED = ("ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy", "ncclAllReduce",
             "ncclBroadcast", "ncclGroupStart", "ncclGroupEnd", "ncclGetErrorString", "ncclGetLastError")


class NcclError(RuntimeError):
    """A failed NCCL call: the call's name, NCCL's error string and its last error message."""


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


def library_candidates():
    """The paths tried for libnccl.so.2, in order (see the module docstring)."""
    explicit = os.environ.get("WEFT_NCCL_LIBRARY")
    if explicit:
        return [explicit]
    out = ["libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2"]
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        spec = None
    for folder in (spec.submodule_search_locations if spec and spec.submodule_search_locations else []):
        out.append(os.path.join(folder, "nccl", "lib", "libnccl.so.2"))
    return out


class Library:
    """libnccl.so.2, opened from the first candidate that loads. Raises OSError naming every path
    tried and why each failed."""

    def __init__(self, candidates=None):
        tried = []
        self._lib = None
        for path in candidates or library_candidates():
            try:
                self._lib = ctypes.CDLL(path)
                self.path = path
                break
            except OSError as e:
                tried.append(f"{path}: {e}")
        if self._lib is None:
            raise OSError("libnccl.so.2 could not be loaded (" + "; ".join(tried) + ")")
        lib = self._lib
        missing = [name for name in _REQUIRED if not hasattr(lib, name)]
        if missing:
            raise OSError(f"{self.path} lacks {', '.join(missing)} (wp.distributed needs NCCL 2.13 or newer)")
        lib.ncclGetErrorString.restype = ctypes.c_char_p
        lib.ncclGetErrorString.argtypes = [ctypes.c_int]
        lib.ncclGetLastError.restype = ctypes.c_char_p
        lib.ncclGetLastError.argtypes = [ctypes.c_void_p]
        lib.ncclCommInitRank.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, _UniqueId, ctypes.c_int]
        lib.ncclAllReduce.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                      ctypes.c_void_p, ctypes.c_void_p]
        lib.ncclBroadcast.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                                      ctypes.c_void_p, ctypes.c_void_p]
        lib.ncclCommDestroy.argtypes = [ctypes.c_void_p]
        version = ctypes.c_int(0)
        self.check("ncclGetVersion", lib.ncclGetVersion(ctypes.byref(version)))
        self.version = version.value

    @property
    def version_string(self):
        """'2.28.9' from the version code (major * 10000 + minor * 100 + patch since 2.9)."""
        v = self.version
        return f"{v // 10000}.{v // 100 % 100}.{v % 100}" if v >= 10000 else f"{v // 1000}.{v // 100 % 10}.{v % 100}"

    def check(self, call, result, comm=None):
        if result != 0:
            text = self._lib.ncclGetErrorString(result).decode(errors="replace")
            last = self._lib.ncclGetLastError(comm).decode(errors="replace") if comm is not None else ""
            raise NcclError(f"{call} failed: {text}" + (f" ({last})" if last else ""))

    def unique_id(self):
        """A new ncclUniqueId as 128 bytes (rank 0 makes it; the others receive it over MPI)."""
        uid = _UniqueId()
        self.check("ncclGetUniqueId", self._lib.ncclGetUniqueId(ctypes.byref(uid)))
        return ctypes.string_at(ctypes.addressof(uid), UNIQUE_ID_BYTES)  # all 128 bytes, NULs included


class _Driver:
    """The three driver calls that make a GPU's primary context current on this thread."""

    def __init__(self):
        self._cu = ctypes.CDLL("libcuda.so.1")
        self._cu.cuInit(0)

    def primary_context(self, ordinal):
        dev, ctx = ctypes.c_int(0), ctypes.c_void_p(0)
        for call, result in (("cuDeviceGet", lambda: self._cu.cuDeviceGet(ctypes.byref(dev), ordinal)),
                             ("cuDevicePrimaryCtxRetain", lambda: self._cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev))):
            code = result()
            if code != 0:
                raise NcclError(f"{call} failed with CUresult {code} for cuda:{ordinal}")
        return ctx

    def make_current(self, ctx):
        code = self._cu.cuCtxSetCurrent(ctx)
        if code != 0:
            raise NcclError(f"cuCtxSetCurrent failed with CUresult {code}")


class Communicator:
    """One rank's NCCL communicator on cuda:`ordinal` (ncclCommInitRank: collective over all ranks)."""

    def __init__(self, library, nranks, unique_id, rank, ordinal):
        self.lib, self.ordinal = library, ordinal
        self._driver = _Driver()
        self._ctx = self._driver.primary_context(ordinal)
        self._driver.make_current(self._ctx)
        if len(unique_id) != UNIQUE_ID_BYTES:
            raise NcclError(f"ncclCommInitRank: a unique id has {UNIQUE_ID_BYTES} bytes, got {len(unique_id)}")
        uid = _UniqueId()
        ctypes.memmove(ctypes.addressof(uid), unique_id, UNIQUE_ID_BYTES)
        self._comm = ctypes.c_void_p(0)
        library.check("ncclCommInitRank", library._lib.ncclCommInitRank(ctypes.byref(self._comm), nranks, uid, rank))

    def all_reduce(self, ptr, count, dtype, op, stream):
        """In place: count elements of numpy dtype `dtype` at device address ptr, op of OPS."""
        self._driver.make_current(self._ctx)
        lib = self.lib._lib
        self.lib.check("ncclAllReduce", lib.ncclAllReduce(ptr, ptr, count, DTYPES[np.dtype(dtype)], OPS[op], self._comm,
                                                          ctypes.c_void_p(stream)), self._comm)

    def broadcast(self, src, dst, nbytes, root, stream):
        """nbytes from root's src to every rank's dst (src == dst: in place)."""
        self._driver.make_current(self._ctx)
        lib = self.lib._lib
        self.lib.check("ncclBroadcast", lib.ncclBroadcast(src, dst, nbytes, _UINT8, root, self._comm,
                                                          ctypes.c_void_p(stream)), self._comm)

    def gather(self, src, dst, counts_bytes, stream):
        """Every rank's src (counts_bytes[r] bytes on rank r) into dst, in rank order: one
        broadcast per rank, grouped (NCCL's all-gather needs equal counts; this does not)."""
        self._driver.make_current(self._ctx)
        lib = self.lib._lib
        self.lib.check("ncclGroupStart", lib.ncclGroupStart())
        try:
            offset = 0
            for r, n in enumerate(counts_bytes):
                if n:
                    self.lib.check("ncclBroadcast", lib.ncclBroadcast(src, dst + offset, n, _UINT8, r, self._comm,
                                                                      ctypes.c_void_p(stream)), self._comm)
                offset += n
        finally:
            self.lib.check("ncclGroupEnd", lib.ncclGroupEnd())

    def destroy(self):
        if self._comm:
            self._driver.make_current(self._ctx)
            self.lib._lib.ncclCommDestroy(self._comm)
            self._comm = ctypes.c_void_p(0)
