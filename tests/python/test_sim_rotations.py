"""wp.sim.quat_from_euler (Warp's) in Python and in a kernel, and the wp.quat_rpy builtin, against products of
axis-angle rotations computed in numpy (float64)."""
import numpy as np

import weft as wp
from weft.sim import quat_from_euler


def qmul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.concatenate([aw * bv + bw * av + np.cross(av, bv), [aw * bw - av @ bv]])


def axis_angle(axis, angle):
    return np.concatenate([np.sin(angle / 2) * np.eye(3)[axis], [np.cos(angle / 2)]])


def rpy_reference(r, p, y):
    # roll about x first, then pitch about y, then yaw about z: q = qz * qy * qx
    return qmul(axis_angle(2, y), qmul(axis_angle(1, p), axis_angle(0, r)))


@wp.kernel
def euler_kernel(e: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.quat)):
    i = wp.tid()
    out[i] = quat_from_euler(e[i], 0, 1, 2)


def test_quat_from_euler_python_and_kernel(device):
    angles = np.random.default_rng(5).uniform(-np.pi, np.pi, size=(4, 3))
    ref = np.array([rpy_reference(*a) for a in angles])
    py = np.array([list(wp.sim.quat_from_euler(wp.vec3(*a), 0, 1, 2)) for a in angles])
    np.testing.assert_allclose(py, ref, atol=1e-6)
    e = wp.array(angles, dtype=wp.vec3, device=device)
    out = wp.zeros(4, dtype=wp.quat, device=device)
    wp.launch(euler_kernel, dim=4, inputs=[e, out], device=device)
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-6)


@wp.kernel
def rpy_kernel(e: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.quatd)):
    i = wp.tid()
    out[i] = wp.quat_rpy(e[i][0], e[i][1], e[i][2])


def test_quat_rpy_builtin_in_kernels(device):
    # (its adjoint is checked against finite differences by the builtin sweep, tests/tape)
    angles = np.random.default_rng(6).uniform(-np.pi, np.pi, size=(4, 3))
    e = wp.array(angles, dtype=wp.vec3d, device=device)
    out = wp.zeros(4, dtype=wp.quatd, device=device)
    wp.launch(rpy_kernel, dim=4, inputs=[e, out], device=device)
    np.testing.assert_allclose(out.numpy(), [rpy_reference(*a) for a in angles], atol=1e-12)
