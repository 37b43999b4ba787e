"""wp.array and its constructors (zeros, empty, full, clone, copy ...).

An `array` wraps a `_weft.Array` handle. Its dtype is a Python dtype object (wp.float32,
wp.vec3f, a @wp.struct); its numpy form appends the dtype's inner shape, so an array of n vec3
reads as an (n, 3) float32 numpy array and is built from one, as in Warp.

`wp.array(dtype=float)` with neither data nor shape is a type, not an allocation: that is how
kernel parameters and struct fields are annotated (`x: wp.array(dtype=wp.vec3)`).

`numpy()` on cpu and sim arrays is a view of the array's memory (the view keeps the memory
alive); on cuda it is a copy.
"""

import typing

import numpy as np

from . import _weft
from . import context as _context
from . import recording as _recording
from . import types as _types
from .structs import StructInstance


def _shape_tuple(shape):
    if shape is None:
        return None
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def _infer_dtype(data):
    """Warp's rule for data without a dtype: the numpy dtype's scalar (lists: float32/int32/bool)."""
    if isinstance(data, np.ndarray):
        t = _types.scalar_from_numpy(data.dtype)
        if t is None:
            raise TypeError(f"cannot infer a weft dtype from numpy dtype {data.dtype}; pass dtype=")
        return _types.dtype_of(t)
    flat = np.asarray(data)
    if flat.dtype == np.bool_:
        return _types.bool
    if np.issubdtype(flat.dtype, np.integer):
        return _types.int32
    if np.issubdtype(flat.dtype, np.floating):
        return _types.float32
    raise TypeError(f"cannot infer a weft dtype from {type(data).__name__} data; pass dtype=")


