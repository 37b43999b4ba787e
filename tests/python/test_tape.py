"""wp.Tape, wp.checkpoint and wp.autograd from Python on the CPU device, against closed-form
float64 derivatives, central finite differences and the plain tape."""
import math

import numpy as np
import pytest

import weft as wp


@wp.kernel
def square(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def sine_sum(y: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.sin(y[i]))


@wp.kernel
def scale(x: wp.array(dtype=wp.float64), s: wp.float64, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * s


@wp.kernel
def affine_loop(x0: wp.array(dtype=wp.float64), a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64),
                n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    x = x0[i]
    for _k in range(n):
        x = x * a[i] + b[i]
    out[i] = x


def f64(values, grad=True, device="cpu"):
    return wp.array(np.asarray(values, dtype=np.float64), dtype=wp.float64, device=device, requires_grad=grad)


def test_chain_gives_the_closed_form_gradient(device):
    x0 = np.array([0.3, -1.1, 2.0])
    x = f64(x0, device=device)
    y = wp.zeros(3, dtype=wp.float64, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=3, inputs=[x], outputs=[y], device=device)
        wp.launch(sine_sum, dim=3, inputs=[y], outputs=[loss], device=device)
    assert len(tape.launches) == 2
    tape.backward(loss)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x0 ** 2) * 2 * x0, rtol=1e-13)
    # tape.gradients is keyed by the user's arrays.
    assert set(map(id, tape.gradients)) == {id(x), id(y), id(loss)}
    np.testing.assert_array_equal(tape.gradients[x].numpy(), x.grad.numpy())
    tape.zero()
    assert not x.grad.numpy().any()
    tape.backward(grads={loss: np.array([2.0])})
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(x0 ** 2) * 2 * x0, rtol=1e-13)
    tape.reset()
    assert tape.launches == []


def test_dynamic_loop_carried_value_is_exact(device):
    # x_{k+1} = a x_k + b, n times: x_n = a^n x0 + b (a^n - 1) / (a - 1).
    n = 7
    x0, a, b = f64([0.5, -0.3]), f64([1.1, 0.9]), f64([0.2, -0.4])
    out = wp.zeros(2, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(affine_loop, dim=2, inputs=[x0, a, b, n], outputs=[out], device=device)
    tape.backward(grads={out: np.ones(2)})
    A, B, X = a.numpy(), b.numpy(), x0.numpy()
    np.testing.assert_allclose(x0.grad.numpy(), A ** n, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), (A ** n - 1) / (A - 1), rtol=1e-12)
    dxa = n * A ** (n - 1) * X + B * (n * A ** (n - 1) * (A - 1) - (A ** n - 1)) / (A - 1) ** 2
    np.testing.assert_allclose(a.grad.numpy(), dxa, rtol=1e-12)


def test_overwrite_after_read_is_an_error_naming_both_launches(device):
    x = f64([0.5, 0.25], device=device)
    y = wp.zeros(2, dtype=wp.float64, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=2, inputs=[x], outputs=[y], device=device)
        wp.launch(scale, dim=2, inputs=[y, 3.0], outputs=[x], device=device)  # overwrites x, which square read
        wp.launch(sine_sum, dim=2, inputs=[x], outputs=[loss], device=device)
    assert "was read by launch of kernel 'square'" in tape.check()
    with pytest.raises(RuntimeError, match=r"was read by launch of kernel 'square' \(.*test_tape.py:\d+\) \(argument 'x', "
                                           r"record 0\) and then overwritten by launch of kernel 'scale'"):
        tape.backward(loss)
    assert "color=red" in tape.visualize()


