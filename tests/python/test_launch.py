"""Launches from Python on the CPU device, checked against numpy float64 references: saxpy,
vec3 and quaternion math, 2-D grids with `i, j = wp.tid()`, atomics, and a block reduction
through a shared array and wp.sync_threads(); a mismatched argument is named by its parameter."""
import numpy as np
import pytest

import weft as wp

rng = np.random.default_rng(7)


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


def test_saxpy(device):
    n = 1000
    x_np = rng.standard_normal(n).astype(np.float32)
    y_np = rng.standard_normal(n).astype(np.float32)
    x = wp.array(x_np, device=device)
    y = wp.array(y_np, device=device)
    wp.launch(saxpy, dim=n, inputs=[x, y, 2.5], device=device)
    expected = 2.5 * x_np.astype(np.float64) + y_np.astype(np.float64)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_saxpy_outputs_and_int_scale(device):
    x = wp.array([1.0, 2.0, 3.0], dtype=float, device=device)
    y = wp.zeros(3, dtype=float, device=device)
    wp.launch(saxpy, dim=3, inputs=[x], outputs=[y, 2], device=device)  # an int converts to a float parameter
    np.testing.assert_array_equal(y.numpy(), [2.0, 4.0, 6.0])


@wp.kernel
def vec_math(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), s: wp.vec3,
             crosses: wp.array(dtype=wp.vec3), dots: wp.array(dtype=float), lengths: wp.array(dtype=float)):
    i = wp.tid()
    crosses[i] = wp.cross(a[i], b[i]) + s
    dots[i] = wp.dot(a[i], b[i])
    lengths[i] = wp.length(wp.normalize(a[i]) * 3.0)


