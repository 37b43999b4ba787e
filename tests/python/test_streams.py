"""wp.Stream, wp.Event, wp.ScopedStream, wp.ScopedCapture / wp.capture_launch, wp.synchronize_*,
pinned host arrays and wp.copy between host and cuda arrays (python/weft/streams.py). The CUDA
tests skip, saying why, without a GPU; the error tests run everywhere. References are host
counts (every add_one adds exactly 1.0, so results are exact integers)."""
import numpy as np
import pytest

import weft as wp

cuda = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA GPU here")


@wp.kernel
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_streams_need_a_cuda_device():
    with pytest.raises(RuntimeError, match="streams and events need a cuda device, not 'cpu'"):
        wp.Stream("cpu")
    with pytest.raises(RuntimeError, match="streams and events need a cuda device, not 'sim:h200'"):
        wp.Event("sim:h200")


def test_pinned_is_for_cpu_arrays():
    with pytest.raises(ValueError, match="pinned=True is for cpu arrays .* not 'sim:h200'"):
        wp.zeros(4, dtype=float, device="sim:h200", pinned=True)


@cuda
def test_scoped_stream_routes_launches_and_events_order_streams():
    n = 1 << 20
    a = wp.zeros(n, dtype=float, device="cuda:0")
    wp.launch(add_one, dim=n, inputs=[a], device="cuda:0")
    s1, s2 = wp.Stream("cuda:0"), wp.Stream("cuda:0")
    start, stop = wp.Event("cuda:0", enable_timing=True), wp.Event("cuda:0", enable_timing=True)
    s1.wait_stream(wp.get_stream("cuda:0"))
    with wp.ScopedStream(s1):
        assert wp.get_stream("cuda:0") == s1
        start.record()
        for _ in range(50):
            wp.launch(add_one, dim=n, inputs=[a])  # the default device is cuda:0 inside
        stop.record()
    assert wp.get_stream("cuda:0") != s1
    s2.wait_event(s1.record_event())
    with wp.ScopedStream(s2):
        wp.launch(add_one, dim=n, inputs=[a])
        np.testing.assert_array_equal(a.numpy(), np.full(n, 52.0, dtype=np.float32))
    assert wp.get_event_elapsed_time(start, stop) > 0.0
    assert stop.is_complete
    wp.synchronize_stream(s1)
    wp.synchronize_event(stop)
    wp.synchronize_device("cuda:0")
    assert s1.is_complete


@cuda
def test_captured_launches_run_only_when_replayed():
    n = 4096
    a = wp.zeros(n, dtype=float, device="cuda:0")
    wp.launch(add_one, dim=n, inputs=[a], device="cuda:0")  # loads the module before the capture
    a.zero_()
    with wp.ScopedCapture("cuda:0") as capture:
        for _ in range(10):
            wp.launch(add_one, dim=n, inputs=[a], device="cuda:0")
    assert capture.graph.node_count == 10
    np.testing.assert_array_equal(a.numpy(), np.zeros(n, dtype=np.float32))
    for _ in range(3):
        wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), np.full(n, 30.0, dtype=np.float32))


@cuda
def test_debug_launches_cannot_be_captured():
    a = wp.zeros(16, dtype=float, device="cuda:0")
    wp.config.mode = "debug"
    wp.launch(add_one, dim=16, inputs=[a], device="cuda:0")
    with pytest.raises(RuntimeError, match="a debug-mode launch of kernel 'add_one' during a graph capture on cuda:0"):
        with wp.ScopedCapture("cuda:0"):
            wp.launch(add_one, dim=16, inputs=[a], device="cuda:0")


@cuda
def test_pinned_arrays_copy_to_and_from_the_gpu():
    n = 1 << 16
    p = wp.zeros(n, dtype=float, device="cpu", pinned=True)
    assert p.pinned and p.device == "cpu"
    values = np.arange(n, dtype=np.float32)
    p.numpy()[:] = values  # a view of the pinned memory
    g = wp.empty(n, dtype=float, device="cuda:0")
    wp.copy(g, p)
    wp.launch(add_one, dim=n, inputs=[g], device="cuda:0")
    back = wp.zeros(n, dtype=float, device="cpu", pinned=True)
    wp.copy(back, g)
    np.testing.assert_array_equal(back.numpy(), values + 1.0)
    h = wp.array(values, device="cuda:0")  # wp.array(numpy, device="cuda") and numpy() copying back
    np.testing.assert_array_equal(h.numpy(), values)
