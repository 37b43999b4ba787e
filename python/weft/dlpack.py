"""DLPack: zero-copy exchange of arrays with numpy, PyTorch, JAX, CuPy (the C++ side is runtime/dlpack.h).

    t = torch.from_dlpack(a)        # a wp.array -> torch, sharing memory (a.__dlpack__)
    a = wp.from_dlpack(t)           # anything with __dlpack__ (or a 'dltensor' capsule) -> wp.array
    n = np.from_dlpack(a)           # cpu arrays -> numpy

Arrays of vectors and matrices travel as scalar tensors with trailing component dimensions
((n,) vec3f <-> (n, 3) float32); pass dtype=wp.vec3 to from_dlpack to fold them back. For cuda
arrays the consumer's stream is ordered after Weft's current stream (and the reverse in
from_dlpack), with events: no host synchronisation.
"""

from . import _weft
from . import types as _types
from .arrays import array

# DLPack device types (the specification's DLDeviceType).
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13


def to_dlpack(a, stream=None):
    """A 'dltensor' capsule sharing `a`'s memory (what a.__dlpack__() returns)."""
    return _weft.to_dlpack(a._handle(), stream)


def dlpack_device(a):
    return _weft.dlpack_device(a._handle())


def from_dlpack(source, dtype=None):
    """A wp.array sharing the memory of `source`: an object with __dlpack__ (numpy, torch, jax,
    cupy, a wp.array) or a 'dltensor' capsule. dtype: a scalar or vector-like weft dtype whose
    components are the tensor's trailing dimensions (default: the tensor's scalar type)."""
    if hasattr(source, "__dlpack__"):
        kind, ordinal = source.__dlpack_device__()
        if kind in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            # The producer orders its work before our current stream of that device.
            capsule = source.__dlpack__(stream=_weft.current_stream_handle(f"cuda:{int(ordinal)}"))
        else:
            capsule = source.__dlpack__()
    else:
        capsule = source
    t = _types.type_of(dtype) if dtype is not None else None
    handle = _weft.from_dlpack(capsule, t)
    return array._wrap(handle, dtype)
