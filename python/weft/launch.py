"""wp.launch: Python arguments -> runtime launch arguments -> a launch on a device.

Each argument becomes a `_weft.LaunchArg`: a wp.array as itself; a Python int/float/bool as a
number the runtime converts to the parameter's scalar type (checking that it fits); a typed value
(wp.vec3(...), wp.float32(...), a @wp.struct instance) as its own type and bytes, which must
match the parameter exactly; a tuple, list or numpy array given for a vector-like parameter as
that parameter's type. The runtime checks everything against the kernel's signature and raises
RuntimeError naming the parameter on a mismatch.
"""

import numpy as np

from . import _weft
from . import arrays as _arrays
from . import context as _context
from . import recording as _recording
from . import types as _types

_VALUE_KINDS = ("vector", "matrix", "quat", "transform")


def _launch_arg(kernel_name, param, value):
    if isinstance(value, _arrays.array):
        return _weft.LaunchArg.of(value._handle())
    if isinstance(value, (bool, np.bool_, int, np.integer)):
        return _weft.LaunchArg.integer(int(value))
    if isinstance(value, (float, np.floating)):
        return _weft.LaunchArg.number(float(value))
    t = getattr(value, "_weft_type", None)
    if isinstance(t, _weft.Type):
        arg = _weft.LaunchArg.value(t, value.to_bytes())
        for offset, a in getattr(value, "held_arrays", lambda: ())():
            arg.hold(offset, a._handle())  # struct array fields: their gradients reach the backward launch
        return arg
    if param is not None:
        name, ptype, _ = param
        if ptype.kind in _VALUE_KINDS and isinstance(value, (list, tuple, np.ndarray)):
            return _weft.LaunchArg.value(ptype, _types.pack_value(ptype, value))
        got = "None" if value is None else type(value).__name__
        raise RuntimeError(f"kernel '{kernel_name}': argument '{name}' expects {ptype}, got {got}")
    raise RuntimeError(f"kernel '{kernel_name}': cannot pass a {type(value).__name__} to a kernel")


_MAX_EXTENT = 2**31 - 1  # launch extents are 32-bit (runtime/module.cpp)


def _launch_dims(kernel_name, dim):
    """dim as a list of 1 to 4 extents; TypeError for what is not an int, ValueError for a bad value."""
    where = f"wp.launch of kernel '{kernel_name}'"
    items = [dim] if isinstance(dim, (int, np.integer)) else dim
    if isinstance(dim, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{where}: dim must be an int or a tuple of 1 to 4 ints, got {type(dim).__name__} {dim!r}")
    items = list(items)
    if not 1 <= len(items) <= 4:
        raise ValueError(f"{where}: dim has {len(items)} entries; expected 1 to 4")
    dims = []
    for d in items:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{where}: dim entries must be ints, got {type(d).__name__} {d!r} in dim={dim!r}")
        if d < 0:
            raise ValueError(f"{where}: dim entries must not be negative, got {int(d)} in dim={dim!r}")
        if d > _MAX_EXTENT:
            raise ValueError(f"{where}: dim entry {int(d)} exceeds the largest launch extent ({_MAX_EXTENT})")
        dims.append(int(d))
    return dims


def launch(kernel, dim, inputs=(), outputs=(), adj_inputs=(), adj_outputs=(), device=None, stream=None,
           adjoint=False, record_tape=True, record_cmd=False, max_blocks=0, block_dim=None):
    """Runs `kernel` over a grid of `dim` threads (an int, or a tuple of up to 4 extents).

    inputs and outputs are the kernel's arguments in order (outputs follow inputs).
    device: default wp.get_device(). block_dim: threads per block (default: the kernel's
    @wp.kernel(block_dim=N), else 256).
    adjoint=True runs the kernel's backward entry instead: gradients flow from the gradient
    arrays of what it wrote into those of what it read (accumulating). adj_inputs/adj_outputs
    give, per argument, the gradient array to use (None: the array's own .grad; for a float
    parameter, a one-element array that receives its adjoint). record_tape=False keeps the launch
    off an active wp.Tape.
    """
    values = list(inputs) + list(outputs)
    if getattr(kernel, "is_generic", False):
        kernel = kernel.for_arguments(values)  # the instance for these argument types (generics.py)
    compiled = kernel.compile()
    params = compiled.params
    args = [_launch_arg(kernel.key, params[i] if i < len(params) else None, v) for i, v in enumerate(values)]
    dims = _launch_dims(kernel.key, dim)
    dev = _context.get_device(device)
    adj = []
    if adjoint:
        given = list(adj_inputs) + list(adj_outputs)
        if given and len(given) != len(values):
            raise RuntimeError(f"backward launch of kernel '{kernel.key}': adj_inputs and adj_outputs have {len(given)} "
                               f"entries; expected {len(values)} (one per argument, None for the array's own grad)")
        adj = [g._handle() if isinstance(g, _arrays.array) else None for g in given]
    elif record_tape:
        _recording.note_arrays(v for v in values if isinstance(v, _arrays.array))
        _recording.note_arrays(a for v in values if hasattr(v, "held_arrays") for _, a in v.held_arrays())
        _recording.note_structs([v for v in values if hasattr(v, "held_arrays")])
    if not adjoint and _context.config.mode == "debug":
        import importlib  # (weft.audit the name is the function; the module is in sys.modules)
        importlib.import_module("weft.audit").audit_on_launch(kernel, dims, values, block_dim)
    _weft.launch(compiled, dims, args, dev.alias, int(block_dim or 0), -1, bool(adjoint), adj, bool(record_tape))
