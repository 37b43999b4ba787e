"""@wp.kernel, @wp.func, @wp.func_grad and @wp.struct: the decorators, and kernel compilation.

The decorators only record the Python function or class; nothing is parsed at definition time.
A kernel compiles at its first launch: `sources.SourceCollector` gathers the chunks it needs,
`_weft.Module.compile` runs the C++ front end on them (CompileError, with the clang-style text
pointing into the user's file, is raised there), and the runtime compiles device code on first
use of each device, through the disk cache. Each kernel owns one runtime Module, built once.
"""

import functools

import numpy as np

from . import _weft
from . import generics as _generics
from . import sources as _sources
from . import structs as _structs
from . import types as _types

# One key for every Python-side compilation: see structs.py.
MODULE_KEY = _structs.MODULE_KEY


class Function:
    """A @wp.func: callable from kernels (and from Python, where it runs as plain Python, the
    latest definition). Module-level redefinitions of the name with other parameter annotations
    are overloads (`overloads`, in definition order); the compiler picks one per call."""

    def __init__(self, func):
        self.func = func
        self.key = func.__name__
        self.grads = []
        self.overloads = [func]
        functools.update_wrapper(self, func)

    def _python_object(self):
        return self.func

    def _python_objects(self):
        """Every definition the compiler needs (one chunk each)."""
        return list(self.overloads)

    def _add_overload(self, func):
        """Another definition of the name: it replaces one with the same annotations (as Warp's),
        else joins the overloads."""
        sig = _signature(func)
        self.overloads = [f for f in self.overloads if _signature(f) != sig] + [func]
        self.func = func
        functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        return self._python_overload(args)(*args, **kwargs)

    def _python_overload(self, args):
        """The definition a Python call runs: as in Warp, the first concrete overload whose
        annotations the positional arguments match, else the first generic one; else the latest."""
        if len(self.overloads) == 1:
            return self.func
        for generic in (False, True):
            for f in self.overloads:
                annotations = [getattr(f, "__annotations__", {}).get(n) for n in f.__code__.co_varnames[: len(args)]]
                if any(_types.is_generic(a) for a in annotations) != generic or len(args) > f.__code__.co_argcount:
                    continue
                if all(_python_value_matches(v, a) for v, a in zip(args, annotations)):
                    return f
        return self.func

    def __repr__(self):
        return f"<weft func {self.func.__qualname__}>"


def _python_value_matches(value, annotation):
    """Whether a Python value fits a parameter annotation (for choosing a Python call's overload)."""
    if annotation is None or _types.is_generic(annotation):
        return True
    if annotation is int:
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if annotation is float:
        return isinstance(value, (float, np.floating))
    if annotation is bool:
        return isinstance(value, (bool, np.bool_))
    return isinstance(annotation, type) and isinstance(value, annotation)


class FuncGrad:
    """A @wp.func_grad(f): the custom adjoint of func f, compiled together with f."""

    def __init__(self, func, target):
        self.func = func
        self.target = target
        self.key = func.__name__

    def _python_object(self):
        return self.func


