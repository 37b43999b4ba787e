"""Warp's rint, frac and nonzero, and step of integers (issue 19), against numpy; frac's adjoint
against finite differences (d frac = dx; Warp's own adjoint of frac is zero, docs/warp-compat.md)."""
import numpy as np
import pytest

import weft as wp


def make_rounding(dtype):
    def rounding(x: wp.array(dtype=dtype), out: wp.array(dtype=dtype, ndim=2)):
        i = wp.tid()
        out[0, i] = wp.rint(x[i])
        out[1, i] = wp.frac(x[i])
        out[2, i] = wp.nonzero(x[i])

    return wp.Kernel(rounding, key=f"rounding_{dtype.__name__}")


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
def test_rint_frac_nonzero_match_numpy(device, dtype):
    xv = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 3.25, 0.0, -0.0, 7.0])
    x = wp.array(xv, dtype=dtype, device=device)
    out = wp.zeros((3, xv.size), dtype=dtype, device=device)
    wp.launch(make_rounding(dtype), dim=xv.size, inputs=[x, out], device=device)
    got = out.numpy()
    np.testing.assert_array_equal(got[0], np.rint(xv))  # halves to even: 0, 2, 2, -0, -2
    np.testing.assert_allclose(got[1], np.modf(xv)[0], atol=1e-6)
    np.testing.assert_array_equal(got[2], (xv != 0).astype(float))


@wp.kernel
def int_steps(x: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64, ndim=2)):
    i = wp.tid()
    out[0, i] = wp.step(x[i])
    out[1, i] = wp.nonzero(x[i])
    out[2, i] = wp.sign(x[i])


def test_integer_step_nonzero_sign(device):
    xv = np.array([-3, -1, 0, 1, 5], dtype=np.int64)
    x = wp.array(xv, dtype=wp.int64, device=device)
    out = wp.zeros((3, xv.size), dtype=wp.int64, device=device)
    wp.launch(int_steps, dim=xv.size, inputs=[x, out], device=device)
    got = out.numpy()
    np.testing.assert_array_equal(got[0], (xv < 0).astype(np.int64))
    np.testing.assert_array_equal(got[1], (xv != 0).astype(np.int64))
    np.testing.assert_array_equal(got[2], np.where(xv < 0, -1, 1))


@wp.kernel
def frac_loss(x: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i] * 3.0
    wp.atomic_add(loss, 0, wp.frac(v) * wp.frac(v) + wp.rint(v) + wp.nonzero(v))


def test_frac_gradient_against_finite_differences(device):
    xv = np.array([0.3, -0.7, 1.1])
    x = wp.array(xv, dtype=wp.float64, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(frac_loss, dim=3, inputs=[x, loss], device=device)
    tape.backward(loss=loss)

    def f(v):
        y = 3.0 * v
        return np.sum(np.modf(y)[0] ** 2 + np.rint(y) + (y != 0))

    eps = 1e-6
    fd = [(f(xv + eps * e) - f(xv - eps * e)) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(x.grad.numpy(), fd, rtol=1e-6)
