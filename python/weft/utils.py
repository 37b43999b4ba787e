"""wp.utils: Warp's host-side helpers that Warp scripts use; so far wp.ScopedTimer.

    with wp.ScopedTimer("step", dict=times):
        ...
    # prints "step took 1.23 ms" (print=True) and appends 1.23 to times["step"]

The elapsed time is wall-clock time of the block in milliseconds (`timer.elapsed`);
synchronize=True waits for the device's outstanding work at both ends, as Warp does. Warp's
profiling keywords (detailed, use_nvtx, cuda_filter, report_func) raise TypeError unless left at
their defaults: Weft has no cProfile report, NVTX ranges or CUDA activity timing here.
"""

import builtins as _builtins
import time as _time


class ScopedTimer:
    """Times a `with` block (Warp's wp.ScopedTimer)."""

    indent = -1
    enabled = True

    def __init__(self, name, active=True, print=True, detailed=False, dict=None, use_nvtx=False,  # noqa: A002
                 color="rapids", synchronize=False, cuda_filter=0, report_func=None, skip_tape=False):
        for key, value, default in (("detailed", detailed, False), ("use_nvtx", use_nvtx, False),
                                    ("cuda_filter", cuda_filter, 0), ("report_func", report_func, None)):
            if value != default:
                raise TypeError(f"ScopedTimer(): {key}={value!r} is not supported by Weft")
        self.name = name
        self.active = _builtins.bool(active) and self.enabled
        self.print = print
        self.dict = dict
        self.color = color
        self.synchronize = synchronize
        self.skip_tape = skip_tape
        self.elapsed = 0.0
        self.extra_msg = ""
        self.timing_results = []
        if self.dict is not None:
            self.dict.setdefault(name, [])

    def __enter__(self):
        if self.active:
            if self.synchronize:
                from .context import synchronize
                synchronize()
            if self.print:
                ScopedTimer.indent += 1
            self._start = _time.perf_counter_ns()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if not self.active:
            return False
        if self.synchronize:
            from .context import synchronize
            synchronize()
        self.elapsed = (_time.perf_counter_ns() - self._start) / 1.0e6
        if self.dict is not None:
            self.dict[self.name].append(self.elapsed)
        if self.print:
            pad = "    " * ScopedTimer.indent
            extra = f" {self.extra_msg}" if self.extra_msg else ""
            _builtins.print(f"{pad}{self.name} took {self.elapsed:.2f} ms{extra}")
            ScopedTimer.indent -= 1
        return False