def _host_data(data, t, shape=None):
    """(contiguous numpy data in the element layout, array shape) for `data` as elements of `t`."""
    base, inner = _types.numpy_layout(t)
    if t.kind == "struct":
        if isinstance(data, np.ndarray) and data.dtype.itemsize == t.size and data.dtype.kind == "V":
            host = np.ascontiguousarray(data).view(np.uint8).reshape(data.shape + (t.size,))
            return host, data.shape
        items = list(data)
        host = np.frombuffer(b"".join(_types.pack_value(t, v) for v in items), dtype=np.uint8).reshape(len(items), t.size)
        return host, (len(items),)
    host = np.asarray(data)
    if host.dtype == object:
        host = np.asarray([np.asarray(v, dtype=base) for v in np.ravel(host)])
    host = np.ascontiguousarray(host, dtype=base)
    if inner and host.shape[-len(inner):] != inner:
        # Warp's rule: the last axis holds whole elements (a (4, 6) float array is 4 x 2 vec3s, a
        # (3, 4) one 3 mat22s: an axis of one element is dropped, but not the only one).
        per = int(np.prod(inner))
        if host.size == 0 and host.ndim == 1:
            host = host.reshape((0,) + inner)
        elif host.ndim >= 1 and host.shape[-1] % per == 0 and host.shape[-1] > 0:
            lead = host.shape[:-1] + (host.shape[-1] // per,)
            if len(lead) > 1 and lead[-1] == 1:
                lead = lead[:-1]
            host = host.reshape(lead + inner)
        else:
            raise ValueError(f"data of shape {host.shape} does not hold elements of {t} (inner shape {inner})")
    arr_shape = host.shape[: host.ndim - len(inner)] if inner else host.shape
    if shape is not None and tuple(shape) != tuple(arr_shape):
        count = int(np.prod(shape))
        if count * max(1, int(np.prod(inner))) != host.size:
            raise ValueError(f"data of {host.size} scalars does not fit shape {shape} of {t}")
        host = host.reshape(tuple(shape) + inner)
        arr_shape = tuple(shape)
    if len(arr_shape) == 0:
        host = host.reshape((1,) + inner)
        arr_shape = (1,)
    return host, tuple(arr_shape)


class array:
    """A typed n-dimensional array on a device (Warp's wp.array)."""

    def __init__(self, data=None, dtype=None, shape=None, strides=None, ptr=None, capacity=None, device=None,
                 pinned=False, copy=True, deleter=None, ndim=None, grad=None, requires_grad=False):
        self._arr = None
        self._grad = None
        for name, value in (("ptr", ptr), ("capacity", capacity), ("deleter", deleter)):
            if value is not None:
                raise TypeError(f"wp.array: {name}= (wrapping memory by its address) is not supported by Weft; "
                                "share external memory with wp.from_dlpack(obj)")
        if not copy and data is not None:
            raise TypeError("wp.array: copy=False (aliasing the data) is not supported by Weft: data is always copied; "
                            "share memory with wp.from_dlpack(obj)")
        shape = _shape_tuple(shape)
        self._init_args(data, dtype, shape, device, requires_grad, ndim, pinned)
        if strides is not None and self._arr is not None and tuple(strides) != self.strides:
            raise TypeError(f"wp.array: strides={tuple(strides)} differ from the array's contiguous strides "
                            f"{self.strides}; Weft makes only contiguous arrays from data")
        if grad is not None:
            self.grad = grad

    def _init_args(self, data, dtype, shape, device, requires_grad, ndim, pinned):
        if data is None and shape is None:
            # A type annotation: wp.array(dtype=float, ndim=2); without dtype (or dtype=Any), one
            # of a generic kernel or func (generics.py)
            self.dtype = dtype if dtype is not None else typing.Any
            self._annotation_ndim = ndim or 1
            return
        if isinstance(data, array):
            src = data
            if dtype is typing.Any:
                dtype = src.dtype
            if (dtype is None or _types.type_of(dtype) == src._handle().dtype) and (shape is None or tuple(shape) == src.shape):
                dev = _context.get_device(device if device is not None else src.device)
                self._init_from(src._arr.to(dev.alias), src.dtype)
                self.requires_grad = requires_grad
                return
            # Another dtype or shape (Warp's wp.array(src, dtype=wp.vec3)): the scalars, re-read.
            if device is None:
                device = src.device
            data = src.numpy()
            if dtype is None:
                dtype = src.dtype
        dev = _context.get_device(device)
        if dtype is None:
            dtype = _infer_dtype(data) if data is not None else _types.float32
        t = _types.type_of(dtype)
        if data is None:
            self._init_from(_allocate("zeros", t, shape, dev, requires_grad, pinned), dtype)
            return
        host, arr_shape = _host_data(data, t, shape)
        a = _allocate("empty", t, arr_shape, dev, requires_grad, pinned)
        a.copy_from_host(host)
        self._init_from(a, dtype)

    def _init_from(self, handle, dtype):
        self._arr = handle
        self.dtype = _types.dtype_of(handle.dtype) if dtype is None else dtype
        self._annotation_ndim = None

    @classmethod
    def _wrap(cls, handle, dtype=None):
        a = cls.__new__(cls)
        a._grad = None
        a._init_from(handle, dtype)
        return a

    # ---- properties ----
    def _handle(self):
        if self._arr is None:
            raise TypeError("this wp.array is a type annotation (no data, no shape); it has no memory")
        return self._arr

    @property
    def _weft_type_of_array(self):
        """The kernel-language type of this array as a kernel parameter."""
        ndim = self._annotation_ndim if self._arr is None else self._arr.ndim
        return _weft.array_type(_types.type_of(self.dtype), ndim)

    @property
    def shape(self):
        return tuple(self._handle().shape)

    @property
    def strides(self):
        return tuple(self._handle().strides)

    @property
    def ndim(self):
        return self._annotation_ndim if self._arr is None else self._arr.ndim

    @property
    def size(self):
        return self._handle().size

    @property
    def capacity(self):
        return self._handle().nbytes

    @property
    def device(self):
        return _context.get_device(self._handle().device)

    @property
    def ptr(self):
        return self._handle().ptr

    @property
    def is_contiguous(self):
        return self._handle().is_contiguous

    @property
    def requires_grad(self):
        return self._handle().requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._handle().requires_grad = bool(value)

    @property
    def grad(self):
        g = self._handle().grad
        if g is None:
            self._grad = None
            return None
        if self._grad is None or self._grad._arr.ptr != g.ptr:
            self._grad = array._wrap(g, self.dtype)
        return self._grad

    @grad.setter
    def grad(self, g):
        """Uses `g` (same shape, dtype, device) as the gradient; None drops it."""
        if g is None:
            self._handle().requires_grad = False
        else:
            if not isinstance(g, array):
                raise TypeError(f"array.grad must be a wp.array or None, got {type(g).__name__}")
            self._handle().set_grad(g._handle())
        self._grad = None

    def __len__(self):
        return self.shape[0]

    @property
    def pinned(self):
        """True for a cpu array in page-locked memory (pinned=True): copies to and from cuda arrays are DMAs."""
        return _weft.is_pinned(self._handle())

    # ---- DLPack (the protocol; wp.from_dlpack and wp.to_dlpack are in python/weft/dlpack.py) ----
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        """A 'dltensor' capsule sharing this array's memory; for cuda arrays `stream` (the consumer's)
        is ordered after this thread's current stream."""
        if copy:
            raise BufferError("wp.array.__dlpack__ shares memory; copy=True is not supported")
        return _weft.to_dlpack(self._handle(), stream)

    def __dlpack_device__(self):
        return _weft.dlpack_device(self._handle())

    # ---- host access ----
    def numpy(self):
        """A numpy array of the contents: a view (no copy) on cpu and sim, a copy on cuda."""
        a = self._handle()
        base, inner = _types.numpy_layout(a.dtype)
        shape = list(a.shape) + list(inner)
        if _context.get_device(a.device).is_host_memory:
            inner_strides = []
            stride = base.itemsize
            for n in reversed(inner):
                inner_strides.insert(0, stride)
                stride *= n
            return a.host_view(base, shape, list(a.strides) + inner_strides)
        if not a.is_contiguous:
            raise RuntimeError(f"numpy() of a non-contiguous {a.describe()} is not supported")
        out = np.empty(shape, dtype=base)
        a.copy_to_host(out.view(np.uint8).reshape(-1))
        return out

    def __array__(self, dtype=None, copy=None):
        n = self.numpy()
        return n.astype(dtype) if dtype is not None else n

    def list(self):
        """The elements as Python values (numbers, wp.vec3 instances, struct instances)."""
        t = self._handle().dtype
        n = self.numpy()
        if t.kind == "scalar":
            return n.ravel().tolist()
        cls = _types.dtype_of(t)
        if t.kind == "struct":
            return [cls.from_bytes(r.tobytes()) for r in np.ascontiguousarray(n).reshape(-1)]
        _, inner = _types.numpy_layout(t)
        return [cls(v) for v in np.ascontiguousarray(n).reshape((-1,) + inner)]

    # ---- in-place operations ----
    def zero_(self):
        self._handle().zero()

    def fill_(self, value):
        a = self._handle()
        a.fill(_types.pack_value(a.dtype, value))

    def assign(self, src):
        """Copies `src` (a wp.array, numpy array or sequence of the same shape) into this array."""
        a = self._handle()
        if isinstance(src, array):
            a.assign(src._handle())
            return
        host, shape = _host_data(src, a.dtype, a.shape)
        if tuple(shape) != tuple(a.shape):
            raise ValueError(f"assign: data of shape {shape} into an array of shape {tuple(a.shape)}")
        a.copy_from_host(host)

    def to(self, device):
        d = _context.get_device(device)
        if d == self.device:
            return self
        return array._wrap(self._handle().to(d.alias), self.dtype)

    def zero_grad(self):
        self._handle().zero_grad()

    # ---- views (Warp's): they share this array's memory and gradient; no copy ----
    def _view(self, offset, shape, strides, dtype=None):
        t = self._handle().dtype if dtype is None else _types.type_of(dtype)
        return array._wrap(self._handle().view(int(offset), t, [int(n) for n in shape], [int(k) for k in strides]),
                           self.dtype if dtype is None else dtype)

    def __getitem__(self, key):
        """A view: ints drop a dimension, slices (positive steps) keep it, as Warp's `a[1:3, 2]`.
        Indexing every dimension with ints is refused (Warp's "Item indexing is not supported")."""
        a = self._handle()
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, array) for k in keys):
            raise TypeError("wp.array: indexing with an array of indices (Warp's indexedarray) is not supported by Weft")
        for k in keys:
            if not isinstance(k, (slice, int, np.integer)) or isinstance(k, bool):
                raise TypeError(f"wp.array: invalid index {k!r}: use ints and slices")
        if len(keys) > a.ndim:
            raise IndexError(f"wp.array: {len(keys)} indices for an array of {a.ndim} dimensions")
        if all(not isinstance(k, slice) for k in keys) and len(keys) == a.ndim:
            raise RuntimeError("Item indexing is not supported on wp.array objects: read elements with "
                               "a.numpy()[...] or in a kernel")
        shape, strides, offset = [], [], 0
        for d in range(a.ndim):
            n, stride = a.shape[d], a.strides[d]
            k = keys[d] if d < len(keys) else slice(None)
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step <= 0:
                    raise RuntimeError(f"wp.array: slice step must be positive, got {step}")
                shape.append(max(0, -((stop - start) // -step)))
                strides.append(stride * step)
                offset += stride * start if start < n else 0
            else:
                i = int(k) + (n if int(k) < 0 else 0)
                if i < 0 or i >= n:
                    raise IndexError(f"wp.array: index {int(k)} out of range for dimension {d} of size {n}")
                offset += stride * i
        return self._view(offset, shape, strides)

    def reshape(self, shape):
        """A view with another shape (contiguous arrays; one extent may be -1)."""
        a = self._handle()
        if not a.is_contiguous:
            raise RuntimeError("Reshaping non-contiguous arrays is unsupported.")
        if shape is None:
            raise RuntimeError("shape parameter is required.")
        shape = [int(shape)] if isinstance(shape, (int, np.integer)) else [int(n) for n in shape]
        if shape.count(-1) > 1:
            raise RuntimeError("Cannot infer shape if more than one index is -1.")
        if -1 in shape:
            known = int(np.prod([n for n in shape if n != -1])) if len(shape) > 1 else 1
            shape[shape.index(-1)] = a.size // known if known else 0
        if int(np.prod(shape)) != a.size:
            raise RuntimeError(f"Reshaped array must have the same total size as the original: {tuple(shape)} "
                               f"holds {int(np.prod(shape))} elements, the array {a.size}")
        return self._view(0, shape, _types.strides_from_shape(shape, self.dtype))

    def flatten(self):
        """A 1-D view of a contiguous array."""
        if self.ndim == 1:
            return self
        if not self._handle().is_contiguous:
            raise RuntimeError("Flattening non-contiguous arrays is unsupported.")
        return self.reshape((self.size,))

    def view(self, dtype):
        """The same memory read as another dtype of the same byte size."""
        if _types.type_of(dtype).size != self._handle().element_size:
            raise RuntimeError("Cannot cast dtypes of unequal byte size")
        return self._view(0, self.shape, self.strides, dtype)

    def transpose(self, axes=None):
        """A view with the axes permuted (reversed by default)."""
        if self.ndim == 1:
            return self
        axes = list(range(self.ndim))[::-1] if axes is None else list(axes)
        if sorted(axes) != list(range(self.ndim)):
            raise RuntimeError(f"transpose: axes {tuple(axes)} are not a permutation of the array's {self.ndim} axes")
        return self._view(0, [self.shape[k] for k in axes], [self.strides[k] for k in axes])

    def contiguous(self):
        """This array if contiguous, else a contiguous copy."""
        if self._handle().is_contiguous:
            return self
        out = array(shape=self.shape, dtype=self.dtype, device=self.device)
        out.assign(self)
        return out

    def __repr__(self):
        if self._arr is None:
            if _types.is_generic(self.dtype):
                return f"wp.array(dtype={getattr(self.dtype, '__name__', self.dtype)}, ndim={self._annotation_ndim})"
            return f"wp.array(dtype={_types.type_of(self.dtype)}, ndim={self._annotation_ndim})"
        return self._arr.describe()

    def __str__(self):
        if self._arr is None:
            return repr(self)
        return str(self.numpy())


def array1d(*args, **kwargs):
    kwargs.setdefault("ndim", 1)
    return array(*args, **kwargs)


def array2d(*args, **kwargs):
    kwargs.setdefault("ndim", 2)
    return array(*args, **kwargs)


def array3d(*args, **kwargs):
    kwargs.setdefault("ndim", 3)
    return array(*args, **kwargs)


def array4d(*args, **kwargs):
    kwargs.setdefault("ndim", 4)
    return array(*args, **kwargs)


def _allocate(kind, t, shape, dev, requires_grad, pinned):
    """A new _weft.Array; pinned=True: page-locked host memory (cpu arrays only; needs CUDA)."""
    if pinned:
        if not dev.is_cpu:
            raise ValueError(f"pinned=True is for cpu arrays (host memory the GPU copies from by DMA), not '{dev.alias}'")
        return _weft.pinned_zeros(t, list(shape), requires_grad)
    if kind == "zeros":
        return _weft.Array.zeros(t, list(shape), dev.alias, requires_grad)
    return _weft.Array.empty(t, list(shape), dev.alias, requires_grad)


def _new(kind, shape, dtype, device, requires_grad, value=None, pinned=False):
    shape = _shape_tuple(shape if shape is not None else 0)
    if any(n < 0 for n in shape):
        raise ValueError(f"Array shapes must be non-negative, got {shape}")
    dtype = dtype if dtype is not None else _types.float32
    t = _types.type_of(dtype)
    dev = _context.get_device(device).alias
    if kind in ("zeros", "empty") or pinned:
        h = _allocate(kind if kind != "full" else "zeros", t, shape, _context.get_device(dev), requires_grad, pinned)
        if kind == "full":
            h.fill(_types.pack_value(t, value))
    else:
        h = _weft.Array.full(t, list(shape), _types.pack_value(t, value), dev, requires_grad)
    return array._wrap(h, dtype)


def _shape_from_kwargs(where, shape, kwargs):
    """Warp's old spelling `n=length` for shape; any other keyword is a TypeError naming it."""
    if "n" in kwargs:
        if shape is not None:
            raise TypeError(f"{where}: give shape= or n=, not both")
        shape = (kwargs.pop("n"),)
    if kwargs:
        raise TypeError(f"{where}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return shape


def _with_strides(kind, where, shape, strides, dtype, device, requires_grad, pinned):
    """Warp's strides= of a new array: contiguous in some order of its axes (a transposed layout).
    The array is allocated in that order and returned as the view with the given strides."""
    shape = _shape_tuple(shape)
    if len(strides) != len(shape):
        raise ValueError(f"{where}: strides {tuple(strides)} and shape {shape} have different lengths")
    order = sorted(range(len(shape)), key=lambda k: -int(strides[k]))  # outermost first
    dense = _types.strides_from_shape([shape[k] for k in order], dtype)
    if any(int(strides[order[j]]) != dense[j] for j in range(len(order)) if shape[order[j]] != 1):
        raise ValueError(f"{where}: strides {tuple(strides)} are not a contiguous layout of shape {shape}; Weft "
                         "allocates only contiguous layouts, in any order of the axes")
    a = _new(kind, [shape[k] for k in order], dtype, device, requires_grad, pinned=pinned)
    back = [order.index(k) for k in range(len(shape))]
    return a.transpose(back) if back != list(range(len(shape))) else a


def zeros(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, strides=None, **kwargs):
    shape = _shape_from_kwargs("wp.zeros", shape, kwargs)
    if strides is not None:
        return _with_strides("zeros", "wp.zeros", shape, strides, dtype, device, requires_grad, pinned)
    return _new("zeros", shape, dtype, device, requires_grad, pinned=pinned)


def empty(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, strides=None, **kwargs):
    shape = _shape_from_kwargs("wp.empty", shape, kwargs)
    if strides is not None:
        return _with_strides("empty", "wp.empty", shape, strides, dtype, device, requires_grad, pinned)
    return _new("empty", shape, dtype, device, requires_grad, pinned=pinned)


def ones(shape=None, dtype=float, device=None, requires_grad=False, pinned=False, **kwargs):
    shape = _shape_from_kwargs("wp.ones", shape, kwargs)
    return _new("full", shape, dtype, device, requires_grad, 1, pinned=pinned)


def _fill_dtype(value):
    """Warp's dtype of wp.full without one: a value's own type; Python bool/int/float: bool, int32,
    float32; a numpy array or sequence of n (or n x m) scalars: a vector (matrix) of its scalar."""
    if isinstance(value, (_types._Value, _types._ScalarValue)):
        return type(value)
    if isinstance(value, StructInstance):  # its struct (Warp's value._cls)
        return object.__getattribute__(value, "_struct")
    if type(value) is bool:
        return _types.bool
    if type(value) is int:
        return _types.int32
    if type(value) is float:
        return _types.float32
    if isinstance(value, np.generic):
        t = _types.scalar_from_numpy(value.dtype)
        if t is not None:
            return _types.dtype_of(t)
    if isinstance(value, (np.ndarray, list, tuple)):
        arr = np.asarray(value)
        scalar = _infer_dtype(arr)
        if arr.ndim == 1:
            return _types.vector(arr.shape[0], scalar)
        if arr.ndim == 2:
            return _types.matrix(arr.shape, scalar)
    raise TypeError(f"wp.full: cannot infer a dtype from a value of type {type(value).__name__}; pass dtype=")


def full(shape=None, value=0, dtype=None, device=None, requires_grad=False, pinned=False, **kwargs):
    shape = _shape_from_kwargs("wp.full", shape, kwargs)
    if dtype is None:
        dtype = _fill_dtype(value)
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return _new("full", shape, dtype, device, requires_grad, value, pinned=pinned)


def _like(src, device, requires_grad, pinned):
    return (device if device is not None else src.device,
            src.requires_grad if requires_grad is None else requires_grad,
            src.pinned if pinned is None else pinned)


def zeros_like(src, device=None, requires_grad=None, pinned=None):
    d, rg, pin = _like(src, device, requires_grad, pinned)
    return zeros(src.shape, src.dtype, d, rg, pin)


def empty_like(src, device=None, requires_grad=None, pinned=None):
    d, rg, pin = _like(src, device, requires_grad, pinned)
    return empty(src.shape, src.dtype, d, rg, pin)


def ones_like(src, device=None, requires_grad=None, pinned=None):
    d, rg, pin = _like(src, device, requires_grad, pinned)
    return ones(src.shape, src.dtype, d, rg, pin)


def full_like(src, value, device=None, requires_grad=None, pinned=None):
    d, rg, pin = _like(src, device, requires_grad, pinned)
    return full(src.shape, value, src.dtype, d, rg, pin)


def clone(src, device=None, requires_grad=None, pinned=None):
    """A new array with the contents of `src` (on `device`, default src's device). The copy is a
    wp.copy, so a Tape records it and backward() passes the clone's gradient to src's."""
    d, rg, pin = _like(src, device, requires_grad, pinned)
    out = empty(src.shape, src.dtype, d, rg, pin)
    copy(out, src)
    return out


def copy(dest, src, dest_offset=0, src_offset=0, count=0):
    """Copies src into dest (same shape and dtype; any devices)."""
    if dest_offset or src_offset or count:
        raise NotImplementedError("wp.copy with offsets or count is not supported yet")
    _recording.note_arrays(a for a in (dest, src) if isinstance(a, array))
    _weft.copy(dest._handle(), src._handle())


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False):
    return array(data=arr, dtype=dtype, shape=shape, device=device, requires_grad=requires_grad)
