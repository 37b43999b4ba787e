"""Dtypes as Python objects: scalars (wp.float32 ...), vectors, matrices, quaternions, transforms.

Each dtype object holds the interned C++ type (`_weft.Type`) the compiler uses, so that arrays,
launch arguments and struct layouts hand the runtime exactly the type a kernel's signature names.
Instances (`wp.vec3(1, 2, 3)`) are small host-side values backed by a numpy array; they are what
a launch packs into the argument block for a vec3 parameter, and what `array.list()` returns.

Python's `float`, `int` and `bool` are accepted wherever a dtype is, as float32, int32 and bool,
as in Warp. `type_of()` is the one place that turns any dtype-like thing into a `_weft.Type`.
"""

import builtins
import ctypes
import typing

import numpy as np

from . import _weft

# numpy scalar type of each kernel-language scalar.
_NP_SCALARS = {
    "bool": np.bool_, "int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16,
    "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
}
_SCALAR_OF_NP = {np.dtype(v): k for k, v in _NP_SCALARS.items()}

# The Python dtype object of each C++ type (first registered wins; aliases share one object).
_DTYPE_OF_TYPE = {}


def _register(t, dtype):
    _DTYPE_OF_TYPE.setdefault(t, dtype)


# ---------------------------------------------------------------------------------------------
# Scalars


class _ScalarValue:
    """A typed scalar (wp.float32(1.5)): passes to a kernel with exactly its type."""

    _weft_type = None
    _np = None

    def __init__(self, value=0):
        self.value = self._np(value).item()

    def to_bytes(self):
        return np.asarray(self.value, dtype=self._np).tobytes()

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __bool__(self):
        return builtins.bool(self.value)

    def __index__(self):
        return int(self.value)

    def __eq__(self, other):
        return self.value == (other.value if isinstance(other, _ScalarValue) else other)

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"


# Warp's scalar dtypes carry their ctypes type as `_type_` (tests use it to wrap integers).
_CTYPES = {
    "bool": ctypes.c_bool, "int8": ctypes.c_int8, "uint8": ctypes.c_uint8, "int16": ctypes.c_int16,
    "uint16": ctypes.c_uint16, "int32": ctypes.c_int32, "uint32": ctypes.c_uint32, "int64": ctypes.c_int64,
    "uint64": ctypes.c_uint64, "float16": ctypes.c_uint16, "float32": ctypes.c_float, "float64": ctypes.c_double,
}


def _make_scalar(name):
    t = _weft.scalar_type(name)
    cls = type(name, (_ScalarValue,), {"_weft_type": t, "_np": _NP_SCALARS[name], "_type_": _CTYPES[name],
                                       "_length_": 1, "__module__": "weft"})
    _register(t, cls)
    return cls


bool = _make_scalar("bool")  # noqa: A001 (Warp's name)
int8 = _make_scalar("int8")
uint8 = _make_scalar("uint8")
int16 = _make_scalar("int16")
uint16 = _make_scalar("uint16")
int32 = _make_scalar("int32")
uint32 = _make_scalar("uint32")
int64 = _make_scalar("int64")
uint64 = _make_scalar("uint64")
float16 = _make_scalar("float16")
float32 = _make_scalar("float32")
float64 = _make_scalar("float64")
half = float16

# As Warp's: scalar_types has no bool, scalar_and_bool_types has.
float_types = (float16, float32, float64)
int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
scalar_types = int_types + float_types
scalar_and_bool_types = (*scalar_types, bool)

# ---------------------------------------------------------------------------------------------
# Vectors, matrices, quaternions, transforms