class Kernel:
    """A @wp.kernel. `compile()` runs the front end (done by the first launch if not before)."""

    _is_kernel = True

    def __init__(self, func, key=None, module=None, options=None, code_transformers=None, block_dim=None,
                 enable_backward=None):
        """Warp's wp.Kernel(func, key=None, module=None, options=None, code_transformers=None):
        `key` names the kernel (default func.__name__); `module` (Warp's grouping of kernels into
        modules) does not change what runs; options other than block_dim/enable_backward and
        code_transformers raise TypeError."""
        if code_transformers:
            raise TypeError("wp.Kernel(): code_transformers are not supported by Weft")
        for name, value in (options or {}).items():
            if name == "block_dim":
                block_dim = value
            elif name == "enable_backward":
                enable_backward = value
            else:
                raise TypeError(f"wp.Kernel(): option '{name}' is not supported by Weft")
        self.func = func
        self.key = key if key is not None else func.__name__
        self._name = func.__name__  # the def's name: what the compiled module calls it
        self.block_dim = block_dim
        self.enable_backward = enable_backward
        self._module = None
        self._kernel = None
        # Generic kernels (generics.py): instances per signature; an instance knows its types.
        self.is_generic = _generics.is_generic_kernel(func)
        self._instances = {}
        self._arg_types = None
        functools.update_wrapper(self, func)

    def instance(self, arg_types):
        """The instance of this generic kernel for a signature (generics.infer_arg_types), cached."""
        inst = self._instances.get(arg_types)
        if inst is None:
            inst = Kernel(self.func, key=self.key, block_dim=self.block_dim, enable_backward=self.enable_backward)
            inst.is_generic = False
            inst._arg_types = arg_types
            self._instances[arg_types] = inst
        return inst

    def for_arguments(self, values):
        """The kernel to launch with `values`: itself, or its instance for their types."""
        if not self.is_generic:
            return self
        return self.instance(_generics.infer_arg_types(self.key, self.func, values))

    def _python_object(self):
        return self.func

    def sources(self):
        """The (path, text, line_offset) chunks handed to the compiler for this kernel."""
        collector = _sources.SourceCollector()
        for t in self._arg_types or ():
            # an instance's struct types: its source need not name them (`s: Any`)
            elem = t.elem if t is not None and t.kind == "array" else t
            if elem is not None and elem.kind == "struct":
                struct = _types.dtype_of(elem)
                if hasattr(struct, "_python_object"):
                    collector.add(struct)
        collector.add(self)
        return collector.sources()

    def compile(self):
        """The compiled `_weft.Kernel`; raises wp.CompileError on a bad kernel or one of its funcs."""
        if self.is_generic:
            raise RuntimeError(f"kernel '{self.key}' is generic: launch it with arguments, or compile an instance "
                               "made by wp.overload(kernel, [types...])")
        if self._kernel is None:
            instance = {self._name: list(self._arg_types)} if self._arg_types is not None else {}
            module = _weft.Module.compile(self.sources(), MODULE_KEY, instance)
            self._kernel = module.kernel(self._name)
            self._module = module
        return self._kernel

    @property
    def module(self):
        """Warp's kernel.module: here only load(device), which compiles the kernel."""
        kernel = self

        class _Module:
            def load(self, device=None):
                # a generic kernel: the instances made so far (wp.overload, launches)
                for k in list(kernel._instances.values()) if kernel.is_generic else [kernel]:
                    k.compile()
                return True

        return _Module()

    @property
    def params(self):
        """[(name, _weft.Type, byte offset)] of the compiled kernel."""
        return self.compile().params

    def generated_cpp(self):
        self.compile()
        return self._module.generated_cpp()

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"kernel '{self.key}' cannot be called directly; use wp.launch({self.key}, dim, inputs=[...])")

    def __repr__(self):
        return f"<weft kernel {self.func.__qualname__}>"


def kernel(f=None, *, enable_backward=None, module=None, block_dim=None, launch_bounds=None):
    """Decorator: @wp.kernel or @wp.kernel(block_dim=64, enable_backward=False).

    The decorator's arguments are read by the compiler from the source; they are kept here too.
    """
    def wrap(func):
        # module= (Warp's grouping) and launch_bounds (a CUDA occupancy hint) do not change results
        return Kernel(func, module=module, block_dim=block_dim, enable_backward=enable_backward)

    return wrap(f) if f is not None else wrap


def _signature(func):
    """(name, annotation) per parameter: what tells two definitions of one func apart."""
    annotations = getattr(func, "__annotations__", {}) or {}
    return tuple((n, repr(annotations.get(n))) for n in func.__code__.co_varnames[: func.__code__.co_argcount])


# Module-level @wp.func definitions by (module, qualified name), so that a redefinition becomes an
# overload. Funcs defined inside functions (factories, closures) are always new Functions: a
# factory called twice makes two funcs, not overloads of one.
_module_funcs = {}


def func(f):
    """Decorator: a function callable from kernels. Defining a module-level func again under the
    same name adds an overload (or replaces the definition with the same annotations)."""
    if "<locals>" in f.__qualname__:
        return Function(f)
    key = (f.__module__, f.__qualname__)
    existing = _module_funcs.get(key)
    if existing is not None and f.__globals__.get(f.__name__) is existing:
        existing._add_overload(f)
        return existing
    fn = Function(f)
    _module_funcs[key] = fn
    return fn


def overload(kernel, arg_types=None):
    """wp.overload: an instance of a generic kernel for concrete types (python/weft/generics.py)."""
    return _generics.overload(kernel, arg_types)


def func_grad(target):
    """Decorator: @wp.func_grad(f) defines the custom adjoint of the wp.func f."""
    if not isinstance(target, Function):
        raise TypeError(f"@wp.func_grad expects a @wp.func, got {target!r}")

    def wrap(grad):
        g = FuncGrad(grad, target)
        target.grads.append(g)
        return g

    return wrap


def struct(cls):
    """Decorator: a struct type with the class's annotated fields."""
    return _structs.Struct(cls)
