"""Generic kernels (Warp's `typing.Any` parameters) on the Python side: instances and wp.overload.

A kernel is generic when some parameter's annotation leaves its type open (`Any`,
`wp.array(dtype=Any)`, `wp.array()`, `wp.vec(length=Any, dtype=float)`, `wp.Float` ...). It
compiles once per distinct list of concrete parameter types, each an instance cached on the
kernel: the C++ front end gets the same source and the types (`_weft.Module.compile(...,
kernel_arg_types=...)`) and checks them against the annotations. An instance comes from

    wp.launch(k, dim, inputs=[...])             the launch's argument types (infer_arg_types)
    wp.overload(k, [wp.array(dtype=float), int])  types given by position ...
    wp.overload(k, {"value": wp.float64})       ... or by name (the other parameters concrete)
    @wp.overload def k(a: wp.array(dtype=float), value: int): ...

Generic funcs need nothing here: the compiler instantiates them per call (compiler/sema/
sema_generics.cpp). Several @wp.func definitions of one name at module level become overloads
of one Function (kernels.func).
"""

import inspect
import typing

import numpy as np

from . import _weft
from . import structs as _structs
from . import types as _types


def param_annotations(func):
    """[(name, annotation)] of a kernel's parameters, in order (None where unannotated)."""
    annotations = getattr(func, "__annotations__", {}) or {}
    return [(name, annotations.get(name)) for name in inspect.signature(func).parameters]


def is_generic_kernel(func):
    return any(_types.is_generic(a) for _, a in param_annotations(func))


def _describe(annotation):
    if annotation is typing.Any:
        return "Any"
    return getattr(annotation, "__name__", None) or repr(annotation)


def concrete_type(kernel_key, name, annotation):
    """The `_weft.Type` of an annotation or dtype given for parameter `name`; TypeError when it
    is itself generic or not a type."""
    if _types.is_generic(annotation):
        raise TypeError(f"kernel '{kernel_key}': the type given for parameter '{name}' ({_describe(annotation)}) "
                        "is generic; an overload needs concrete types")
    try:
        return _structs.field_type(annotation)
    except TypeError as e:
        raise TypeError(f"kernel '{kernel_key}': parameter '{name}': {e}") from None


def value_type(value):
    """The `_weft.Type` a launch argument has, or None when it cannot be told from the value
    (Warp's rules: Python int -> int32, float -> float32, bool -> bool; numpy scalars keep
    their type; arrays, wp values and struct instances their own)."""
    if hasattr(value, "_handle") and hasattr(value, "ndim") and getattr(value, "_arr", None) is not None:
        return _weft.array_type(value._handle().dtype, value.ndim)
    if isinstance(value, (bool, np.bool_)):
        return _weft.scalar_type("bool")
    if isinstance(value, (np.integer, np.floating)):
        return _types.scalar_from_numpy(value.dtype)
    if isinstance(value, int):
        return _weft.scalar_type("int32")
    if isinstance(value, float):
        return _weft.scalar_type("float32")
    t = getattr(value, "_weft_type", None)
    return t if isinstance(t, _weft.Type) else None


def infer_arg_types(kernel_key, func, values):
    """The instance signature of a launch: a tuple with, per parameter, the argument's type where
    the annotation is generic and None where it is concrete (the compiler resolves those).
    TypeError naming the parameter when an argument's type cannot be told."""
    params = param_annotations(func)
    if len(values) != len(params):
        raise RuntimeError(f"kernel '{kernel_key}' takes {len(params)} arguments, {len(values)} given")
    out = []
    for (name, annotation), value in zip(params, values):
        if not _types.is_generic(annotation):
            out.append(None)
            continue
        t = value_type(value)
        if t is None:
            got = "None" if value is None else type(value).__name__
            raise TypeError(f"kernel '{kernel_key}': cannot infer the type of argument '{name}' (annotated "
                            f"{_describe(annotation)}) from a {got}; pass a typed value (wp.vec3(...), "
                            "wp.float64(...), a wp.array) or launch an explicit wp.overload of the kernel")
        out.append(t)
    return tuple(out)


def overload_arg_types(kernel, arg_types):
    """The instance signature that wp.overload(kernel, arg_types) names (a list by position, or a
    dict by parameter name whose other parameters are concrete)."""
    params = param_annotations(kernel.func)
    if isinstance(arg_types, dict):
        names = [n for n, _ in params]
        for n in arg_types:
            if n not in names:
                raise RuntimeError(f"Invalid argument name '{n}' in overload of kernel {kernel.key}")  # Warp's message
        given = [arg_types.get(n, a) for n, a in params]
    elif isinstance(arg_types, (list, tuple)):
        if len(arg_types) != len(params):
            raise TypeError(f"wp.overload of kernel '{kernel.key}': {len(arg_types)} types given for "
                            f"{len(params)} parameters")
        given = list(arg_types)
    else:
        raise TypeError("Kernel overload types must be given in a list or dict")  # Warp's message
    out = []
    for (name, annotation), t in zip(params, given):
        out.append(concrete_type(kernel.key, name, t) if _types.is_generic(annotation) else None)
    return tuple(out)


def overload(kernel, arg_types=None):
    """wp.overload(kernel, [types...] or {name: type}) -> the kernel's instance for those types
    (launchable like any kernel). As a decorator on a def of a generic kernel's name with concrete
    annotations and an empty body (`...`), declares that instance and returns the generic kernel."""
    if getattr(kernel, "_is_kernel", False):
        if not kernel.is_generic:
            raise RuntimeError(f"Only generic kernels can be overloaded.  Kernel {kernel.key} is not generic")
        return kernel.instance(overload_arg_types(kernel, [] if arg_types is None else arg_types))
    if inspect.isfunction(kernel):
        fn = kernel
        generic = fn.__globals__.get(fn.__name__)
        if not getattr(generic, "_is_kernel", False):
            raise RuntimeError(f"Failed to find a kernel named '{fn.__name__}' in module {fn.__module__}")
        if not generic.is_generic:
            raise RuntimeError(f"Only generic kernels can be overloaded.  Kernel {generic.key} is not generic")
        annotations = dict(param_annotations(fn))
        generic.instance(overload_arg_types(generic, annotations))
        return generic
    raise TypeError(f"wp.overload expects a generic kernel or a def, got {kernel!r}")
