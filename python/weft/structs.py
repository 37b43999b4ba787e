"""@wp.struct: user-defined value types with named, typed fields.

The decorated class's annotations give the fields; its C++ type is made with
`_weft.struct_type(MODULE_KEY, name, fields)`, the same interning call the compiler's semantic
analysis makes when it meets the class's source. Every Python-side compilation uses MODULE_KEY,
so the struct type a kernel parameter names and the one our instances and arrays carry are the
same object, and the runtime's exact-type check passes.

Instances pack themselves into the layout the code generator uses (C rules; offsets come from
`Type.fields`). Array fields hold a wp.array and pack as its 64-byte descriptor; the instance
keeps the array alive.
"""

import numpy as np

from . import _weft
from . import types as _types

# Separates structs of Python-side compilations from those of kernel files compiled elsewhere.
MODULE_KEY = "weft.python"


def field_type(annotation):
    """The `_weft.Type` of a struct field or parameter annotation (dtypes and wp.array(dtype=...))."""
    ndim = getattr(annotation, "_annotation_ndim", None)
    if ndim is not None:
        return _weft.array_type(_types.type_of(annotation.dtype), ndim)
    return _types.type_of(annotation)


class Struct:
    """What @wp.struct returns: call it to make an instance; use it as a dtype."""

    def __init__(self, cls):
        self.cls = cls
        self.key = cls.__name__
        self.__name__ = cls.__name__
        self.__qualname__ = cls.__qualname__
        self.__module__ = cls.__module__
        self.__doc__ = cls.__doc__
        self._type = None

    def _struct_type(self):
        if self._type is None:
            annotations = self.cls.__dict__.get("__annotations__", {})
            fields = [(name, field_type(ann)) for name, ann in annotations.items()]
            self._type = _weft.struct_type(MODULE_KEY, self.cls.__name__, fields)
            _types._register(self._type, self)
        return self._type

    @property
    def _weft_type(self):
        return self._struct_type()

    def _python_object(self):
        """The class whose source the compiler reads (see sources.py)."""
        return self.cls

    @property
    def vars(self):
        """Field name -> annotation, in declaration order."""
        return dict(self.cls.__dict__.get("__annotations__", {}))

    def __call__(self, **values):
        return StructInstance(self, **values)

    def from_bytes(self, raw):
        inst = StructInstance(self)
        for name, ft, offset in self._struct_type().fields:
            if ft.kind != "array":
                inst._values[name] = _types.unpack_value(ft, bytes(raw[offset: offset + ft.size]))
        return inst

    def numpy_dtype(self):
        return _types.numpy_layout(self._struct_type())[0]

    def __repr__(self):
        return f"<weft struct {self.__qualname__}>"


def _default(struct, name, ft):
    if name in struct.cls.__dict__:
        return struct.cls.__dict__[name]
    if ft.kind == "array":
        return None
    if ft.kind == "struct":
        return _types.dtype_of(ft)()
    if ft.kind == "scalar":
        return _types.unpack_value(ft, bytes(ft.size))
    return _types.dtype_of(ft)()


class StructInstance:
    """A value of a @wp.struct type on the host."""

    def __init__(self, struct, **values):
        object.__setattr__(self, "_struct", struct)
        object.__setattr__(self, "_values", {})
        for name, ft, _ in struct._struct_type().fields:
            self._values[name] = _default(struct, name, ft)
        for name, value in values.items():
            setattr(self, name, value)

    @property
    def _weft_type(self):
        return self._struct._struct_type()

    def _field(self, name):
        for fname, ft, offset in self._weft_type.fields:
            if fname == name:
                return ft, offset
        raise AttributeError(f"struct {self._struct.key} has no field '{name}'")

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"struct {self._struct.key} has no field '{name}'")

    def __setattr__(self, name, value):
        ft, _ = self._field(name)
        if ft.kind == "array":
            if value is not None and (getattr(value, "_weft_type_of_array", None) != ft):
                raise TypeError(f"field '{name}' of struct {self._struct.key} expects {ft}, got {value!r}")
        elif ft.kind == "struct":
            if getattr(value, "_weft_type", None) != ft:
                raise TypeError(f"field '{name}' of struct {self._struct.key} expects {ft}, got {value!r}")
        elif ft.kind != "scalar":
            value = _types.dtype_of(ft)(value)
        self._values[name] = value

    def to_bytes(self):
        t = self._weft_type
        buf = bytearray(t.size)
        for name, ft, offset in t.fields:
            v = self._values[name]
            if ft.kind == "array":
                raw = v._arr.descriptor() if v is not None else bytes(ft.size)
            else:
                raw = _types.pack_value(ft, v)
            buf[offset: offset + len(raw)] = raw
        return bytes(buf)

    def held_arrays(self, base=0):
        """[(byte offset, wp.array)] of the arrays in this instance's fields, nested structs included."""
        out = []
        for name, ft, offset in self._weft_type.fields:
            v = self._values[name]
            if ft.kind == "array" and v is not None:
                out.append((base + offset, v))
            elif ft.kind == "struct" and v is not None:
                out.extend(v.held_arrays(base + offset))
        return out

    def numpy_value(self):
        """This instance as a numpy structured scalar (array fields as raw descriptor bytes)."""
        return np.frombuffer(self.to_bytes(), dtype=self._struct.numpy_dtype())[0]

    # No __eq__: as in Warp, instances compare (and hash) by identity, so that they can key dicts
    # (tape.gradients[instance]). Compare fields, or numpy_value(), for equality of contents.

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._values.items())
        return f"{self._struct.key}({fields})"
