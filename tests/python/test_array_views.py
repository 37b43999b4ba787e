"""wp.array views, as Warp's: a[...] with ints and slices, reshape, flatten, transpose, view(dtype),
contiguous, zeros/empty with transposed strides, and wp.array(src, dtype=..., shape=...). A view
shares its array's memory (a kernel writing through it changes the array) and its gradient; numpy's
indexing of the same data is the reference."""
import numpy as np
import pytest

import weft as wp


@wp.kernel
def add_hundred(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 100.0


@wp.kernel
def scale_rows(x: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    x[i, j] = x[i, j] * s


@wp.kernel
def square_sum(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i] * x[i])


@wp.struct
class Pair:
    a: float
    b: int


def grid(device, shape=(4, 6)):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return wp.array(data, device=device), data


def test_slices_and_ints_view_the_same_elements_as_numpy(device):
    a, ref = grid(device)
    for key in [np.s_[1:3], np.s_[:, 2], np.s_[1, 1:5:2], np.s_[-1], np.s_[::2, ::3], np.s_[2:2], np.s_[:, -3:]]:
        v = a[key]
        np.testing.assert_array_equal(v.numpy(), ref[key], err_msg=str(key))
        assert v.shape == ref[key].shape
        assert v.strides == ref[key].strides  # byte strides, as numpy's for the same float32 data


def test_a_kernel_writes_through_a_strided_view(device):
    a, ref = grid(device)
    wp.launch(add_hundred, dim=3, inputs=[a[2, 1:6:2]], device=device)
    ref[2, 1:6:2] += 100.0
    np.testing.assert_array_equal(a.numpy(), ref)
    wp.launch(scale_rows, dim=(4, 2), inputs=[a[:, ::3], 2.0], device=device)
    ref[:, ::3] *= 2.0
    np.testing.assert_array_equal(a.numpy(), ref)


def test_reshape_flatten_transpose_and_view(device):
    a, ref = grid(device)
    np.testing.assert_array_equal(a.reshape((6, 4)).numpy(), ref.reshape(6, 4))
    np.testing.assert_array_equal(a.reshape((-1, 3)).numpy(), ref.reshape(-1, 3))
    np.testing.assert_array_equal(a.reshape(24).numpy(), ref.reshape(24))
    np.testing.assert_array_equal(a.flatten().numpy(), ref.ravel())
    t = a.transpose()
    assert t.shape == (6, 4) and not t.is_contiguous
    np.testing.assert_array_equal(t.numpy(), ref.T)
    np.testing.assert_array_equal(t.contiguous().numpy(), ref.T)
    assert t.contiguous().is_contiguous and a.contiguous() is a
    b = wp.array(np.arange(24, dtype=np.float32).reshape(2, 3, 4), device=device)
    np.testing.assert_array_equal(b.transpose((1, 0, 2)).numpy(), b.numpy().transpose(1, 0, 2))
    bits = a.view(wp.int32).numpy()
    np.testing.assert_array_equal(bits, ref.view(np.int32))
    # the views share memory: a write through one shows in the array
    a.reshape(24)[:5].fill_(-1.0)
    assert (a.numpy().ravel()[:5] == -1.0).all() and a.numpy().ravel()[5] == 5.0


def test_a_view_keeps_the_memory_alive(device):
    a, ref = grid(device)
    v = a[1:3]
    del a
    np.testing.assert_array_equal(v.numpy(), ref[1:3])


def test_a_views_gradient_is_the_same_view_of_the_gradient(device):
    x = wp.array(np.arange(8, dtype=np.float32), requires_grad=True, device=device)
    out = wp.zeros(1, dtype=float, requires_grad=True, device=device)
    part = x[2:7:2]  # elements 2, 4, 6
    assert part.grad is not None and part.grad.shape == (3,)
    tape = wp.Tape()
    with tape:
        wp.launch(square_sum, dim=3, inputs=[part, out], device=device)
    tape.backward(loss=out)
    want = np.zeros(8, dtype=np.float32)
    want[2:7:2] = 2.0 * np.arange(8, dtype=np.float32)[2:7:2]  # d(sum x^2)/dx
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_transposed_strides_allocate_a_contiguous_layout_in_another_order(device):
    for dtype, size in [(wp.int8, 1), (wp.float32, 4)]:
        a = wp.zeros((2, 3, 4), dtype=dtype, strides=(size, 2 * size, 6 * size), device=device)
        assert a.shape == (2, 3, 4) and a.strides == (size, 2 * size, 6 * size)
        assert a.capacity == 24 * size
        b = wp.empty((3, 5), dtype=dtype, strides=(5 * size, size), device=device)
        assert b.strides == (5 * size, size) and b.is_contiguous


def test_array_from_an_array_with_another_dtype_or_shape(device):
    src = wp.array(np.arange(24, dtype=np.float32).reshape(4, 6), device=device)
    v = wp.array(src, dtype=wp.vec3)
    assert v.shape == (4, 2) and v.dtype == wp.vec3
    np.testing.assert_array_equal(v.numpy(), np.arange(24, dtype=np.float32).reshape(4, 2, 3))
    m = wp.array(wp.array(np.arange(12, dtype=np.float32).reshape(3, 4), device=device), dtype=wp.mat22)
    assert m.shape == (3,)
    r = wp.array(src, shape=(12, 2))
    np.testing.assert_array_equal(r.numpy(), np.arange(24, dtype=np.float32).reshape(12, 2))
    assert wp.array([], dtype=wp.vec3, device=device).shape == (0,)


def test_bad_views_are_refused_with_what_and_where(device):
    a, _ = grid(device)
    with pytest.raises(RuntimeError, match="Item indexing is not supported on wp.array objects"):
        a[1, 2]
    with pytest.raises(IndexError, match=r"index 4 out of range for dimension 0 of size 4"):
        a[4]
    with pytest.raises(IndexError, match=r"3 indices for an array of 2 dimensions"):
        a[0, 0, 0]
    with pytest.raises(RuntimeError, match="slice step must be positive, got -1"):
        a[::-1]
    with pytest.raises(TypeError, match="invalid index 'x': use ints and slices"):
        a["x"]
    with pytest.raises(TypeError, match="indexing with an array of indices .* is not supported by Weft"):
        a[wp.array([0, 1], dtype=int, device=device)]
    with pytest.raises(RuntimeError, match="Reshaping non-contiguous arrays is unsupported"):
        a.transpose().reshape(24)
    with pytest.raises(RuntimeError, match=r"must have the same total size as the original: \(5, 5\) holds 25"):
        a.reshape((5, 5))
    with pytest.raises(RuntimeError, match="more than one index is -1"):
        a.reshape((-1, -1))
    with pytest.raises(RuntimeError, match="Flattening non-contiguous arrays is unsupported"):
        a.transpose().flatten()
    with pytest.raises(RuntimeError, match="Cannot cast dtypes of unequal byte size"):
        a.view(wp.float64)
    with pytest.raises(RuntimeError, match=r"axes \(0, 0\) are not a permutation"):
        a.transpose((0, 0))
    with pytest.raises(ValueError, match=r"strides \(8, 8\) are not a contiguous layout of shape \(2, 2\)"):
        wp.zeros((2, 2), dtype=float, strides=(8, 8), device=device)
    with pytest.raises(ValueError, match="strides .* and shape .* have different lengths"):
        wp.zeros((2, 2), dtype=float, strides=(4,), device=device)
    with pytest.raises(TypeError, match=r"wp.empty\(\) got an unexpected keyword argument 'strid'"):
        wp.empty((2, 2), dtype=float, strid=(8, 4), device=device)
    with pytest.raises(TypeError, match=r"wp.zeros\(\) got an unexpected keyword argument 'strid'"):
        wp.zeros((2, 2), dtype=float, strides=(8, 4), strid=1, device=device)


def test_the_runtime_refuses_a_view_outside_its_array(device):
    a, _ = grid(device)
    h = a._handle()
    with pytest.raises(RuntimeError, match="would reach outside its elements"):
        h.view(4 * 20, h.dtype, [8], [4])
    with pytest.raises(RuntimeError, match="must have elements of its size"):
        h.view(0, wp.types.type_of(wp.float64), [2], [8])


def test_full_infers_warps_dtypes_and_shapes_must_be_non_negative(device):
    assert wp.full(3, 42, device=device).dtype is wp.int32
    assert wp.full(3, 1.5, device=device).dtype is wp.float32
    assert wp.full(3, True, device=device).dtype is wp.bool
    assert wp.full(3, np.float64(2.0), device=device).dtype is wp.float64
    v = wp.full(2, np.array([1.0, 2.0, 3.0], dtype=np.float32), device=device)
    assert v.dtype == wp.vec3 and v.shape == (2,)
    np.testing.assert_array_equal(v.numpy(), [[1, 2, 3], [1, 2, 3]])
    m = wp.full(1, [[1.0, 2.0], [3.0, 4.0]], device=device)  # numpy reads a list of floats as float64, as Warp does
    assert m.dtype == wp.types.matrix((2, 2), wp.float64)
    s = wp.full(2, Pair(a=1.5, b=3), device=device)  # a struct instance: its struct
    assert s.dtype is Pair and s.list()[1].a == 1.5 and s.list()[1].b == 3
    with pytest.raises(ValueError, match=r"Array shapes must be non-negative, got \(-1,\)"):
        wp.zeros(shape=-1, dtype=int, device=device)
    with pytest.raises(TypeError, match="wp.full: cannot infer a dtype from a value of type dict; pass dtype="):
        wp.full(2, {"a": 1}, device=device)
