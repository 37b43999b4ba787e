"""Weft: a differentiable physics engine whose kernels are written in Python syntax.

    import weft as wp

    @wp.kernel
    def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wp.launch(saxpy, dim=n, inputs=[x, y, 2.0])

The names and behaviour follow NVIDIA Warp where the two overlap, so a Warp script ports by
changing its import. Kernels are compiled by Weft's own C++ compiler (weft._weft); this package
hands it the kernels' source, and wraps arrays, dtypes, devices and launches.
"""

import math as _math

from . import _weft
from .types import (bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16, float32, float64,
                    half, scalar_types, float_types, int_types, vector, matrix, quaternion, transformation,
                    Int, Float, Scalar)
from .type_queries import dtype_from_numpy, dtype_to_numpy  # also wp.types.<query>: type_queries adds its names there
from .types import vector as vec, matrix as mat  # Warp's wp.vec(length, dtype), wp.mat(shape, dtype)
from .types import value_classes as _value_classes
from .context import (Device, ScopedDevice, config, get_cuda_device_count, get_cuda_devices, get_device,
                      get_devices, init, is_cpu_available, is_cuda_available, set_device, synchronize,
                      synchronize_device)
from .arrays import (array, array1d, array2d, array3d, array4d, clone, copy, empty, empty_like, from_numpy, full,
                     full_like, ones, ones_like, zeros, zeros_like)
from .kernels import Function, Kernel, func, func_grad, kernel, overload, struct
from .structs import Struct, StructInstance
from .sources import constant
from .launch import launch
from .streams import (Event, ScopedCapture, ScopedCaptureCheck, ScopedStream, Stream, capture_launch, get_event_elapsed_time,
                      get_stream, synchronize_event, synchronize_stream)
from .dlpack import from_dlpack, to_dlpack
from .tape import Tape, checkpoint
from . import autograd
from . import testing
from . import sim
from . import distributed
from .audit import audit
from .utils import ScopedTimer
from . import utils
# Builtins callable from Python scope, as in Warp (wp.length, wp.quat_identity ...): python/weft/pyscope.py
from .pyscope import *  # noqa: F401,F403

CompileError = _weft.CompileError

# vec2 ... vec4 (+ f d h i u l b B s S), mat22 ... mat44 (+ f d h), quat(+ f d h), transform(+ f d h),
# spatial_vector(+ d), spatial_matrix(+ d): every value type name the compiler knows.
globals().update(_value_classes)

# Constants, as in kernels (wp.pi, wp.inf ...).
pi = _math.pi
tau = 2.0 * _math.pi
half_pi = _math.pi / 2.0
e = _math.e
inf = _math.inf
nan = _math.nan
phi = 1.6180339887498949
log2e = 1.0 / _math.log(2.0)
log10e = 1.0 / _math.log(10.0)
ln2 = _math.log(2.0)
ln10 = _math.log(10.0)

__version__ = "0.1.0"


def cache_stats():
    """Disk-cache counters of this process: {'hits', 'misses', 'damaged'}."""
    return _weft.cache_stats()


# wp.optim (SGD, Adam): its kernels name `wp`, so it is imported once everything above exists.
from . import optim  # noqa: E402