class _Value:
    """A small fixed-size value (vector, matrix, quaternion, transform) on the host.

    Constructed from nothing (zeros), one scalar (every component), all components, or sequences
    whose flattened length is the component count (row vectors of a matrix, (p, q) of a
    transform). Components are stored in the kernel's layout: row-major, quaternions x y z w,
    transforms p then q.
    """

    _weft_type = None
    _np = None
    _shape = ()
    _length = 0

    def __init__(self, *args):
        if not args:
            data = np.zeros(self._shape, dtype=self._np)
        elif len(args) == 1 and np.ndim(args[0]) == 0:
            data = np.full(self._shape, args[0], dtype=self._np)
        else:
            flat = np.concatenate([np.ravel(np.asarray(a, dtype=np.float64 if self._is_float else None)) for a in args])
            if flat.size != self._length:
                kind = "matrix" if self._data_ndim() == 2 else "vector"  # Warp's message
                raise ValueError(f"Invalid number of arguments in {kind} constructor, expected {self._length} elements, "
                                 f"got {flat.size}")
            data = flat.astype(self._np).reshape(self._shape)
        object.__setattr__(self, "_data", data)

    _is_float = True

    @classmethod
    def from_bytes(cls, raw):
        v = cls.__new__(cls)
        object.__setattr__(v, "_data", np.frombuffer(raw, dtype=cls._np, count=cls._length).reshape(cls._shape).copy())
        return v

    def to_bytes(self):
        return np.ascontiguousarray(self._data, dtype=self._np).tobytes()

    def __array__(self, dtype=None, copy=None):
        return self._data.astype(dtype) if dtype is not None else self._data.copy()

    def __len__(self):
        return self._shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @classmethod
    def _data_ndim(cls):
        return len(cls._shape)

    @classmethod
    def _check_key(cls, key):
        """Warp's KeyErrors: a vector takes an int or a slice, a matrix one or two of them."""
        keys = key if isinstance(key, tuple) else (key,)
        matrix = cls._data_ndim() == 2
        if matrix and len(keys) > 2:
            raise KeyError(f"Invalid key, expected one or two indices, got {len(keys)}")
        for k in keys:
            if not isinstance(k, (int, np.integer, slice)):
                raise KeyError(f"Invalid key {k}, expected {'int or pair of ints' if matrix else 'int or slice'}")

    def __getitem__(self, key):
        self._check_key(key)
        item = self._data[key]
        if np.ndim(item) == 0:
            return item.item()
        if isinstance(key, slice) and self._data.ndim == 1:
            return item.tolist()  # as Warp's (ctypes) vectors: a slice is a list
        if np.ndim(item) == 1 and self._weft_type.kind == "matrix":
            return vector(len(item), self._np)(item)
        return item.copy()

    def __setitem__(self, key, value):
        self._check_key(key)
        self._data[key] = np.asarray(value)

    def __eq__(self, other):
        try:
            o = np.asarray(other)
        except Exception:
            return NotImplemented
        return o.shape == self._data.shape and builtins.bool(np.all(o == self._data))

    def __hash__(self):
        return hash((type(self), self._data.tobytes()))

    # Python-scope arithmetic follows Warp's: + and - of two values of one type or of a value and a
    # scalar (component-wise), * and / by a scalar, * and @ as the kernel's products (matrix x
    # matrix/vector, quaternion x quaternion, transform x transform: pyscope.mul). Values of
    # different types (mat22f * mat22d) raise RuntimeError, as Warp does.
    def _scalar_operand(self, o):
        return isinstance(o, (int, float, np.integer, np.floating, _ScalarValue)) and not isinstance(o, builtins.bool)

    def _no_overload(self, name, a, b):
        return RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments "
                            f"'{_type_name(a)}, {_type_name(b)}'")

    def _componentwise(self, other, op, name, reverse=False):
        if isinstance(other, _Value) and type(other) is not type(self):
            a, b = (other, self) if reverse else (self, other)
            raise self._no_overload(name, a, b)
        o = float(other) if isinstance(other, _ScalarValue) else other
        x, y = self._data.astype(np.float64), np.asarray(o, dtype=np.float64)
        return type(self)(op(y, x) if reverse else op(x, y))

    def __add__(self, o):
        return self._componentwise(o, np.add, "add")

    def __radd__(self, o):
        return self._componentwise(o, np.add, "add", reverse=True)

    def __sub__(self, o):
        return self._componentwise(o, np.subtract, "sub")

    def __rsub__(self, o):
        return self._componentwise(o, np.subtract, "sub", reverse=True)

    def _product(self, a, b):
        if self._scalar_operand(a) or self._scalar_operand(b):
            return self._componentwise(b if self is a else a, np.multiply, "mul", reverse=self is b)
        if not isinstance(a, _Value) or not isinstance(b, _Value):
            a, b = (a, type(self)(b)) if self is a else (type(self)(a), b)  # a sequence takes self's type
        if a._np != b._np:
            raise self._no_overload("mul", a, b)
        try:
            return _python_scope_mul(a, b)
        except (TypeError, ValueError):
            raise self._no_overload("mul", a, b) from None

    def __mul__(self, o):
        return self._product(self, o)

    def __rmul__(self, o):
        return self._product(o, self)

    def __matmul__(self, o):
        return self._product(self, o)

    def __rmatmul__(self, o):
        return self._product(o, self)

    def __truediv__(self, o):
        if not self._scalar_operand(o):
            raise self._no_overload("div", self, o)
        return self._componentwise(o, np.divide, "div")

    def __rtruediv__(self, o):
        if not self._scalar_operand(o):
            raise self._no_overload("div", o, self)
        return self._componentwise(o, np.divide, "div", reverse=True)

    def __neg__(self):
        return type(self)(-self._data)

    def __pos__(self):
        return type(self)(self._data)

    def __repr__(self):
        return f"{type(self).__name__}({', '.join(repr(x) for x in self._data.ravel().tolist())})"

    def __str__(self):
        """As Warp prints values: `[1.0, 2.0, 3.0]`; a matrix row by row, `[[1.0, 2.0],\n [3.0, 4.0]]`."""
        if self._data.ndim == 2:
            return "[" + ",\n ".join("[" + ", ".join(map(str, row)) + "]" for row in self._data.tolist()) + "]"
        return "[" + ", ".join(map(str, self._data.tolist())) + "]"


