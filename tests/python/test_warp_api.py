"""Warp's Python API that Warp scripts use outside kernels: builtins in Python scope (checked
against the same builtins run in a kernel, and against analytic values), wp.ScopedTimer,
wp.optim (SGD and Adam against their update rules written out in numpy), and Python values
captured by kernels (module constants, closures)."""
import math

import numpy as np
import pytest

import weft as wp

# ---- builtins in Python scope ----


@wp.kernel
def builtins_in_a_kernel(q: wp.quat, t: wp.transform, v: wp.vec3, out_v: wp.array(dtype=wp.vec3),
                         out_q: wp.array(dtype=wp.quat), out_s: wp.array(dtype=float)):
    out_v[0] = wp.quat_rotate(q, v)
    out_v[1] = wp.transform_point(t, v)
    out_v[2] = wp.transform_vector(t, v)
    out_v[3] = wp.normalize(v)
    out_v[4] = wp.cross(v, wp.vec3(0.5, -1.0, 2.0))
    out_v[5] = wp.quat_rotate_inv(q, v)
    out_q[0] = wp.quat_from_axis_angle(wp.vec3(1.0, 2.0, 2.0), 0.7)
    out_q[1] = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.1) * wp.quat_from_axis_angle(wp.vec3(0.0, 1.0, 0.0), -0.2) * wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), 0.3)
    out_q[2] = q * wp.quat_inverse(q)
    out_s[0] = wp.length(v)
    out_s[1] = wp.length_sq(v)
    out_s[2] = wp.dot(v, wp.vec3(0.5, -1.0, 2.0))


def test_python_scope_builtins_agree_with_the_kernel_builtins():
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5 * math.pi)
    assert np.allclose(list(q), [0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4)])
    t = wp.transform(wp.vec3(1.0, 2.0, 3.0), q)
    v = wp.vec3(1.0, -2.0, 0.5)
    out_v = wp.zeros(6, dtype=wp.vec3)
    out_q = wp.zeros(3, dtype=wp.quat)
    out_s = wp.zeros(3, dtype=float)
    wp.launch(builtins_in_a_kernel, dim=1, inputs=[q, t, v, out_v, out_q, out_s])
    kv, kq, ks = out_v.numpy(), out_q.numpy(), out_s.numpy()
    host_v = [wp.quat_rotate(q, v), wp.transform_point(t, v), wp.transform_vector(t, v), wp.normalize(v),
              wp.cross(v, wp.vec3(0.5, -1.0, 2.0)), wp.quat_rotate_inv(q, v)]
    for k, h in zip(kv, host_v):
        assert isinstance(h, type(wp.vec3()))
        assert np.allclose(k, list(h), atol=1e-6)
    # quat_rpy (Python scope only here) is the rotation z(yaw) y(pitch) x(roll), as the kernel composes it
    host_q = [wp.quat_from_axis_angle(wp.vec3(1.0, 2.0, 2.0), 0.7), wp.quat_rpy(0.3, -0.2, 1.1), wp.mul(q, wp.quat_inverse(q))]
    for k, h in zip(kq, host_q):
        assert np.allclose(k, list(h), atol=1e-6)
    assert np.allclose(ks, [wp.length(v), wp.length_sq(v), wp.dot(v, wp.vec3(0.5, -1.0, 2.0))], rtol=1e-6)
    # analytic values
    assert np.allclose(list(wp.quat_rotate(q, wp.vec3(1.0, 0.0, 0.0))), [0.0, 1.0, 0.0], atol=1e-7)
    assert wp.length(wp.vec3(3.0, 4.0, 0.0)) == pytest.approx(5.0)
    assert list(wp.quat_identity()) == [0.0, 0.0, 0.0, 1.0]
    assert list(wp.transform_identity()) == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    ti = wp.transform_multiply(t, wp.transform_inverse(t))
    assert np.allclose(list(ti), list(wp.transform_identity()), atol=1e-6)
    m = wp.quat_to_matrix(q)
    assert np.allclose(np.asarray(wp.mul(m, v)), list(wp.quat_rotate(q, v)), atol=1e-6)
    assert np.allclose(list(wp.quat_from_matrix(m)), list(q), atol=1e-6)
    assert wp.abs(-2.5) == 2.5 and wp.min(1.0, 2.0) == 1.0 and wp.max(3, 4) == 4 and wp.clamp(5.0, 0.0, 1.0) == 1.0
    assert np.allclose(np.asarray(wp.identity(3, dtype=float)), np.eye(3))
    assert wp.sqrt(4.0) == 2.0 and wp.sin(0.0) == 0.0
    with pytest.raises(TypeError, match=r"wp.mul: no product of vector and vector"):
        wp.mul(wp.vec3(1.0), wp.vec3(2.0))


