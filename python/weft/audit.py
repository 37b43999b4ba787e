"""wp.audit: the static audit of a kernel (bounds, divergence, barriers, shared-memory races,
bank conflicts, coalescing, constants) from Python, the same analyses as `weft audit`.

    for f in wp.audit(reduce, dim=1024, inputs=[a, out]):
        print(f)                      # clang-style text with the witness notes

`inputs` (the launch's arguments) gives the arrays' concrete shapes and the int arguments'
values; `shapes={"a": (1024,)}` and `args={"n": 8}` give them by parameter name. With
wp.config.mode = "debug", every launch is audited once per kernel and launch geometry, and
warnings and errors are printed to stderr before it runs. The resources check (registers and
occupancy from ptxas) is the command line's: `weft audit FILE.py --arch h200`.
"""

import sys

import numpy as np

from . import _weft
from . import arrays as _arrays


class Finding:
    """One finding: check (a stable id such as 'shared-race'), severity, kernel, path, line, col,
    message, notes (the witnesses); str() is the clang-style text."""

    def __init__(self, d):
        self.check = d["check"]
        self.severity = d["severity"]
        self.kernel = d["kernel"]
        self.path = d["path"]
        self.line = d["line"]
        self.col = d["col"]
        self.message = d["message"]
        self.notes = list(d["notes"])
        self.text = d["text"]

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"<Finding {self.severity} [{self.check}] {self.path}:{self.line}:{self.col}: {self.message}>"


def _dims(dim):
    if dim is None:
        return []
    if isinstance(dim, (int, np.integer)):
        return [int(dim)]
    return [int(d) for d in dim]


def audit(kernel, dim=None, inputs=None, outputs=None, shapes=None, args=None, block_dim=None, max_constant_bytes=64):
    """The audit's findings for `kernel` launched over `dim` threads (a list of Finding, sorted by
    place). Unknown shapes and arguments are treated symbolically, as by `weft audit`."""
    if getattr(kernel, "is_generic", False):
        kernel = kernel.for_arguments(list(inputs or []) + list(outputs or []))
    compiled = kernel.compile()
    names = [p[0] for p in compiled.params]
    shape_map = {k: [int(s) for s in v] for k, v in (shapes or {}).items()}
    arg_map = {k: int(v) for k, v in (args or {}).items()}
    values = list(inputs or []) + list(outputs or [])
    for name, value in zip(names, values):
        if isinstance(value, _arrays.array):
            shape_map.setdefault(name, [int(s) for s in value.shape])
        elif isinstance(value, (bool, int, np.integer)):
            arg_map.setdefault(name, int(value))
    found = _weft.audit(compiled, _dims(dim), shape_map, arg_map, int(block_dim or 0), int(max_constant_bytes))
    return [Finding(d) for d in found]


_audited = set()


def audit_on_launch(kernel, dims, values, block_dim):
    """Debug mode: audit a launch geometry once and print its warnings and errors to stderr."""
    key = (id(kernel), tuple(dims), tuple(tuple(v.shape) if isinstance(v, _arrays.array) else None for v in values))
    if key in _audited:
        return
    _audited.add(key)
    for f in audit(kernel, dim=dims, inputs=values, block_dim=block_dim):
        if f.severity in ("warning", "error"):
            print(f.text, file=sys.stderr)
