"""Errors seen from Python: compile errors (wp.CompileError carrying the compiler's clang-style
text: file:line:col into this file, the source line and a caret), argument mismatches named by
parameter, and debug mode's out-of-range report."""
import inspect
import re

import numpy as np
import pytest

import weft as wp


@wp.kernel
def misspelled(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = valeus[i] * 2.0  # noqa: F821 (the error under test)


def _line_of(kernel, needle):
    lines, first = inspect.getsourcelines(kernel.func)
    for k, text in enumerate(lines):
        if needle in text:
            return first + k, text
    raise AssertionError(needle)


def test_compile_error_points_into_this_file(device):
    with pytest.raises(wp.CompileError) as info:
        wp.launch(misspelled, dim=1, inputs=[wp.zeros(1, dtype=float, device=device)], device=device)
    msg = str(info.value)
    line, text = _line_of(misspelled, "valeus[i]")
    col = text.index("valeus") + 1
    assert f"{__file__}:{line}:{col}: error:" in msg
    assert "valeus" in msg and "did you mean 'values'?" in msg
    # The source line, then a caret under the name.
    lines = msg.splitlines()
    k = next(i for i, s in enumerate(lines) if s.strip() == text.strip())
    assert lines[k + 1].index("^") == lines[k].index("valeus")
    assert isinstance(info.value, Exception)


@wp.func
def bad_helper(x: float) -> float:
    return x + undefined_thing  # noqa: F821


@wp.kernel
def calls_bad_helper(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = bad_helper(values[i])


def test_compile_error_in_a_func_names_the_func_line():
    with pytest.raises(wp.CompileError) as info:
        calls_bad_helper.compile()
    lines, first = inspect.getsourcelines(bad_helper.func)
    line = first + next(k for k, s in enumerate(lines) if "undefined_thing" in s)
    assert re.search(rf"{re.escape(__file__)}:{line}:\d+: error: .*undefined_thing", str(info.value))


@wp.kernel
def int_kernel(values: wp.array(dtype=int), k: int):
    i = wp.tid()
    values[i] = k


def test_argument_mismatch_names_the_parameter(device):
    floats = wp.zeros(4, dtype=float, device=device)
    with pytest.raises(RuntimeError, match=r"kernel 'int_kernel': argument 'values' expects array\(int32\), got "
                                           r"array\(float32"):
        wp.launch(int_kernel, dim=4, inputs=[floats, 1], device=device)
    ints = wp.zeros(4, dtype=int, device=device)
    with pytest.raises(RuntimeError, match=r"argument 'k' expects int32, got float 1.5"):
        wp.launch(int_kernel, dim=4, inputs=[ints, 1.5], device=device)
    with pytest.raises(RuntimeError, match=r"takes 2 argument\(s\) \(values, k\), 1 given"):
        wp.launch(int_kernel, dim=4, inputs=[ints], device=device)
    with pytest.raises(RuntimeError, match=r"argument 'values' expects array\(int32\), got None"):
        wp.launch(int_kernel, dim=4, inputs=[None, 1], device=device)
    with pytest.raises(RuntimeError, match=r"argument 'k' expects int32, got vec3f"):
        wp.launch(int_kernel, dim=4, inputs=[ints, wp.vec3(1.0, 2.0, 3.0)], device=device)


@wp.kernel
def read_past_end(values: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = values[i + 3]


def test_debug_mode_reports_out_of_range_access(device):
    values = wp.array(np.arange(5, dtype=np.float32), device=device)
    out = wp.zeros(5, dtype=float, device=device)
    wp.launch(read_past_end, dim=2, inputs=[values, out], device=device)  # in range: fine
    np.testing.assert_array_equal(out.numpy()[:2], [3.0, 4.0])
    wp.config.mode = "debug"
    assert wp.config.mode == "debug"
    with pytest.raises(RuntimeError) as info:
        wp.launch(read_past_end, dim=5, inputs=[values, out], device=device)
    msg = str(info.value)
    assert "read_past_end" in msg and "out of range" in msg and "shape (5,)" in msg, msg


def test_bad_device_name():
    with pytest.raises(RuntimeError, match="invalid device 'gpu'"):
        wp.zeros(3, device="gpu")


def test_config_values():
    with pytest.raises(ValueError):
        wp.config.mode = "fast"
    wp.config.verify_fp = True
    assert wp.config.verify_fp
    wp.config.verify_fp = False


@wp.kernel
def make_nan(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = wp.sqrt(values[i] - 10.0)


def test_verify_fp_names_the_launch(device):
    values = wp.zeros(4, dtype=float, device=device)
    wp.config.verify_fp = True
    try:
        with pytest.raises(RuntimeError, match=r"kernel 'make_nan' left a non-finite value .* argument 'values'"):
            wp.launch(make_nan, dim=4, inputs=[values], device=device)
    finally:
        wp.config.verify_fp = False


def test_num_threads_does_not_change_results(device):
    saved = wp.config.num_threads
    try:
        results = []
        for threads in (1, 3, 0):
            wp.config.num_threads = threads
            values = wp.array(np.arange(1000, dtype=np.float32) + 20.0, device=device)
            wp.launch(make_nan, dim=1000, inputs=[values], device=device)
            results.append(values.numpy().copy())
        np.testing.assert_array_equal(results[0], results[1])
        np.testing.assert_array_equal(results[0], results[2])
    finally:
        wp.config.num_threads = saved
