"""wp.array from Python: construction from numpy and lists (vec3 arrays from (n, 3) data, as in
Warp), the constructors (zeros, empty, full, ones, *_like, clone, copy), in-place operations, and
numpy() as a zero-copy view on the CPU that a kernel sees writes through and that keeps the
memory alive."""
import gc

import numpy as np
import pytest

import weft as wp


@wp.kernel
def double(values: wp.array(dtype=float)):
    i = wp.tid()
    values[i] = values[i] * 2.0


def test_from_numpy_and_back(device):
    a_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(a_np, device=device)
    assert a.shape == (3, 4) and a.ndim == 2 and a.size == 12 and len(a) == 3
    assert a.dtype is wp.float32 and a.device == device and str(a.device) == "cpu"
    np.testing.assert_array_equal(a.numpy(), a_np)
    a_np[0, 0] = 100.0  # the array holds a copy of its data
    assert a.numpy()[0, 0] == 0.0


def test_dtype_inference():
    assert wp.array(np.zeros(3, dtype=np.float64)).dtype is wp.float64
    assert wp.array(np.zeros(3, dtype=np.int64)).dtype is wp.int64
    assert wp.array([1.0, 2.0]).dtype is wp.float32
    assert wp.array([1, 2]).dtype is wp.int32
    assert wp.array([True, False]).dtype is wp.bool
    assert wp.array([1, 2], dtype=wp.uint8).numpy().dtype == np.uint8


def test_vector_arrays():
    pts = np.arange(12, dtype=np.float64).reshape(4, 3)
    a = wp.array(pts, dtype=wp.vec3)
    assert a.shape == (4,) and a.numpy().shape == (4, 3) and a.numpy().dtype == np.float32
    assert a.list()[1] == wp.vec3(3.0, 4.0, 5.0)
    assert wp.array([wp.vec3(1, 2, 3), wp.vec3(4, 5, 6)], dtype=wp.vec3).numpy().tolist() == [[1, 2, 3], [4, 5, 6]]
    m = wp.zeros(2, dtype=wp.mat33)
    assert m.numpy().shape == (2, 3, 3)
    q = wp.full(3, wp.quat(0.0, 0.0, 0.0, 1.0), dtype=wp.quat)
    np.testing.assert_array_equal(q.numpy(), np.tile([0, 0, 0, 1], (3, 1)))
    t = wp.zeros(1, dtype=wp.transform)
    assert t.numpy().shape == (1, 7)
    with pytest.raises(ValueError):
        wp.array(np.zeros((4, 2)), dtype=wp.vec3)


def test_numpy_is_a_zero_copy_view(device):
    a = wp.zeros(8, dtype=float, device=device)
    view = a.numpy()
    view[:] = np.arange(8)  # written through the view...
    wp.launch(double, dim=8, inputs=[a], device=device)  # ...seen by the kernel
    np.testing.assert_array_equal(view, np.arange(8) * 2.0)  # and the kernel's writes seen by the view
    assert view.ctypes.data == a.ptr


def test_numpy_view_keeps_memory_alive(device):
    a = wp.full(1000, 7.0, dtype=float, device=device)
    view = a.numpy()
    assert isinstance(view.base, object) and view.base is not None
    del a
    gc.collect()
    others = [wp.full(1000, 1.0, dtype=float, device=device) for _ in range(8)]  # would reuse freed memory
    assert np.all(view == 7.0) and all(np.all(o.numpy() == 1.0) for o in others)


def test_constructors(device):
    assert np.all(wp.zeros((2, 3), dtype=int, device=device).numpy() == 0)
    assert wp.empty(5, dtype=wp.float64, device=device).shape == (5,)
    assert np.all(wp.ones(4, dtype=float, device=device).numpy() == 1.0)
    f = wp.full((2, 2), 3, dtype=wp.int16, device=device)
    assert f.dtype is wp.int16 and np.all(f.numpy() == 3)
    a = wp.array(np.arange(6, dtype=np.float32), device=device)
    z = wp.zeros_like(a)
    assert z.shape == a.shape and z.dtype is a.dtype and np.all(z.numpy() == 0)
    c = wp.clone(a)
    c.numpy()[0] = 42.0
    assert a.numpy()[0] == 0.0 and c.numpy()[0] == 42.0
    wp.copy(z, c)
    assert z.numpy()[0] == 42.0
    v = wp.full(3, wp.vec3(1.0, 2.0, 3.0), device=device)
    assert v.dtype is wp.vec3 and v.list() == [wp.vec3(1, 2, 3)] * 3


def test_in_place_operations(device):
    a = wp.array(np.arange(4, dtype=np.float32), device=device)
    a.fill_(2.5)
    assert np.all(a.numpy() == 2.5)
    a.zero_()
    assert np.all(a.numpy() == 0.0)
    a.assign([1.0, 2.0, 3.0, 4.0])
    assert a.list() == [1.0, 2.0, 3.0, 4.0]
    b = wp.zeros(4, dtype=float, device=device)
    b.assign(a)
    assert b.list() == [1.0, 2.0, 3.0, 4.0]
    assert a.to(device) is a
    assert np.all(np.asarray(a) == [1.0, 2.0, 3.0, 4.0])


def test_grad(device):
    a = wp.zeros(3, dtype=float, device=device, requires_grad=True)
    assert a.requires_grad and a.grad is not None
    assert a.grad.shape == (3,) and np.all(a.grad.numpy() == 0.0)
    b = wp.zeros(3, dtype=float, device=device)
    assert b.grad is None
    b.requires_grad = True
    assert b.grad is not None


def test_annotation_arrays_are_types():
    t = wp.array(dtype=wp.vec3)
    assert t.ndim == 1 and t.dtype is wp.vec3
    assert wp.array2d(dtype=float).ndim == 2
    with pytest.raises(TypeError):
        t.numpy()


def test_value_types():
    v = wp.vec3(1, 2, 3)
    assert (v.x, v.y, v.z) == (1.0, 2.0, 3.0) and v[2] == 3.0 and list(v) == [1.0, 2.0, 3.0]
    assert np.asarray(v).dtype == np.float32
    assert v + wp.vec3(1, 1, 1) == wp.vec3(2, 3, 4) and 2.0 * v == wp.vec3(2, 4, 6)
    assert wp.vec3d is not wp.vec3 and wp.vec3f is wp.vec3
    m = wp.mat22(1, 2, 3, 4)
    assert m[1, 0] == 3.0 and m[0] == wp.vec2(1, 2)
    assert wp.mat22(wp.vec2(1, 2), wp.vec2(3, 4)) == m
    t = wp.transform(wp.vec3(1, 2, 3), wp.quat(0, 0, 0, 1))
    assert t.p == wp.vec3(1, 2, 3) and t.q.w == 1.0
    assert wp.vec3(5.0) == wp.vec3(5, 5, 5)
    assert len(wp.spatial_vector()) == 6 and wp.spatial_matrix()._data.shape == (6, 6)
    with pytest.raises(ValueError):
        wp.vec3(1, 2)
    assert wp.float32(1.5).value == 1.5 and int(wp.int32(7)) == 7


def test_devices():
    wp.init()
    assert wp.get_device() in wp.get_devices()
    assert "cpu" in [str(d) for d in wp.get_devices()]
    with wp.ScopedDevice("cpu") as d:
        assert wp.get_device() == d and d.is_cpu
    wp.synchronize()
    assert isinstance(wp.is_cuda_available(), bool)
