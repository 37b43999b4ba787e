"""Devices and configuration (python/weft/context.py): a bad device name, wp.config's values,
debug mode's out-of-range report, verify_fp naming the launch that left a NaN, and results that
do not depend on the number of CPU threads."""
import numpy as np
import pytest

import weft as wp


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
