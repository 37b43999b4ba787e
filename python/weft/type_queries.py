"""Warp's dtype queries and tables (wp.types.type_size, np_dtype_to_warp_type ...).

Warp scripts and tests ask questions of dtypes through `warp.types`: how many components a
vector has, its scalar type, its size in bytes, the numpy dtype of a scalar. These answer them
for Weft's dtype objects (python/weft/types.py) with Warp's names and Warp's results, so that
`wp.types.type_size(wp.vec3)` is 3 under both. Python's `float` and `int` count as float32 and
int32, as everywhere in Weft.
"""

import builtins

import numpy as np

from . import types as _t


def _scalar_class(name):
    return getattr(_t, name)


# Warp's tables. Warp's scalar_types has no bool (scalar_and_bool_types does).
np_dtype_to_warp_type = {}
for _name, _np in _t._NP_SCALARS.items():
    np_dtype_to_warp_type[_np] = _scalar_class(_name)
    np_dtype_to_warp_type[np.dtype(_np)] = _scalar_class(_name)
np_dtype_to_warp_type[np.byte] = _t.int8
np_dtype_to_warp_type[np.ubyte] = _t.uint8

warp_type_to_np_dtype = {_scalar_class(n): np_type for n, np_type in _t._NP_SCALARS.items()}

non_atomic_types = (_t.int8, _t.uint8, _t.int16, _t.uint16, _t.int64)


def dtype_from_numpy(numpy_dtype):
    """The Weft dtype of a numpy dtype (np.float32 -> wp.float32); TypeError for others."""
    d = np_dtype_to_warp_type.get(numpy_dtype)
    if d is None:
        raise TypeError(f"Cannot convert {numpy_dtype} to a Warp type")
    return d


def dtype_to_numpy(warp_dtype):
    """The numpy scalar type of a Weft scalar dtype (wp.float32 -> np.float32); TypeError for others."""
    d = warp_type_to_np_dtype.get(warp_dtype)
    if d is None:
        raise TypeError(f"Cannot convert {warp_dtype} to a NumPy type")
    return d


def type_to_warp(dtype):
    """Python's float, int, bool as wp.float32, wp.int32, wp.bool; other dtypes unchanged."""
    if dtype is builtins.float:
        return _t.float32
    if dtype is builtins.int:
        return _t.int32
    if dtype is builtins.bool:
        return _t.bool
    return dtype


def type_size(dtype):
    """Components of a dtype: 1 for scalars and structs, 3 for vec3, 9 for mat33, 7 for transform."""
    t = _t.type_of(dtype)
    return 1 if t.kind in ("scalar", "struct") else t.components


def type_length(dtype):
    """Warp's type_length: a vector's length, a matrix's row count (its `_shape_[0]`)."""
    t = _t.type_of(dtype)
    if t.kind == "matrix":
        return t.rows
    if t.kind == "scalar":
        raise TypeError(f"type_length: scalar type {t} has no length")
    return t.components


def type_size_in_bytes(dtype):
    """Bytes of one element of `dtype` (vec3 -> 12, float64 -> 8, a struct -> its padded size)."""
    return _t.type_of(dtype).size


def type_scalar_type(dtype):
    """The scalar dtype of a vector/matrix/quaternion/transform type; a scalar dtype itself."""
    return getattr(dtype, "_wp_scalar_type_", dtype)


def _kind(dtype):
    try:
        return _t.type_of(dtype).kind
    except TypeError:
        return None


def type_is_int(t):
    return type_to_warp(t) in _t.int_types


def type_is_float(t):
    return type_to_warp(t) in _t.float_types


def type_is_scalar(t):
    return type_is_int(t) or type_is_float(t)


def type_is_vector(t):
    return _kind(t) == "vector"


def type_is_matrix(t):
    return _kind(t) == "matrix"


def type_is_quaternion(t):
    return _kind(t) == "quat"


def type_is_transformation(t):
    return _kind(t) == "transform"


def type_is_value(t):
    return t in (builtins.int, builtins.float, builtins.bool) or _kind(t) in ("scalar", "vector", "matrix", "quat",
                                                                             "transform")


def is_int(x):
    return type_is_int(type(x))


def is_float(x):
    return type_is_float(type(x))


def is_scalar(x):
    return type_is_scalar(type(x))


def is_value(x):
    return type_is_value(type(x))


_SHORT = {"float16": "h", "float32": "f", "float64": "d", "int8": "b", "int16": "s", "int32": "i", "int64": "l",
          "uint8": "ub", "uint16": "us", "uint32": "ui", "uint64": "ul"}


def scalar_short_name(t):
    """Warp's one- or two-letter suffix of a scalar dtype (float32 -> 'f', uint8 -> 'ub'), or None."""
    k = _kind(t)
    return _SHORT.get(_t.type_of(t).scalar) if k == "scalar" else None


def type_repr(t):
    """A readable name of a dtype, as Warp prints it: 'vec3f', 'mat22(d)', 'float32', 'int'."""
    if t is builtins.float:
        return "float"
    if t is builtins.int:
        return "int"
    if t is builtins.bool:
        return "bool"
    try:
        wt = _t.type_of(t)
    except TypeError:
        return repr(t)
    sn = _SHORT.get(wt.scalar) if wt.kind != "struct" else None
    if wt.kind == "scalar":
        return str(wt)
    if wt.kind in ("transform", "quat"):
        name = "transform" if wt.kind == "transform" else "quat"
        return f"{name}{sn}" if sn else f"{name}(dtype={wt.scalar})"
    if wt.kind == "vector":
        n = wt.components
        return f"vec{n}{sn}" if sn and n <= 4 else f"vector(length={n}, dtype={wt.scalar})"
    if wt.kind == "matrix":
        r, c = wt.rows, wt.cols
        return f"mat{r}{c}({sn})" if sn and r <= 4 and c <= 4 else f"matrix(shape=({r}, {c}), dtype={wt.scalar})"
    return str(wt)


def types_equal(a, b, match_generic=False):
    """Whether two dtypes are the same type (float and wp.float32 are). Generic matching is not
    supported: match_generic=True raises TypeError."""
    if match_generic:
        raise TypeError("types_equal(match_generic=True): Weft has no generic types")
    try:
        return _t.type_of(a) == _t.type_of(b)
    except TypeError:
        return a == b


def strides_from_shape(shape, dtype):
    """Byte strides of a contiguous array of `shape` and `dtype`."""
    strides = [type_size_in_bytes(dtype)]
    for n in reversed(shape[1:]):
        strides.insert(0, strides[0] * n)
    return tuple(strides)


__all__ = [
    "np_dtype_to_warp_type", "warp_type_to_np_dtype", "non_atomic_types", "dtype_from_numpy", "dtype_to_numpy",
    "type_to_warp", "type_size", "type_length", "type_size_in_bytes", "type_scalar_type", "type_is_int",
    "type_is_float", "type_is_scalar", "type_is_vector", "type_is_matrix", "type_is_quaternion",
    "type_is_transformation", "type_is_value", "is_int", "is_float", "is_scalar", "is_value", "scalar_short_name",
    "type_repr", "types_equal", "strides_from_shape", "vector_types",
]

vector_types = tuple(dict.fromkeys(_t.value_classes.values()))


# wp.types.<query>, as in Warp: this module's names join weft.types' namespace (types.py cannot
# import this module: it is imported by it).
for _name in __all__:
    setattr(_t, _name, globals()[_name])
