"""Names of the weft module used without `wp.` in kernels (issue 19), as Warp resolves them: a
name that is no local, global or Python builtin is looked up in the module (types, builtins,
constants). Locals and globals still come first; an unknown name is still an error naming it."""
import math

import numpy as np
import pytest

import weft as wp


@wp.kernel
def bare_names(out: wp.array(dtype=float), v: wp.vec3):
    a = vec3(1.0, 2.0, 3.0)  # noqa: F821
    out[0] = dot(a, v) + pi  # noqa: F821
    out[1] = length(vec2(3.0, 4.0))  # noqa: F821
    expect_eq(a[1], 2.0)  # noqa: F821


def test_bare_types_builtins_and_constants(device):
    out = wp.zeros(2, dtype=float, device=device)
    wp.launch(bare_names, dim=1, inputs=[out, wp.vec3(0.5, -1.0, 2.0)], device=device)
    np.testing.assert_allclose(out.numpy(), [0.5 - 2.0 + 6.0 + math.pi, 5.0], rtol=1e-6)




@wp.kernel
def local_wins(out: wp.array(dtype=float)):
    pi = 3.0
    out[0] = pi


def test_locals_win_and_unknown_names_are_errors(device):
    out = wp.zeros(1, dtype=float, device=device)
    wp.launch(local_wins, dim=1, inputs=[out], device=device)
    assert out.numpy()[0] == 3.0
    src = "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = lenght(a)\n"
    with pytest.raises(wp.CompileError, match="use of undeclared name 'lenght'"):
        wp._weft.Module.compile([("bare_names_err.py", src, 0)], "bare_err")


@wp.kernel
def generic_ctors(x: wp.array(dtype=wp.float64), q_out: wp.array(dtype=wp.quatd), t_out: wp.array(dtype=wp.transformd),
                  qf_out: wp.array(dtype=wp.quatf)):
    q_out[0] = wp.quaternion(x[0], x[1], x[2], x[3])  # float64 from the arguments
    q_out[1] = wp.quaternion(wp.vec3d(x[0], x[1], x[2]), x[3])
    t_out[0] = wp.transformation(wp.vec3d(x[0], x[1], x[2]), q_out[0])
    qf_out[0] = wp.quaternion(1.0, 2.0, 3.0, 4.0, dtype=float)  # literals: float32 unless dtype= says
    qf_out[1] = wp.quaternion(q_out[0], dtype=wp.float32)  # a precision cast


def test_generic_quaternion_and_transformation_constructors(device):
    xv = np.array([0.5, -1.25, 2.0, 0.75])
    x = wp.array(xv, dtype=wp.float64, device=device)
    q = wp.zeros(2, dtype=wp.quatd, device=device)
    t = wp.zeros(1, dtype=wp.transformd, device=device)
    qf = wp.zeros(2, dtype=wp.quatf, device=device)
    wp.launch(generic_ctors, dim=1, inputs=[x, q, t, qf], device=device)
    np.testing.assert_array_equal(q.numpy(), [xv, xv])
    np.testing.assert_array_equal(t.numpy()[0], np.concatenate([xv[:3], xv]))
    np.testing.assert_array_equal(qf.numpy(), [[1.0, 2.0, 3.0, 4.0], xv.astype(np.float32)])


def test_generic_constructor_keywords_are_checked():
    src = ("import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=wp.quat)):\n"
           "    a[0] = wp.quaternion(1.0, 2.0, 3.0, 4.0, dtyp=float)\n")
    with pytest.raises(wp.CompileError, match="dtyp"):
        wp._weft.Module.compile([("generic_ctor_err.py", src, 0)], "generic_err")
