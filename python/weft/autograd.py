"""wp.autograd: Jacobians of a kernel by its adjoint and by finite differences, and gradcheck.

    ok = wp.autograd.gradcheck(kernel, dim=n, inputs=[x, s], outputs=[y], eps=1e-4)
    ok = wp.autograd.gradcheck(simulate, inputs=[k, v0])     # a Python function returning a loss

A Python function (Warp's gradcheck takes one too) is called as function(*inputs) and returns its
loss, a one-element float array: its gradients with respect to the inputs come from a wp.Tape,
and are compared with central differences of the loss at two step sizes, eps max(1, |x|) and half
that, on at most max_entries entries per input (weft/tape/gradient_check.h: the mechanism of
`weft gradcheck` and wp.testing).

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
    values = list(inputs) + list(outputs or [])
    if getattr(kernel, "is_generic", False):
        kernel = kernel.for_arguments(values)
    compiled = kernel.compile()
    params = compiled.params
    args = [_launch_arg(kernel.key, params[i] if i < len(params) else None, v) for i, v in enumerate(values)]
    return compiled, args[: len(inputs)], args[len(inputs):]


def _dims(dim):
    return [int(dim)] if isinstance(dim, int) else [int(d) for d in dim]


def _blocks(blocks, n_inputs):
    return {(i, o - n_inputs): m for i, o, _in, _out, m in blocks}


def _refuse(where, **given):
    """Warp keywords Weft accepts only at their defaults: given as name=(value, default)."""
    for name, (value, default) in given.items():
        if value is not default and value != default:
            raise TypeError(f"{where}(): {name}={value!r} is not supported by Weft")


def jacobian(kernel, dim, inputs, outputs, input_output_mask=None, device=None, max_blocks=0, block_dim=None,
             max_outputs_per_var=-1, plot_jacobians=False, metadata=None):
    """{(input index, output index): matrix} with one row per output scalar and one column per
    input scalar, from backward launches (indices count within `inputs` and within `outputs`).
    Warp's input_output_mask, max_blocks, plot_jacobians and metadata raise TypeError unless left
    at their defaults."""
    _refuse("jacobian", input_output_mask=(input_output_mask, None), max_blocks=(max_blocks, 0),
            plot_jacobians=(plot_jacobians, False), metadata=(metadata, None))
    compiled, ins, outs = _args(kernel, inputs, outputs)
    dev = _context.get_device(device).alias
    return _blocks(_weft.jacobian(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0), int(max_outputs_per_var)), len(inputs))


def jacobian_fd(kernel, dim, inputs, outputs, input_output_mask=None, device=None, max_blocks=0, block_dim=None,
                max_inputs_per_var=-1, eps=1e-4, plot_jacobians=False, metadata=None, max_outputs_per_var=-1):
    """The same Jacobians by central finite differences with step `eps` (Warp's other keywords
    as for jacobian; max_inputs_per_var too)."""
    _refuse("jacobian_fd", input_output_mask=(input_output_mask, None), max_blocks=(max_blocks, 0),
            max_inputs_per_var=(max_inputs_per_var, -1), plot_jacobians=(plot_jacobians, False),
            metadata=(metadata, None))
    compiled, ins, outs = _args(kernel, inputs, outputs)
    dev = _context.get_device(device).alias
    return _blocks(_weft.jacobian_fd(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0), int(max_outputs_per_var),
                                     float(eps)), len(inputs))


class FunctionCheck:
    """What check_function found: passed, loss, the table (one per input), and per checked entry
    (input name, label, adjoint, fd, fd at eps/2, passed, smooth)."""

    def __init__(self, passed, loss, table, entries, gradients):
        self.passed = passed
        self.loss = loss
        self.table = table
        self.entries = entries
        self.gradients = gradients  # {name: float64 numpy array of the adjoint, flattened}


def check_function(function, inputs, names=None, eps=1e-3, atol=0.0, rtol=1e-2, max_entries=8):
    """Runs function(*inputs) under a wp.Tape, backward from the loss it returns, and compares the
    gradients of the inputs (float32/float64 arrays with requires_grad=True) with central finite
    differences of function(*inputs) run again without the tape. Returns a FunctionCheck."""
    import numpy as np
    from .arrays import array as _array
    from .tape import Tape

    inputs = list(inputs)
    names = list(names) if names is not None else [f"inputs[{i}]" for i in range(len(inputs))]
    for name, a in zip(names, inputs):
        if not isinstance(a, _array):
            raise TypeError(f"gradient check: {name} must be a wp.array, got {type(a).__name__}")
        if not a.requires_grad:
            raise ValueError(f"gradient check: {name} has requires_grad=False, so the tape gives it no gradient")

    def loss_of(result):
        if not isinstance(result, _array) or result.size != 1:
            raise TypeError("gradient check: the function must return its loss as a one-element wp.array, got "
                            + (f"an array of {result.size} elements" if isinstance(result, _array) else type(result).__name__))
        return float(result.numpy().reshape(-1)[0]), result

    tape = Tape()
    with tape:
        value, loss = loss_of(function(*inputs))
    tape.backward(loss)
    gradients = {name: np.array(a.grad.numpy(), dtype=np.float64).reshape(-1) for name, a in zip(names, inputs)}
    tape.zero()
    precision = 2.2e-16 if loss.numpy().dtype == np.float64 else 1.1920929e-07
    params = [(name, a._handle(), gradients[name].tolist()) for name, a in zip(names, inputs)]
    passed, table, entries = _weft.check_gradients(lambda: loss_of(function(*inputs))[0], value, params, float(eps),
                                                   float(rtol), float(atol), int(max_entries), precision)
    return FunctionCheck(passed, value, table, entries, gradients)


def gradcheck(function, dim=None, inputs=None, outputs=None, *, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True,
              input_output_mask=None, device=None, max_blocks=0, block_dim=None, max_inputs_per_var=-1,
              max_outputs_per_var=-1, plot_relative_error=False, plot_absolute_error=False, show_summary=True,
              max_entries=8):
    """Compares the kernel's adjoint Jacobians with central finite differences. An entry passes
    when |adjoint - fd| <= atol + rtol * |fd|. Prints a table of (input, output) pairs and the
    entries that disagree (show_summary); raises ValueError with that text when the check fails
    and raise_exception is set; returns whether it passed.

    `function` may also be a Python function: function(*inputs) returns a one-element loss array
    (dim and outputs are not used); see check_function. eps is then relative: eps max(1, |x|)."""
    from .kernels import Kernel

    _refuse("gradcheck", input_output_mask=(input_output_mask, None), max_blocks=(max_blocks, 0),
            max_inputs_per_var=(max_inputs_per_var, -1), plot_relative_error=(plot_relative_error, False),
            plot_absolute_error=(plot_absolute_error, False))
    if not isinstance(function, Kernel):
        if not callable(function):
            raise TypeError(f"gradcheck: expected a kernel or a Python function, got {type(function).__name__}")
        r = check_function(function, inputs or [], eps=eps, atol=atol, rtol=rtol, max_entries=max_entries)
        if show_summary:
            print(r.table, end="")
        if not r.passed and raise_exception:
            raise ValueError(r.table)
        return r.passed
    if dim is None or inputs is None:
        raise TypeError("gradcheck of a kernel needs dim, inputs and outputs")
    compiled, ins, outs = _args(function, inputs, outputs)
    dev = _context.get_device(device).alias
    passed, _max_abs, _max_rel, report = _weft.gradcheck(compiled, _dims(dim), ins, outs, dev, int(block_dim or 0),
                                                         int(max_outputs_per_var), float(eps), float(atol), float(rtol))
    if show_summary:
        print(report, end="")
    if not passed and raise_exception:
        raise ValueError(report)
    return passed