def _type_name(x):
    return type(x).__name__


def _transform_init(self, *args, p=None, q=None):
    """Warp's transform constructor: transform(p, q), transform(p=..., q=...) with p = (0, 0, 0) and
    q = identity by default (so transform() is the identity), or the 7 components, or a copy."""
    n = len(args) + (p is not None) + (q is not None)
    if n <= 2 and all(np.ndim(a) == 1 and np.size(a) in (3, 4) for a in args):
        if len(args) >= 1:
            if p is not None:
                raise TypeError("transform(): got multiple values for argument 'p'")
            p = args[0]
        if len(args) == 2:
            if q is not None:
                raise TypeError("transform(): got multiple values for argument 'q'")
            q = args[1]
        p = (0.0, 0.0, 0.0) if p is None else p
        q = (0.0, 0.0, 0.0, 1.0) if q is None else q
        if np.size(p) != 3 or np.size(q) != 4:
            raise ValueError(f"{type(self).__name__}(p, q) takes a 3-vector and a quaternion")
        return _Value.__init__(self, np.concatenate([np.ravel(p), np.ravel(q)]).astype(np.float64))
    if p is not None or q is not None:
        raise TypeError(f"{type(self).__name__}(): p= and q= go with at most a p and a q given by position")
    return _Value.__init__(self, *args)


def _component_property(index):
    def get(self):
        return self._data[index].item()

    def set(self, value):
        self._data[index] = value

    return property(get, set)


def _part_setter(part):
    def set(self, value):
        value = np.ravel(np.asarray(value, dtype=np.float64))
        if value.size != part.stop - part.start:
            raise ValueError(f"{type(self).__name__}: expected {part.stop - part.start} components, got {value.size}")
        self._data[part] = value

    return set


def _make_value_class(t):
    """The Python class of a C++ value type, created once per type."""
    if t in _DTYPE_OF_TYPE:
        return _DTYPE_OF_TYPE[t]
    np_type = _NP_SCALARS[t.scalar]
    if t.kind == "matrix":
        shape = (t.rows, t.cols)
    else:
        shape = (t.components,)
    attrs = {
        "_weft_type": t,
        "_np": np_type,
        "_shape": shape,
        "_length": t.components,
        # Warp's names of the same facts
        "_shape_": shape,
        "_length_": t.components,
        "_wp_scalar_type_": _DTYPE_OF_TYPE[_weft.scalar_type(t.scalar)],
        "_is_float": np.issubdtype(np_type, np.floating),
        "__module__": "weft",
    }
    if t.kind in ("vector", "quat"):
        for i, name in enumerate("xyzw"[: min(4, t.components)]):
            attrs[name] = _component_property(i)
    if t.kind == "transform":
        attrs["__init__"] = _transform_init
        attrs["p"] = property(lambda self: vector(3, self._np)(self._data[0:3]), _part_setter(slice(0, 3)))
        attrs["q"] = property(lambda self: quaternion(self._np)(self._data[3:7]), _part_setter(slice(3, 7)))
    cls = type(str(t), (_Value,), attrs)
    assert t.size == t.components * np.dtype(np_type).itemsize, f"layout of {t} is not packed"
    _register(t, cls)
    return cls


