"""From a Python kernel to the source chunks the C++ compiler needs.

The C++ front end parses kernel-language source without Python, so for each kernel we hand it
the text of every definition the kernel needs, each as a chunk (path, text, line_offset) that
keeps its place in the user's file, so diagnostics point into that file:

    import weft as wp                     synthetic: each name under which weft is imported
    import helpers_mod as helpers         synthetic: other Python modules used as `helpers.f`
    SCALE = weft.constant(2.0)            synthetic: constants (wp.constant, plain numbers)
    wptype = weft.float64                 synthetic: dtypes a definition captures (closures, globals)
    @wp.struct class Particle: ...        the struct's lines, decorators included
    @wp.func def axpy(...): ...           each func (and its @wp.func_grad), transitively
    @wp.kernel def saxpy(...): ...        the kernel itself, last

What a definition needs is found by reading its source with Python's `ast`: every name it loads
and every `module.attr` it uses, looked up in the definition's own globals (and closure). The
C++ front end merges the chunks into one module and resolves `helpers.f` to the global `f` of
helpers' file (never to a local `f` of the caller); the synthetic chunks count as every module's.
"""

import ast
import inspect
import math
import sys
import textwrap
import types as pytypes

import numpy as np

from . import types as _types


class ConstantFloat(float):
    """A float marked by wp.constant (behaves as a float in Python)."""


class ConstantInt(int):
    """An int marked by wp.constant (behaves as an int in Python)."""


class ConstantBool(int):
    """A bool marked by wp.constant (Python's bool cannot be subclassed)."""

    def __repr__(self):
        return "True" if self else "False"

    __str__ = __repr__


def constant(x):
    """Marks `x` as a compile-time constant for kernels and returns it (a number or a wp.vec3...)."""
    if isinstance(x, (bool, np.bool_)):
        return ConstantBool(bool(x))
    if isinstance(x, (int, np.integer)):
        return ConstantInt(int(x))
    if isinstance(x, (float, np.floating)):
        return ConstantFloat(float(x))
    if isinstance(x, _types._Value):
        c = type(x)(x)
        c._weft_constant = True
        return c
    raise TypeError(f"Invalid constant type: {type(x)}")  # Warp's message


def is_weft_module(value):
    return isinstance(value, pytypes.ModuleType) and value.__name__ == "weft"


def _number_text(v, alias):
    if isinstance(v, (bool, np.bool_, ConstantBool)):
        return "True" if v else "False"
    if isinstance(v, (int, np.integer)):
        return repr(int(v))
    v = float(v)
    if math.isnan(v):
        return f"{alias}.nan"
    if math.isinf(v):
        return f"-{alias}.inf" if v < 0 else f"{alias}.inf"
    return repr(v)


def constant_text(name, value, alias):
    """`NAME = alias.constant(<literal>)` for a number or a vector/matrix value."""
    if isinstance(value, _types._Value):
        t = value._weft_type
        parts = ", ".join(_number_text(x, alias) for x in np.ravel(value._data).tolist())
        literal = f"{alias}.{t}({parts})"
    else:
        literal = _number_text(value, alias)
    return f"{name} = {alias}.constant({literal})"


def _is_constant_value(value):
    if isinstance(value, (ConstantFloat, ConstantInt, ConstantBool)):
        return True
    if isinstance(value, _types._Value):
        return getattr(value, "_weft_constant", False)
    # Plain module-level numbers are captured by value, as Warp does.
    return isinstance(value, (bool, int, float)) and not isinstance(value, type)


def _dtype_type(value):
    """The `_weft.Type` of a value dtype (wp.float32, wp.vec3, wp.types.vector(5, float64) ...) or None."""
    if not isinstance(value, type) or not issubclass(value, (_types._ScalarValue, _types._Value)):
        return None
    return value._weft_type


def type_alias_text(name, t, alias):
    """`NAME = alias.<type>` for a captured dtype; vectors and matrices use wp.vec/wp.mat(...)."""
    if t.kind == "vector":
        rhs = f"{alias}.vec(length={t.components}, dtype={alias}.{t.scalar})"
    elif t.kind == "matrix":
        rhs = f"{alias}.mat(shape=({t.rows}, {t.cols}), dtype={alias}.{t.scalar})"
    else:
        rhs = f"{alias}.{t}"  # float32, quatd, transformh
    return f"{name} = {rhs}"


def source_chunk(pyobj):
    """(path, dedented text, line_offset) of a function or class, decorators included."""
    try:
        lines, first = inspect.getsourcelines(pyobj)
    except (OSError, TypeError) as e:
        raise RuntimeError(f"cannot read the source of {pyobj.__qualname__}: {e}; kernels must be defined in a .py file")
    path = inspect.getsourcefile(pyobj) or inspect.getfile(pyobj)
    return path, textwrap.dedent("".join(lines)), first - 1