def test_writes_outside_the_tape_are_refused(device):
    """assign() after the recording, or a launch outside the `with` block, once gave wrong gradients
    silently; the tape's version check names the array, the reading launch and the writer."""
    x = f64([0.5, 0.25], device=device)
    y = wp.zeros(2, dtype=wp.float64, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=2, inputs=[x], outputs=[y], device=device)
        wp.launch(sine_sum, dim=2, inputs=[y], outputs=[loss], device=device)
    x.assign(np.array([3.0, 4.0]))
    with pytest.raises(RuntimeError, match=r"was read by launch of kernel 'square' \(.*\) \(argument 'x', record 0\) and "
                                           r"then overwritten outside the tape by copy from host, after record 0"):
        tape.backward(loss)
    assert x.grad.numpy().tolist() == [0.0, 0.0]

    x2 = f64([0.5, 0.25], device=device)
    y2 = wp.zeros(2, dtype=wp.float64, device=device, requires_grad=True)
    loss2 = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape2:
        wp.launch(square, dim=2, inputs=[x2], outputs=[y2], device=device)
    wp.launch(scale, dim=2, inputs=[y2, 2.0], outputs=[x2], device=device)  # not recorded
    with tape2:
        wp.launch(sine_sum, dim=2, inputs=[x2], outputs=[loss2], device=device)
    with pytest.raises(RuntimeError, match=r"overwritten outside the tape by launch of kernel 'scale', before record 1"):
        tape2.backward(loss2)


def test_loss_not_on_the_tape_is_refused(device):
    x = f64([0.5, 0.25], device=device)
    y = wp.zeros(2, dtype=wp.float64, device=device, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, device=device, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=2, inputs=[x], outputs=[y], device=device)
    wp.launch(sine_sum, dim=2, inputs=[y], outputs=[loss], device=device)
    with pytest.raises(RuntimeError, match=r"the loss array\(float64, shape=\(1,\), device=.*\) was not written by any "
                                           r"record of this tape \(1 records\): its gradient would reach nothing"):
        tape.backward(loss)


def test_adjoint_launch_with_explicit_gradient_arrays(device):
    x = f64([1.0, -2.0], grad=False, device=device)
    y = wp.zeros(2, dtype=wp.float64, device=device)
    wp.launch(scale, dim=2, inputs=[x, 4.0], outputs=[y], device=device)
    gx = wp.zeros(2, dtype=wp.float64, device=device)
    gs = wp.zeros(1, dtype=wp.float64, device=device)
    gy = wp.array(np.array([1.0, 10.0]), dtype=wp.float64, device=device)
    wp.launch(scale, dim=2, inputs=[x, 4.0], outputs=[y], adj_inputs=[gx, gs], adj_outputs=[gy], adjoint=True, device=device)
    np.testing.assert_array_equal(gx.numpy(), [4.0, 40.0])
    np.testing.assert_array_equal(gs.numpy(), [1.0 - 20.0])
    with pytest.raises(RuntimeError, match=r"adj_inputs and adj_outputs have 1 entries; expected 3"):
        wp.launch(scale, dim=2, inputs=[x, 4.0], outputs=[y], adj_inputs=[gx], adjoint=True, device=device)


def test_backward_errors(device):
    tape = wp.Tape()
    x = f64([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"the loss must be one float element"):
        tape.backward(x)
    with pytest.raises(RuntimeError, match=r"the loss must be a wp.array, got float"):
        tape.backward(1.0)


def test_backward_without_a_loss_uses_the_gradients_set_by_hand(device):
    """As in Warp: tape.backward() with no loss and no grads runs the adjoints from whatever the
    output arrays' gradients hold (here y.grad = [1, 10]): x.grad = 2 x y.grad."""
    x = f64([1.5, -2.0], device=device)
    y = wp.zeros(2, dtype=wp.float64, requires_grad=True, device=device)
    with wp.Tape() as tape:
        wp.launch(square, dim=2, inputs=[x], outputs=[y], device=device)
    y.grad.assign(np.array([1.0, 10.0]))
    tape.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, -40.0])
    # with nothing seeded the adjoints give zeros
    tape.zero()
    tape.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