# ---------------------------------------------------------------------------------------------
# Generic types: annotations of generic funcs and kernels (python/weft/generics.py instantiates
# them). `typing.Any` stands for any type; these stand for a family of types.


class Int:
    """Warp's wp.Int: in an annotation, any integer scalar type (a generic parameter)."""

    _weft_generic = ("Int",)


class Float:
    """Warp's wp.Float: in an annotation, any floating-point scalar type (a generic parameter)."""

    _weft_generic = ("Float",)


class Scalar:
    """Warp's wp.Scalar: in an annotation, any numeric scalar type (a generic parameter)."""

    _weft_generic = ("Scalar",)


def is_generic(t):
    """Whether `t` (a dtype or annotation piece) leaves something open: Any, wp.Int/Float/Scalar,
    wp.vec(length=Any, ...), wp.array(dtype=Any) ..."""
    if t is typing.Any:
        return True
    if getattr(t, "_weft_generic", None) is not None:
        return True
    if getattr(t, "_annotation_ndim", None) is not None:  # wp.array(dtype=...) used as a type
        return is_generic(t.dtype)
    return False


class _GenericValue:
    """Base of generic vector/matrix/quaternion/transform types: annotations, not values."""

    _weft_generic = None

    def __init__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is a generic type (it has Any in it): "
                        "usable as an annotation of a generic func or kernel, not as a value")


def _generic_class(kind, **parts):
    text = ", ".join(f"{k}={'Any' if v is typing.Any else getattr(v, '__name__', v)}" for k, v in parts.items())
    attrs = {"_weft_generic": (kind, tuple(parts.items())), "__module__": "weft",
             "_wp_generic_type_str_": kind, "_wp_scalar_type_": parts.get("dtype", typing.Any)}
    if kind == "vector":
        attrs["_length_"] = parts["length"]
        attrs["_shape_"] = (parts["length"],)
    if kind == "matrix":
        attrs["_shape_"] = parts["shape"]
    return type(f"{kind}({text})", (_GenericValue,), attrs)


def vector(length, dtype=float):
    """The vector dtype of `length` components of `dtype` (Warp's wp.vec(length, dtype)).
    With length=Any or a generic dtype (Any, wp.Float ...): a generic type, for annotations."""
    if length is typing.Any or is_generic(dtype):
        return _generic_class("vector", length=length, dtype=dtype)
    return _make_value_class(_weft.vector_type(int(length), str(type_of(dtype))))


def matrix(shape, dtype=float):
    """The matrix dtype of shape (rows, cols) (Warp's wp.mat(shape, dtype)); generic with Any in
    shape or dtype."""
    if shape is typing.Any or any(s is typing.Any for s in shape) or is_generic(dtype):
        return _generic_class("matrix", shape=shape, dtype=dtype)
    return _make_value_class(_weft.matrix_type(int(shape[0]), int(shape[1]), str(type_of(dtype))))


def quaternion(dtype=float):
    if is_generic(dtype):
        return _generic_class("quaternion", dtype=dtype)
    return _make_value_class(_weft.quat_type(str(type_of(dtype))))


def transformation(dtype=float):
    if is_generic(dtype):
        return _generic_class("transformation", dtype=dtype)
    return _make_value_class(_weft.transform_type(str(type_of(dtype))))


def _named_value_classes():
    """Every value type name the compiler knows (vec3, vec3d, mat33, quat, spatial_vector ...)."""
    out = {}
    for name in _weft.value_type_names():
        t = _weft.type_from_name(name)
        if t is None or t.kind == "scalar":
            continue
        out[name] = _make_value_class(t)
    return out


value_classes = _named_value_classes()

# ---------------------------------------------------------------------------------------------
# Dtype resolution