def scope_of(pyobj):
    """The names a function or class sees: its module's globals, then its closure."""
    if inspect.isclass(pyobj):
        module = sys.modules.get(pyobj.__module__)
        return dict(vars(module)) if module else {}
    scope = dict(pyobj.__globals__)
    code = pyobj.__code__
    for name, cell in zip(code.co_freevars, pyobj.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    return scope


def _annotation_names(text, pyobj):
    """Names used in a function's parameter annotations, bound to what Python evaluated them to.

    An annotation is evaluated in the scope around the def, so a dtype that a factory function
    passes in (`def make(dtype): def fn(a: wp.array(dtype=dtype))`) is in neither the function's
    globals nor its closure: only in `__annotations__`. `NAME` and `wp.array*(dtype=NAME)` are read.
    """
    annotations = getattr(pyobj, "__annotations__", None) or {}
    tree = ast.parse(text)
    fn = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    out = {}
    if fn is None:
        return out
    for arg in fn.args.args + fn.args.kwonlyargs:
        node, value = arg.annotation, annotations.get(arg.arg)
        if node is None or value is None:
            continue
        if isinstance(node, ast.Name):
            out[node.id] = value
        elif isinstance(node, ast.Call) and hasattr(value, "dtype"):
            dtype_node = next((k.value for k in node.keywords if k.arg == "dtype"), node.args[0] if node.args else None)
            if isinstance(dtype_node, ast.Name):
                out[dtype_node.id] = value.dtype
    return out


def _references(text):
    """(loaded names, (base, attr) pairs) of a definition, minus names it binds itself."""
    tree = ast.parse(text)
    loaded, stored, attrs = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else stored).add(node.id)
        elif isinstance(node, ast.arg):
            stored.add(node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            attrs.add((node.value.id, node.attr))
    return loaded - stored, {(b, a) for b, a in attrs if b not in stored}


class SourceCollector:
    """Collects the chunks of one kernel and everything it needs (see the module comment)."""

    def __init__(self):
        self.weft_aliases = []
        self.module_imports = {}  # alias -> module name
        self.constants = {}       # name -> value
        self.type_aliases = {}    # name -> _weft.Type (dtypes captured by closures or globals)
        self.chunks = []          # definitions, callees before callers
        self._seen = set()

    def add(self, definition):
        """Adds a Kernel, Function, FuncGrad or Struct wrapper and, first, what it needs."""
        if id(definition) in self._seen:
            return
        self._seen.add(id(definition))
        for pyobj in getattr(definition, "_python_objects", lambda: [definition._python_object()])():
            self._add_chunk(definition, pyobj)
        for grad in getattr(definition, "grads", ()):
            self.add(grad)

    def _add_chunk(self, definition, pyobj):
        """One definition's chunk (a func's overloads are one chunk each), after what it needs."""
        path, text, line_offset = source_chunk(pyobj)
        scope = scope_of(pyobj)
        if not inspect.isclass(pyobj):
            # what Python evaluated the annotation to wins over a module global of the same name
            # (a test file's `for dtype in ...:` loop at module level)
            scope.update(_annotation_names(text, pyobj))
        names, attrs = _references(text)
        for name in sorted(names):
            if name in scope:
                self._use(name, scope[name])
        for base, attr in sorted(attrs):
            module = scope.get(base)
            if isinstance(module, pytypes.ModuleType) and not is_weft_module(module) and hasattr(module, attr):
                value = getattr(module, attr)
                if self._is_definition(value) or _is_constant_value(value):
                    self.module_imports[base] = module.__name__
                    self._use(attr, value)
        if getattr(definition, "_is_kernel", False) and not text.lstrip().startswith("@"):
            # wp.Kernel(func) without the decorator: the compiler learns it is a kernel from a
            # synthetic decorator line just above the def (lines keep their numbers)
            text = f"@{self.weft_aliases[0] if self.weft_aliases else 'wp'}.kernel\n" + text
            line_offset -= 1
        self.chunks.append((path, text, line_offset))

    @staticmethod
    def _is_definition(value):
        return hasattr(value, "_python_object") and not getattr(value, "_is_kernel", False)

    def _use(self, name, value):
        if is_weft_module(value):
            if name not in self.weft_aliases:
                self.weft_aliases.append(name)
        elif self._is_definition(value):
            self.add(value)
        elif _is_constant_value(value):
            self.constants.setdefault(name, value)
        elif (t := _dtype_type(value)) is not None:
            # Warp's generic kernels capture their dtype: `def fn(a: wp.array(dtype=wptype))`
            known = self.type_aliases.setdefault(name, t)
            if known != t:
                raise TypeError(f"'{name}' names two types in one kernel's definitions ({known} and {t}); "
                                "Weft compiles a kernel and its funcs in one namespace, so give them different names")

    def sources(self):
        """The chunks in compile order: imports, constants, definitions."""
        aliases = self.weft_aliases or ["wp"]
        constant_alias = aliases[0]
        lines = [f"import weft as {a}" for a in aliases]
        lines += [f"import {m} as {a}" for a, m in sorted(self.module_imports.items())]
        out = [("<weft imports>", "\n".join(lines) + "\n", 0)]
        if self.constants or self.type_aliases:
            texts = [constant_text(n, v, constant_alias) for n, v in sorted(self.constants.items())]
            texts += [type_alias_text(n, t, constant_alias) for n, t in sorted(self.type_aliases.items())]
            out.append(("<weft constants>", "\n".join(texts) + "\n", 0))
        return out + self.chunks