@wp.kernel
def identities_in_a_kernel(q: wp.array(dtype=wp.quat), t: wp.array(dtype=wp.transform), qd: wp.array(dtype=wp.quatd),
                           td: wp.array(dtype=wp.transformd)):
    q[0] = wp.quat_identity()
    t[0] = wp.transform_identity()
    qd[0] = wp.quat_identity(dtype=wp.float64)
    td[0] = wp.transform_identity(dtype=wp.float64)


def test_identities_in_a_kernel_match_python_scope():
    # wp.quat_identity() / wp.transform_identity() inside a kernel (float32 by default, dtype= for
    # float64) give what they give in Python scope: (0, 0, 0, 1) and a zero translation.
    arrays = [wp.full(1, 7.0, dtype=d) for d in (wp.quat, wp.transform, wp.quatd, wp.transformd)]
    wp.launch(identities_in_a_kernel, dim=1, inputs=arrays)
    assert arrays[0].numpy().tolist() == [list(wp.quat_identity())]
    assert arrays[1].numpy().tolist() == [list(wp.transform_identity())]
    assert arrays[2].numpy().dtype == np.float64 and arrays[2].numpy().tolist() == [[0.0, 0.0, 0.0, 1.0]]
    assert arrays[3].numpy().tolist() == [[0.0] * 6 + [1.0]]