def test_vec3_math(device):
    n = 64
    a_np = rng.standard_normal((n, 3)).astype(np.float32)
    b_np = rng.standard_normal((n, 3)).astype(np.float32)
    a = wp.array(a_np, dtype=wp.vec3, device=device)
    b = wp.array(b_np, dtype=wp.vec3, device=device)
    assert a.shape == (n,) and a.dtype is wp.vec3
    crosses = wp.zeros(n, dtype=wp.vec3, device=device)
    dots = wp.zeros(n, dtype=float, device=device)
    lengths = wp.zeros(n, dtype=float, device=device)
    s = wp.vec3(1.0, -2.0, 0.5)
    wp.launch(vec_math, dim=n, inputs=[a, b, s, crosses, dots, lengths], device=device)
    a64, b64 = a_np.astype(np.float64), b_np.astype(np.float64)
    np.testing.assert_allclose(crosses.numpy(), np.cross(a64, b64) + [1.0, -2.0, 0.5], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dots.numpy(), np.sum(a64 * b64, axis=1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lengths.numpy(), np.full(n, 3.0), rtol=1e-5)


@wp.kernel
def rotate(points: wp.array(dtype=wp.vec3), q: wp.quat, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.quat_rotate(q, points[i])


def _quat_rotate_ref(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    return v * (2.0 * w * w - 1.0) + np.cross(u, v) * 2.0 * w + np.outer(v @ u, u) * 2.0


def test_quat_rotate(device):
    n = 32
    axis = np.array([1.0, 2.0, 2.0]) / 3.0
    angle = 0.7
    q_ref = np.concatenate([axis * np.sin(angle / 2), [np.cos(angle / 2)]])
    pts = rng.standard_normal((n, 3))
    out = wp.zeros(n, dtype=wp.vec3, device=device)
    q = wp.quat(*q_ref)
    assert q.w == pytest.approx(np.cos(angle / 2))
    wp.launch(rotate, dim=n, inputs=[wp.array(pts, dtype=wp.vec3, device=device), q, out], device=device)
    np.testing.assert_allclose(out.numpy(), _quat_rotate_ref(q_ref, pts), rtol=1e-5, atol=1e-5)


def test_vector_parameter_from_tuple(device):
    out = wp.zeros(1, dtype=wp.vec3, device=device)
    a = wp.array([[1.0, 0.0, 0.0]], dtype=wp.vec3, device=device)
    b = wp.array([[0.0, 1.0, 0.0]], dtype=wp.vec3, device=device)
    dots = wp.zeros(1, dtype=float, device=device)
    lengths = wp.zeros(1, dtype=float, device=device)
    wp.launch(vec_math, dim=1, inputs=[a, b, (0.0, 0.0, 1.0), out, dots, lengths], device=device)
    np.testing.assert_array_equal(out.numpy(), [[0.0, 0.0, 2.0]])
    assert out.list() == [wp.vec3(0.0, 0.0, 2.0)]


@wp.kernel
def grid_2d(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float), scale: float):
    i, j = wp.tid()
    out[i, j] = a[i, j] * scale + float(i * 100 + j)


def test_2d_launch(device):
    a_np = rng.standard_normal((7, 5)).astype(np.float32)
    a = wp.array(a_np, device=device)
    assert a.ndim == 2 and a.shape == (7, 5)
    out = wp.zeros((7, 5), dtype=float, device=device)
    wp.launch(grid_2d, dim=(7, 5), inputs=[a, out, 0.5], device=device)
    i, j = np.meshgrid(np.arange(7), np.arange(5), indexing="ij")
    np.testing.assert_allclose(out.numpy(), a_np.astype(np.float64) * 0.5 + i * 100 + j, rtol=1e-6)


@wp.kernel
def mat_vec(m: wp.mat33, v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = m * v[i]


def test_mat33_argument(device):
    m_np = rng.standard_normal((3, 3))
    v_np = rng.standard_normal((10, 3))
    out = wp.zeros(10, dtype=wp.vec3, device=device)
    wp.launch(mat_vec, dim=10, inputs=[wp.mat33(m_np), wp.array(v_np, dtype=wp.vec3, device=device), out], device=device)
    np.testing.assert_allclose(out.numpy(), v_np @ m_np.T, rtol=1e-5, atol=1e-5)


@wp.kernel
def count_and_sum(values: wp.array(dtype=int), total: wp.array(dtype=int), fsum: wp.array(dtype=float)):
    i = wp.tid()
    total[0] += values[i]
    wp.atomic_add(fsum, 0, float(values[i]))


def test_atomics_sum_exactly(device):
    n = 10000
    v_np = rng.integers(-50, 100, size=n).astype(np.int32)
    total = wp.zeros(1, dtype=int, device=device)
    fsum = wp.zeros(1, dtype=float, device=device)
    wp.launch(count_and_sum, dim=n, inputs=[wp.array(v_np, device=device), total, fsum], device=device)
    assert total.numpy()[0] == int(v_np.astype(np.int64).sum())
    assert fsum.numpy()[0] == float(v_np.astype(np.int64).sum())  # small integers: exact in float32


BLOCK = 64


@wp.kernel(block_dim=64)
def block_sum(values: wp.array(dtype=float), sums: wp.array(dtype=float)):
    s = wp.shared_array(shape=(64,), dtype=float)
    t = wp.thread_idx()
    s[t] = values[wp.tid()]
    wp.sync_threads()
    stride = 32
    while stride > 0:
        if t < stride:
            s[t] = s[t] + s[t + stride]
        wp.sync_threads()
        stride = stride // 2
    if t == 0:
        sums[wp.block_idx()] = s[0]


def test_shared_array_block_reduction(device):
    nblocks = 16
    v_np = rng.integers(0, 1000, size=nblocks * BLOCK).astype(np.float32)
    sums = wp.zeros(nblocks, dtype=float, device=device)
    wp.launch(block_sum, dim=nblocks * BLOCK, inputs=[wp.array(v_np, device=device), sums], device=device)
    np.testing.assert_array_equal(sums.numpy(), v_np.astype(np.float64).reshape(nblocks, BLOCK).sum(axis=1))


@wp.kernel
def typed_scalars(out: wp.array(dtype=wp.float64), a: wp.float64, k: wp.int64, flag: wp.bool):
    i = wp.tid()
    if flag:
        out[i] = a * wp.float64(k)


def test_typed_scalar_arguments(device):
    out = wp.zeros(4, dtype=wp.float64, device=device)
    wp.launch(typed_scalars, dim=4, inputs=[out, 0.1, 3, True], device=device)
    np.testing.assert_allclose(out.numpy(), np.full(4, 0.1 * 3), rtol=1e-15)
    wp.launch(typed_scalars, dim=4, inputs=[out, wp.float64(0.5), wp.int64(2), wp.bool(True)], device=device)
    np.testing.assert_array_equal(out.numpy(), np.full(4, 1.0))


def test_empty_launch_is_a_no_op(device):
    y = wp.zeros(0, dtype=float, device=device)
    wp.launch(saxpy, dim=0, inputs=[y, y, 1.0], device=device)
    assert len(y) == 0


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
def add_one(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0


def test_bad_dims_raise_plain_type_and_value_errors(device):
    a = wp.zeros(8, dtype=float, device=device)
    cases = [
        (1.5, TypeError, "wp.launch of kernel '.*add_one': dim must be an int or a tuple of 1 to 4 ints, got float 1.5"),
        ("8", TypeError, "dim must be an int or a tuple of 1 to 4 ints, got str '8'"),
        (None, TypeError, "dim must be an int or a tuple of 1 to 4 ints, got NoneType None"),
        ((8, 2.0), TypeError, "dim entries must be ints, got float 2.0 in dim=\\(8, 2.0\\)"),
        (True, TypeError, "dim entries must be ints, got bool True"),
        (-3, ValueError, "dim entries must not be negative, got -3"),
        (2**70, ValueError, "dim entry 1180591620717411303424 exceeds the largest launch extent \\(2147483647\\)"),
        ((), ValueError, "dim has 0 entries; expected 1 to 4"),
        ((1, 1, 1, 1, 1), ValueError, "dim has 5 entries; expected 1 to 4"),
    ]
    for dim, kind, message in cases:
        with pytest.raises(kind, match=message):
            wp.launch(add_one, dim=dim, inputs=[a], device=device)
    np.testing.assert_array_equal(a.numpy(), np.zeros(8, dtype=np.float32))


def test_launch_shape_must_fit_the_kernels_tid(device):
    a = wp.zeros(8, dtype=float, device=device)
    with pytest.raises(RuntimeError, match=r"launch of kernel '.*add_one' with dim=\(8, 8\) \(2-D\): the kernel reads a "
                                           r"1-D thread index \(`i = wp.tid\(\)`\)"):
        wp.launch(add_one, dim=(8, 8), inputs=[a], device=device)
    with pytest.raises(RuntimeError, match=r"array 'a' has shape \(8,\), but every thread indexes its axis 0 with the "
                                           r"thread index i \(0 to 999999999\), unguarded"):
        wp.launch(add_one, dim=10**9, inputs=[a], device=device)
    with pytest.raises(ValueError, match=r"dim entry 1000000000000 exceeds the largest launch extent"):
        wp.launch(add_one, dim=10**12, inputs=[a], device=device)
    wp.launch(add_one, dim=8, inputs=[a], device=device)
    np.testing.assert_array_equal(a.numpy(), np.ones(8, dtype=np.float32))


_FOREVER = '''
import sys, weft as wp

@wp.kernel
def forever(a: wp.array(dtype=float)):
    i = wp.tid()
    while True:
        a[i] = a[i] + 1.0

@wp.kernel
def twice(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0 * float(i)

a = wp.zeros(4, dtype=float)
wp.launch(twice, dim=4, inputs=[a])  # compiled before the signal comes
print("looping", flush=True)
try:
    wp.launch(forever, dim=4, inputs=[a])
except KeyboardInterrupt as e:
    print("KeyboardInterrupt:", e, flush=True)
b = wp.zeros(4, dtype=float)
wp.launch(twice, dim=4, inputs=[b])
print(list(b.numpy()), flush=True)
'''


def test_ctrl_c_interrupts_a_launch_and_the_runtime_goes_on(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "forever.py"
    script.write_text(_FOREVER)
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
    assert p.stdout.readline() == "looping\n"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    assert out == ("KeyboardInterrupt: launch of kernel 'forever' was interrupted (Ctrl-C); its output arrays are "
                   "incomplete\n[0.0, 2.0, 4.0, 6.0]\n"), (out, err)
