"""wp.autograd: Jacobians of a kernel by its adjoint and by finite differences, and gradcheck.

    ok = wp.autograd.gradcheck(kernel, dim=n, inputs=[x, s], outputs=[y], eps=1e-4)

A kernel is seen as a function from its float input arrays to its float output arrays (other
arguments are held fixed). The work is done in C++ (weft/tape/autograd.h): one backward launch
per output scalar for `jacobian`, two forward launches per input scalar for `jacobian_fd` (the
outputs are restored before each, so kernels that accumulate work too). Finite differences run
in the arrays' precision: float64 arrays give tight checks, float32 needs eps near 1e-3.
"""

from . import _weft
from . import context as _context
from .launch import _launch_arg


def _args(kernel, inputs, outputs):
    compiled = kernel.compile()
    params = compiled.params
    values = list(inputs) + list(outputs or [])
    args = [_launch_arg(kernel.key, params[i] if i < len(params) else None, v) for i, v in enumerate(values)]
    return compiled, args[: len(inputs)], args[len(inputs):]


def _dims(dim):
    return [int(dim)] if isinstance(dim, int) else [int(d) for d in dim]


def _blocks(blocks, n_inputs):
    return {(i, o - n_inputs): m for i, o, _in, _out, m in blocks}


def jacobian(kernel, dim, inputs, outputs, device=None, max_outputs_per_var=-1, block_dim=None, **_ignored):
    """{(input index, output index): matrix} with one row per output scalar and one column per
    input scalar, from backward launches (indices count within `inputs` and within `outputs`)."""
    compiled, ins, outs = _args(kernel, inputs, outputs)
    dev = _context.get_device(device).alias
    return _blocks(_weft.jacobian(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0), int(max_outputs_per_var)), len(inputs))


def jacobian_fd(kernel, dim, inputs, outputs, device=None, max_outputs_per_var=-1, eps=1e-4, block_dim=None, **_ignored):
    """The same Jacobians by central finite differences with step `eps`."""
    compiled, ins, outs = _args(kernel, inputs, outputs)
    dev = _context.get_device(device).alias
    return _blocks(_weft.jacobian_fd(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0), int(max_outputs_per_var),
                                     float(eps)), len(inputs))


def gradcheck(function, dim, inputs, outputs, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True, device=None,
              max_outputs_per_var=-1, block_dim=None, show_summary=True, **_ignored):
    """Compares the kernel's adjoint Jacobians with central finite differences. An entry passes
    when |adjoint - fd| <= atol + rtol * |fd|. Prints a table of (input, output) pairs and the
    entries that disagree (show_summary); raises ValueError with that text when the check fails
    and raise_exception is set; returns whether it passed."""
    compiled, ins, outs = _args(function, inputs, outputs)
    dev = _context.get_device(device).alias
    passed, _max_abs, _max_rel, report = _weft.gradcheck(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0),
                                                         int(max_outputs_per_var), float(eps), float(atol), float(rtol))
    if show_summary:
        print(report, end="")
    if not passed and raise_exception:
        raise ValueError(report)
    return passed