def test_scoped_timer_times_a_block(capsys):
    times = {}
    with wp.ScopedTimer("work", dict=times) as timer:
        sum(range(1000))
    assert timer.elapsed > 0.0 and times["work"] == [timer.elapsed]
    assert "work took" in capsys.readouterr().out
    with wp.ScopedTimer("quiet", print=False, synchronize=True):
        pass
    assert capsys.readouterr().out == ""
    with pytest.raises(TypeError, match=r"ScopedTimer\(\): use_nvtx=True is not supported"):
        wp.ScopedTimer("x", use_nvtx=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'verbose'"):
        wp.ScopedTimer("x", verbose=True)


# ---- wp.optim ----


def test_sgd_and_adam_follow_their_update_rules():
    rng = np.random.default_rng(1)
    x0 = rng.normal(size=5).astype(np.float32)
    grads = [rng.normal(size=5).astype(np.float32) for _ in range(3)]

    x = wp.array(x0, dtype=float)
    opt = wp.optim.SGD([x], lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01, nesterov=True)
    ref, b = x0.astype(np.float64), None
    for g in grads:
        opt.step([wp.array(g, dtype=float)])
        gt = g + 0.01 * ref
        b = gt if b is None else 0.9 * b + (1.0 - 0.1) * gt
        ref = ref - 0.1 * (gt + 0.9 * b)
    assert np.allclose(x.numpy(), ref, rtol=1e-5, atol=1e-6)

    v0 = rng.normal(size=(4, 3)).astype(np.float32)
    for dtype, start in ((float, x0), (wp.vec3, v0)):
        p = wp.array(start, dtype=dtype)
        opt = wp.optim.Adam([p], lr=0.05, betas=(0.8, 0.95), eps=1e-6)
        ref, m, v = start.astype(np.float64), 0.0, 0.0
        for t in range(3):
            g = rng.normal(size=start.shape).astype(np.float32)
            opt.step([wp.array(g, dtype=dtype)])
            m = 0.8 * m + 0.2 * g
            v = 0.95 * v + 0.05 * g * g
            ref = ref - 0.05 * (m / (1 - 0.8 ** (t + 1))) / (np.sqrt(v / (1 - 0.95 ** (t + 1))) + 1e-6)
        assert np.allclose(p.numpy(), ref, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match=r"wp.optim.Adam: parameters must be 1-D arrays of float32 or vec3"):
        wp.optim.Adam([wp.zeros(3, dtype=wp.vec2)])


# ---- test builtins in kernels ----


@wp.kernel
def expectations(x: wp.array(dtype=float), v: wp.vec3):
    i = wp.tid()
    wp.expect_eq(x[i], 2.0)
    wp.expect_neq(x[i], 3.0)
    wp.expect_near(x[i], 2.0005, 1e-3)
    wp.expect_near(v, wp.vec3(1.0, 2.0, 3.0), tolerance=0.01)
    wp.expect_eq(v, wp.vec3(1.0, 2.0, 3.0))


def _c_stdout_flushed():
    import ctypes
    ctypes.CDLL(None).fflush(None)


def test_expect_builtins_print_only_what_fails(capfd):
    wp.launch(expectations, dim=2, inputs=[wp.array([2.0, 2.0], dtype=float), wp.vec3(1.0, 2.0, 3.0)])
    _c_stdout_flushed()
    assert capfd.readouterr().out == ""
    wp.launch(expectations, dim=1, inputs=[wp.array([3.0], dtype=float), wp.vec3(1.0, 2.5, 3.0)])
    _c_stdout_flushed()
    out = capfd.readouterr().out
    assert "Error, expect_eq() failed:\n\t 3 != 2\n" in out
    assert "Error, expect_neq() failed:\n\t 3 == 3\n" in out
    assert "Error, expect_near() failed:" in out and out.count("failed") == 5


def test_expect_near_refuses_integers():
    @wp.kernel
    def ints(a: int):
        wp.expect_near(a, 3)

    with pytest.raises(wp.CompileError, match=r"two float scalars or vectors of one type"):
        ints.compile()


# ---- Python values kernels capture ----

COEF = 3.0
OFFSET = 2


@wp.func
def plus_one(x: float) -> float:
    return x + 1.0


@wp.kernel
def uses_module_constants(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * COEF + float(OFFSET)


def make_closure_kernel(k, plus_one):
    # (a captured func keeps its name: a kernel calling it under another name is not supported yet)
    @wp.kernel
    def closure_kernel(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = plus_one(a[i]) * k

    return closure_kernel


def test_kernels_capture_module_constants_and_closures():
    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(uses_module_constants, dim=2, inputs=[a])
    assert np.allclose(a.numpy(), [5.0, 8.0])
    k2, k5 = make_closure_kernel(2.0, plus_one), make_closure_kernel(5.0, plus_one)
    a, b = wp.array([1.0, 2.0], dtype=float), wp.array([1.0, 2.0], dtype=float)
    wp.launch(k2, dim=2, inputs=[a])
    wp.launch(k5, dim=2, inputs=[b])
    assert np.allclose(a.numpy(), [4.0, 6.0]) and np.allclose(b.numpy(), [10.0, 15.0])


WHOLE_FILE = '''import weft as wp

COEF = 3.0
NEG = -2
COEF = 4.0          # the last literal assignment wins, as for Python
GONE = 1.0
GONE = GONE * 2.0   # not a literal: GONE is no longer a known value


@wp.kernel
def scale(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * COEF + float(NEG)


@wp.kernel
def uses_gone(a: wp.array(dtype=float)):
    a[0] = GONE
'''


def test_whole_file_compiles_take_literal_module_constants(tmp_path):
    # What `weft compile FILE.py` and kernel files compiled by path see (no Python involved).
    path = str(tmp_path / "consts.py")
    mod = wp._weft.Module.compile([(path, WHOLE_FILE.replace("@wp.kernel\ndef uses_gone", "def uses_gone"), 0)], "t")
    a = wp.array([1.0, 2.0], dtype=float)
    wp._weft.launch(mod.kernel("scale"), [2], [wp._weft.LaunchArg.of(a._handle())], "cpu")
    assert np.allclose(a.numpy(), [2.0, 6.0])
    with pytest.raises(wp.CompileError, match=r"GONE"):
        wp._weft.Module.compile([(path, WHOLE_FILE, 0)], "t")


def _undecorated_doubler(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0 * a[i]


def test_kernel_objects_made_at_run_time_and_generic_type_constructors():
    k = wp.Kernel(_undecorated_doubler, key="doubler")  # Warp's wp.Kernel(func, key=...), no decorator
    assert k.key == "doubler" and k.module.load("cpu")
    a = wp.array([1.0, 2.0], dtype=float)
    wp.launch(k, dim=2, inputs=[a])
    assert np.allclose(a.numpy(), [2.0, 4.0])
    with pytest.raises(TypeError, match=r"wp.Kernel\(\): option 'fast_math' is not supported"):
        wp.Kernel(_undecorated_doubler, options={"fast_math": True})
    assert wp.vec(length=3, dtype=wp.float64) is wp.vec3d and wp.mat(shape=(2, 2), dtype=float) is wp.mat22
