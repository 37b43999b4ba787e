"""wp.testing (assert_gradients_close, goldens) and its pytest fixture gradient_golden, and
wp.autograd.gradcheck on Python functions: a wrong custom adjoint is caught, a golden that moved
fails with a readable diff, goldens are written only on request, every error message."""
import os
import subprocess
import sys

import numpy as np
import pytest

import weft as wp


@wp.func
def cube(v: float) -> float:
    return v * v * v


@wp.func
def bad_cube(v: float) -> float:
    return v * v * v


@wp.func_grad(bad_cube)
def bad_cube_grad(v: float, adj_ret: float) -> float:
    return 2.0 * v * v * adj_ret  # wrong on purpose: d v^3 = 3 v^2


@wp.kernel
def energy(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, cube(x[i]) * w[i])


@wp.kernel
def bad_energy(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, bad_cube(x[i]) * w[i])


X = [0.5, -1.0, 1.5, 2.0]
W = [1.0, 0.5, -2.0, 0.25]


def params():
    return {"x": wp.array(np.array(X, dtype=np.float32), requires_grad=True),
            "w": wp.array(np.array(W, dtype=np.float32), requires_grad=True)}


def loss_fn(kernel):
    def fn(x, w):
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        wp.launch(kernel, dim=4, inputs=[x, w, loss])
        return loss
    return fn


# d/dx_i = 3 x_i^2 w_i, d/dw_i = x_i^3
ANALYTIC = {"x": [3 * x * x * w for x, w in zip(X, W)], "w": [x ** 3 for x in X]}


def test_right_gradients_pass_against_finite_differences_and_the_analytic_golden():
    r = wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=ANALYTIC)
    assert r.passed
    assert r.loss == pytest.approx(sum(x ** 3 * w for x, w in zip(X, W)), rel=1e-6)
    np.testing.assert_allclose(r.gradients["x"], ANALYTIC["x"], rtol=1e-6)
    assert len(r.entries) == 8  # small parameters: every entry
    assert "d loss / d x: 4 of 4 entries checked" in r.table


def test_wrong_custom_adjoint_is_caught():
    with pytest.raises(AssertionError) as e:
        wp.testing.assert_gradients_close(loss_fn(bad_energy), params())
    msg = str(e.value)
    assert msg.startswith("the gradients disagree with central finite differences:\n")
    assert "d loss / d x: 4 of 4 entries checked" in msg and "4 disagree" in msg
    assert "<- disagrees" in msg
    assert "d loss / d w: 4 of 4 entries checked, max rel error" in msg


def test_golden_that_moved_fails_with_a_diff_table():
    moved = dict(ANALYTIC, w=[0.125, -1.0, 3.375, 8.5])
    with pytest.raises(AssertionError) as e:
        wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=moved)
    msg = str(e.value)
    assert "golden: 1 value moved beyond rtol 0.0001:" in msg
    assert "w[3]" in msg and "8.5" in msg
    assert msg.endswith("if the change is intended, pass update=True")
    with pytest.raises(AssertionError, match="the golden file has no gradient for 'w'"):
        wp.testing.assert_gradients_close(loss_fn(energy), params(), golden={"x": ANALYTIC["x"]})
    with pytest.raises(AssertionError, match="golden: 1 value moved"):
        wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=dict(ANALYTIC, loss=3.0))


def test_golden_file_written_only_on_request(tmp_path, capsys):
    path = tmp_path / "energy.npz"
    with pytest.raises(AssertionError) as e:
        wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=path)
    assert str(e.value) == (f"no golden gradient file {path}; write it once on purpose (update=True, or pytest "
                            "--weft-update-goldens with the gradient_golden fixture)")
    assert not path.exists()
    with pytest.raises(AssertionError, match="not written: the check failed"):
        wp.testing.assert_gradients_close(loss_fn(bad_energy), params(), golden=path, update=True)
    assert not path.exists()
    wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=path, update=True)
    out = capsys.readouterr().out
    assert out.startswith(f"golden {path}: created\n  new: loss = ")
    assert "  new: d loss / d x (4 entries)\n" in out
    assert sorted(os.listdir(tmp_path)) == ["energy.npz"]  # no .tmp left
    # the format of `weft gradcheck --golden`: "loss" (float64 scalar) and a float64 vector per name
    with np.load(path) as d:
        assert sorted(d.files) == ["loss", "w", "x"]
        assert d["loss"].shape == () and d["x"].dtype == np.float64
        np.testing.assert_allclose(d["w"], ANALYTIC["w"], rtol=1e-6)
    wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=str(path))
    loss, grads = wp.testing.read_golden(path)
    wp.testing.write_golden(path, loss, dict(grads, x=grads["x"] * 1.01))
    with pytest.raises(AssertionError) as e:
        wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=path)
    assert "golden: 4 values moved beyond rtol 0.0001:" in str(e.value)
    assert str(e.value).endswith("run pytest with --weft-update-goldens (or pass update=True) to accept the new values")
    wp.testing.assert_gradients_close(loss_fn(energy), params(), golden=path, update=True)
    assert "  changed: d loss / d x: 4 of 4 entries (largest relative change 0.00990099)\n" in capsys.readouterr().out