def test_visualize_writes_dot(tmp_path, device):
    x = f64([1.0])
    y = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(square, dim=1, inputs=[x], outputs=[y], device=device)
    path = tmp_path / "tape.dot"
    tape.visualize(str(path))
    text = path.read_text()
    assert text.startswith("digraph tape {")
    assert "launch of kernel 'square'" in text


# ---- checkpointing ------------------------------------------------------------------------------

@wp.kernel
def spring_step(x: wp.array(dtype=wp.float64), v: wp.array(dtype=wp.float64), k: wp.array(dtype=wp.float64),
                x1: wp.array(dtype=wp.float64), v1: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v1[i] = v[i] + 0.01 * (-k[i] * x[i] - 0.1 * v[i])
    x1[i] = x[i] + 0.01 * v1[i]


@wp.kernel
def sq_sum(x: wp.array(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i] * x[i])


class State:
    def __init__(self, n):
        self.particle_q = wp.zeros(n, dtype=wp.float64, requires_grad=True)
        self.particle_qd = wp.zeros(n, dtype=wp.float64, requires_grad=True)
        self.label = "not an array"


def _spring_rollout(steps, use_checkpoint, n=16):
    k = f64(2.0 + 0.1 * np.arange(n))
    s0 = State(n)
    s0.particle_q.assign(np.sin(np.arange(n)))
    s0.particle_qd.assign(0.1 * np.cos(np.arange(n)))
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)

    def step(a, b):
        wp.launch(spring_step, dim=n, inputs=[a.particle_q, a.particle_qd, k], outputs=[b.particle_q, b.particle_qd])

    with wp.Tape() as tape:
        if use_checkpoint:
            end = State(n)
            seg, saved = wp.checkpoint(step, steps, s0, end)
            assert seg == math.ceil(math.sqrt(steps)) and saved == math.ceil(steps / seg)
        else:
            states = [s0]
            for _ in range(steps):
                states.append(State(n))
                step(states[-2], states[-1])
            end = states[-1]
        wp.launch(sq_sum, dim=n, inputs=[end.particle_q], outputs=[loss])
    tape.backward(loss)
    return loss.numpy()[0], s0.particle_q.grad.numpy(), s0.particle_qd.grad.numpy(), k.grad.numpy()