def type_of(dtype):
    """The `_weft.Type` of anything usable as a dtype: Python float/int/bool, wp.float32, wp.vec3,
    a @wp.struct, a numpy dtype, or a `_weft.Type` itself."""
    if isinstance(dtype, _weft.Type):
        return dtype
    if dtype is builtins.float:
        return _weft.scalar_type("float32")
    if dtype is builtins.int:
        return _weft.scalar_type("int32")
    if dtype is builtins.bool:
        return _weft.scalar_type("bool")
    t = getattr(dtype, "_weft_type", None)
    if isinstance(t, _weft.Type):
        return t
    if hasattr(dtype, "_struct_type"):
        return dtype._struct_type()
    try:
        npd = np.dtype(dtype)
    except TypeError:
        npd = None
    if npd is not None and npd in _SCALAR_OF_NP:
        return _weft.scalar_type(_SCALAR_OF_NP[npd])
    raise TypeError(f"not a weft dtype: {dtype!r}")


def dtype_of(t):
    """The Python dtype object of a `_weft.Type` (wp.float32, wp.vec3f, a @wp.struct)."""
    d = _DTYPE_OF_TYPE.get(t)
    if d is None and t.kind in ("vector", "matrix", "quat", "transform"):
        d = _make_value_class(t)
    return d if d is not None else t


def scalar_from_numpy(np_dtype):
    """The scalar `_weft.Type` of a numpy dtype, or None."""
    name = _SCALAR_OF_NP.get(np.dtype(np_dtype))
    return _weft.scalar_type(name) if name else None


def numpy_layout(t):
    """(numpy dtype, inner shape) of one element of type `t`: float32 -> (float32, ()),
    vec3 -> (float32, (3,)), mat33 -> (float32, (3, 3)), a struct -> (structured dtype, ())."""
    if t.kind == "scalar":
        return np.dtype(_NP_SCALARS[t.scalar]), ()
    if t.kind == "matrix":
        return np.dtype(_NP_SCALARS[t.scalar]), (t.rows, t.cols)
    if t.kind in ("vector", "quat", "transform"):
        return np.dtype(_NP_SCALARS[t.scalar]), (t.components,)
    if t.kind == "struct":
        names, formats, offsets = [], [], []
        for name, ft, offset in t.fields:
            names.append(name)
            offsets.append(offset)
            if ft.kind == "array":
                formats.append(np.dtype((np.void, ft.size)))
            else:
                base, inner = numpy_layout(ft)
                formats.append(np.dtype((base, inner)) if inner else base)
        return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": t.size}), ()
    raise TypeError(f"type {t} has no numpy layout")


def pack_value(t, value):
    """The bytes of `value` as a value of type `t` (a number, a wp.vec3, a sequence, a struct)."""
    if t.kind == "struct":
        if getattr(value, "_weft_type", None) != t:
            raise TypeError(f"expected a {t} struct instance, got {value!r}")
        return value.to_bytes()
    if isinstance(value, (_Value, _ScalarValue)) and value._weft_type == t:
        return value.to_bytes()
    base, inner = numpy_layout(t)
    data = np.asarray(value, dtype=np.float64 if np.issubdtype(base, np.floating) else None)
    if data.size == 1 and inner:
        data = np.full(inner, data.ravel()[0])
    if data.size != max(1, int(np.prod(inner))):
        raise ValueError(f"value {value!r} does not fit type {t}")
    return np.ascontiguousarray(data, dtype=base).tobytes()


def unpack_value(t, raw):
    """A Python value of type `t` from its bytes: a number, a wp.vec3 instance, a struct instance."""
    if t.kind == "scalar":
        return np.frombuffer(raw, dtype=_NP_SCALARS[t.scalar], count=1)[0].item()
    if t.kind == "struct":
        return dtype_of(t).from_bytes(raw)
    return dtype_of(t).from_bytes(raw)


# The kernel's product of two values, for Python scope: pyscope.mul, which pyscope installs here
# when it is imported (it imports this module; importing it from here would make a circle).
def _python_scope_mul(a, b):
    raise TypeError("weft.pyscope is not imported (import weft)")


# Warp's dtype queries (wp.types.type_size, np_dtype_to_warp_type ...) are python/weft/type_queries.py's;
# it adds them to this module's namespace when weft imports it.