def test_autograd_gradcheck_takes_python_functions(capsys):
    p = params()
    assert wp.autograd.gradcheck(loss_fn(energy), inputs=[p["x"], p["w"]], eps=1e-3)
    assert "d loss / d inputs[0]: 4 of 4 entries checked" in capsys.readouterr().out
    p = params()
    with pytest.raises(ValueError, match="4 disagree"):
        wp.autograd.gradcheck(loss_fn(bad_energy), inputs=[p["x"], p["w"]], eps=1e-3, show_summary=False)
    p = params()
    assert not wp.autograd.gradcheck(loss_fn(bad_energy), inputs=[p["x"], p["w"]], eps=1e-3, show_summary=False,
                                     raise_exception=False)


def test_error_messages():
    p = params()
    x = wp.array(np.array(X, dtype=np.float32))
    with pytest.raises(ValueError, match=r"^gradient check: x has requires_grad=False, so the tape gives it no gradient$"):
        wp.testing.assert_gradients_close(loss_fn(energy), {"x": x, "w": p["w"]})
    with pytest.raises(TypeError, match=r"^gradient check: params\[0\] must be a wp.array, got list$"):
        wp.testing.assert_gradients_close(loss_fn(energy), [X])
    with pytest.raises(TypeError, match=r"^gradient check: the function must return its loss as a one-element wp.array, "
                                        r"got an array of 4 elements$"):
        wp.testing.assert_gradients_close(lambda x, w: x, params())
    with pytest.raises(TypeError, match=r"^gradient check: the function must return its loss as a one-element wp.array, got float$"):
        wp.testing.assert_gradients_close(lambda x, w: 1.0, params())
    with pytest.raises(TypeError, match=r"^gradcheck: expected a kernel or a Python function, got int$"):
        wp.autograd.gradcheck(3, inputs=[])
    with pytest.raises(TypeError, match=r"^gradcheck of a kernel needs dim, inputs and outputs$"):
        wp.autograd.gradcheck(energy, inputs=[])


FIXTURE_TEST = '''
import numpy as np
import weft as wp
from test_testing import loss_fn, energy, params

def test_energy(gradient_golden):
    gradient_golden.check(loss_fn(energy), params())
'''


def test_fixture_stores_goldens_next_to_the_test_file_only_with_the_flag(tmp_path):
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["weft.pytest_plugin"]\n')
    (tmp_path / "test_user.py").write_text(FIXTURE_TEST)
    package = os.path.dirname(os.path.dirname(os.path.abspath(wp.__file__)))  # the weft package under test
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.abspath(__file__)), package]))

    def pytest_run(*flags):
        r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path / "test_user.py"),
                            *flags], capture_output=True, text=True, env=env, cwd=tmp_path)
        return r.returncode, r.stdout + r.stderr

    golden = tmp_path / "test_user.goldens" / "test_energy.npz"
    rc, out = pytest_run()
    assert rc == 1, out
    assert f"no golden gradient file {golden}; write it once on purpose" in out
    assert not golden.exists()
    rc, out = pytest_run("--weft-update-goldens", "-s")
    assert rc == 0, out
    assert f"golden {golden}: created" in out
    assert golden.exists()
    rc, out = pytest_run()
    assert rc == 0, out
    loss, grads = wp.testing.read_golden(golden)
    wp.testing.write_golden(golden, loss * 2, grads)
    rc, out = pytest_run()
    assert rc == 1, out
    assert "golden: 1 value moved beyond rtol 0.0001:" in out and "loss" in out
    assert "run pytest with --weft-update-goldens (or pass update=True) to accept the new values" in out