def test_checkpoint_equals_the_plain_tape():
    full = _spring_rollout(30, False)
    ck = _spring_rollout(30, True)
    assert ck[0] == pytest.approx(full[0], rel=1e-12)
    for a, b in zip(ck[1:], full[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-12)


def test_checkpoint_with_list_states_and_step_index():
    n = 4
    x0 = f64([1.0, 2.0, 3.0, 4.0])
    out = [wp.zeros(n, dtype=wp.float64, requires_grad=True)]
    seen = []

    def step(a, b, k):
        seen.append(k)
        wp.launch(scale, dim=n, inputs=[a[0], 1.5], outputs=[b[0]])

    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    with wp.Tape() as tape:
        wp.checkpoint(step, 5, [x0], out, segment=2)
        wp.launch(sq_sum, dim=n, inputs=[out[0]], outputs=[loss])
    tape.backward(loss)
    assert seen[:5] == [0, 1, 2, 3, 4]  # the forward pass; backward recomputes 4, 2, 3, 0, 1
    np.testing.assert_allclose(out[0].numpy(), x0.numpy() * 1.5 ** 5)
    np.testing.assert_allclose(x0.grad.numpy(), 2 * x0.numpy() * 1.5 ** 10, rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"checkpoint: state_in\[0\] is a float, not a wp.array"):
        wp.checkpoint(step, 2, [1.0], out)


# ---- gradcheck and Jacobians --------------------------------------------------------------------

@wp.func
def cube(v: wp.float64) -> wp.float64:
    return v * v * v


@wp.func_grad(cube)
def cube_grad(v: wp.float64, adj_ret: wp.float64) -> wp.float64:
    return 2.0 * v * v * adj_ret  # wrong on purpose: d v^3 = 3 v^2


@wp.kernel
def wrong_cube(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = cube(x[i])


@wp.kernel
def mix(x: wp.array(dtype=wp.vec3d), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = w[i] * wp.dot(x[i], x[i]) + wp.sin(x[i][1])


def test_gradcheck_passes_and_jacobian_matches_closed_form(capsys):
    xv = np.array([[0.1, 0.2, 0.3], [1.0, -0.5, 2.0]])
    x = wp.array(xv, dtype=wp.vec3d)
    w = f64([2.0, -1.0], grad=False)
    y = wp.zeros(2, dtype=wp.float64)
    assert wp.autograd.gradcheck(mix, dim=2, inputs=[x, w], outputs=[y], eps=1e-6, atol=1e-7, rtol=1e-6)
    assert "x -> y" in capsys.readouterr().out
    jac = wp.autograd.jacobian(mix, dim=2, inputs=[x, w], outputs=[y])
    jx = jac[(0, 0)]
    assert jx.shape == (2, 6)
    expect = np.zeros((2, 6))
    for i in range(2):
        expect[i, 3 * i:3 * i + 3] = 2 * w.numpy()[i] * xv[i]
        expect[i, 3 * i + 1] += np.cos(xv[i, 1])
    np.testing.assert_allclose(jx, expect, rtol=1e-14)
    np.testing.assert_allclose(jac[(1, 0)], np.diag((xv ** 2).sum(axis=1)), rtol=1e-14)
    fd = wp.autograd.jacobian_fd(mix, dim=2, inputs=[x, w], outputs=[y], eps=1e-6)
    np.testing.assert_allclose(fd[(0, 0)], expect, atol=1e-8)


def test_gradcheck_reports_a_wrong_custom_gradient():
    x = f64([1.0, 2.0], grad=False)
    y = wp.zeros(2, dtype=wp.float64)
    with pytest.raises(ValueError, match=r"d y\[1\] / d x\[1\]: adjoint 8, finite difference 12"):
        wp.autograd.gradcheck(wrong_cube, dim=2, inputs=[x], outputs=[y], show_summary=False)
    assert not wp.autograd.gradcheck(wrong_cube, dim=2, inputs=[x], outputs=[y], raise_exception=False,
                                     show_summary=False)


def test_tape_scopes_must_nest():
    t1, t2 = wp.Tape(), wp.Tape()
    with t1:
        with pytest.raises(RuntimeError, match=r"this tape is already recording \(nested `with` on the same tape\)"):
            t1.__enter__()
    t1.__enter__()
    t2.__enter__()
    with pytest.raises(RuntimeError, match=r"tapes must be closed in the reverse order they were opened"):
        t1.__exit__(None, None, None)
    t2.__exit__(None, None, None)
    t1.__exit__(None, None, None)


def test_backward_takes_a_loss_and_seeds_together_as_warp_does():
    """Warp's tape.backward(loss=z, grads={y: seed}): both seeded, one pass: x.grad = dz/dx + seed . dy/dx."""

    @wp.kernel
    def outputs(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 3.0 * x[i]
        wp.atomic_add(z, 0, x[i] * x[i])

    def grads():
        x = wp.array(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
        y = wp.zeros(2, dtype=float, requires_grad=True)
        z = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(outputs, dim=2, inputs=[x, y, z])
        seed = {y: wp.array(np.array([1.0, 10.0], dtype=np.float32))}
        tape.backward(loss=z, grads=seed)
        return x.grad.numpy()

    np.testing.assert_allclose(grads(), [2.0 * 1.0 + 3.0, 2.0 * 2.0 + 30.0])
    with pytest.raises(RuntimeError, match="the loss must be a wp.array, got list"):
        wp.Tape().backward(loss=[1.0], grads={})
