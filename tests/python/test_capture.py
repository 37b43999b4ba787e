"""Capture of a recorded wp.sim rollout and its tape.backward (issue 20), as Warp's optim examples
write it: on the cpu under wp.ScopedCaptureCheck (the rules of a CUDA graph capture, with the work
run eagerly), the refusals and their messages, and the deferred status report after the check; on
a GPU, wp.ScopedCapture replayed with wp.capture_launch against eager passes (skipped without one).
"""

import math

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

cuda = pytest.mark.skipif(not wp.is_cuda_available(), reason="no CUDA GPU here")
cpu = pytest.mark.skipif(not wp.is_cpu_available(), reason="this build has no cpu device (no CPU JIT)")
STEPS = 12


@wp.kernel
def capture_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    # Quadratic: a linear loss of the positions is one of the centre of mass, whose gradient no
    # internal force changes (the replay-after-an-input-change check needs one that changes).
    wp.atomic_add(loss, 0, q[i][0] * q[i][0] + 0.5 * q[i][1])


@wp.kernel
def capture_power(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), n: int):
    v = x[0]
    for j in range(n):
        v = v * x[1] + 1.0
    y[0] = v


@wp.kernel
def capture_never_launched(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0


class Rollout:
    def __init__(self, device, vx=1.0):
        builder = wp.sim.ModelBuilder(gravity=-9.81)
        builder.add_cloth_grid(pos=(0.0, 0.2, 0.0), rot=wp.quat_from_axis_angle(wp.vec3(1.0, 0.0, 0.0), -math.pi * 0.5),
                               vel=(vx, 0.0, 0.0), dim_x=6, dim_y=6, cell_x=0.05, cell_y=0.05, mass=0.1, tri_ke=1.0e4,
                               tri_ka=1.0e4, tri_kd=5.0)
        self.model = builder.finalize(device=device, requires_grad=True)
        self.model.ground = True
        self.integrator = wp.sim.SemiImplicitIntegrator()
        self.states = [self.model.state() for _ in range(STEPS + 1)]
        self.loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
        self.tape = None

    def forward_backward(self):
        self.loss.zero_()
        self.tape = wp.Tape()
        with self.tape:
            for i in range(STEPS):
                self.states[i].clear_forces()
                self.integrator.simulate(self.model, self.states[i], self.states[i + 1], 1.0 / 960.0)
            wp.launch(capture_loss, dim=self.model.particle_count, inputs=[self.states[-1].particle_q], outputs=[self.loss])
        self.tape.backward(self.loss)

    def grad(self):
        return self.states[0].particle_qd.grad.numpy().copy()


def close(got, expected, tol):
    return float(np.max(np.abs(got - expected))) <= tol


@cpu
def test_a_recorded_sim_rollout_and_its_backward_follow_the_capture_rules():
    eager = Rollout("cpu")
    eager.forward_backward()  # loads every module: a capture cannot
    expected = eager.grad()
    scale = float(np.max(np.abs(expected)))
    assert np.isfinite(scale) and scale > 0
    checked = Rollout("cpu")  # a new integrator: its scratch is made outside the capture
    with wp.ScopedCaptureCheck("cpu"):
        assert wp._weft.capturing("cpu")
        checked.forward_backward()
    assert not wp._weft.capturing("cpu")
    # The same launches; the adjoints' float atomics may add in another order across threads.
    assert close(checked.grad(), expected, 1e-6 * scale)


@cpu
def test_what_a_capture_cannot_record_is_refused_naming_it():
    x = wp.zeros(4, dtype=float, device="cpu")
    wp.launch(capture_loss, dim=1, inputs=[wp.zeros(1, dtype=wp.vec3, device="cpu")], outputs=[wp.zeros(1, dtype=float)],
              device="cpu")
    with pytest.raises(RuntimeError) as e, wp.ScopedCaptureCheck("cpu"):
        x.assign(np.ones(4, dtype=np.float32))
    assert str(e.value) == (
        "a copy from host memory into array(float32, shape=(4,), device=cpu) during a graph capture on cpu: a graph cannot "
        "record a copy from pageable host memory (it would copy whatever the buffer holds when it replays); fill or zero "
        "the array on the device, or copy from an array of the device (docs/autodiff.md, \"Capturing a backward pass\")")
    with pytest.raises(RuntimeError) as e, wp.ScopedCaptureCheck("cpu"):
        wp.launch(capture_never_launched, dim=4, inputs=[x], device="cpu")
    assert str(e.value) == (
        "the first launch of kernel 'capture_never_launched' on cpu during a graph capture on cpu: it loads the kernel's "
        "module, which a capture cannot record; launch the kernel once before capturing (docs/autodiff.md, \"Capturing a "
        "backward pass\")")
    with pytest.raises(RuntimeError) as e:
        with wp.ScopedCaptureCheck("cpu"):
            kept = wp.zeros(3, dtype=float, device="cpu")
    del kept
    assert str(e.value) == (
        "capture check on cpu: array(float32, shape=(3,), device=cpu) was allocated during the capture and is still "
        "alive at its end; a CUDA graph would hold it as a graph allocation, and the graph could not be replayed again "
        "while it lives. Allocate it before capturing")


@cpu
def test_a_captured_backward_pass_reports_a_tape_overflow_at_the_next_synchronise_naming_the_kernel():
    def arrays():
        x = wp.array([1.0, 0.5], dtype=wp.float64, device="cpu", requires_grad=True)
        y = wp.zeros(1, dtype=wp.float64, device="cpu", requires_grad=True)
        return x, y

    def pass_(x, y, n):
        tape = wp.Tape()
        with tape:
            wp.launch(capture_power, dim=1, inputs=[x, y, n], device="cpu")
        tape.backward(y)

    x, y = arrays()
    pass_(x, y, 3)  # loads the module
    x, y = arrays()
    with wp.ScopedCaptureCheck("cpu"):
        pass_(x, y, 100000)  # raises nothing inside the capture
    with pytest.raises(RuntimeError) as e:
        wp.synchronize_device("cpu")
    msg = str(e.value)
    assert msg.startswith("backward launch of kernel 'capture_power' (")
    assert "more than the 4096 bytes of its per-thread tape" in msg
    assert msg.endswith("(found after a replay of a captured backward pass)")
    wp.synchronize_device("cpu")  # reported once


@cuda
def test_a_recorded_sim_rollout_and_its_backward_replay_as_one_cuda_graph():
    eager = [Rollout("cuda:0") for _ in range(2)]
    for r in eager:
        r.forward_backward()  # the first also loads every module before the capture
    expected = eager[0].grad()
    scale = float(np.max(np.abs(expected)))
    assert np.isfinite(scale) and scale > 0
    # Atomic float adds in another order give the replays' difference; two eager passes show it.
    tol = max(1e-6 * scale, 4 * float(np.max(np.abs(eager[1].grad() - expected))))
    r = Rollout("cuda:0")
    with wp.ScopedCapture("cuda:0") as capture:
        r.forward_backward()
    for _ in range(3):
        r.tape.zero()
        wp.capture_launch(capture.graph)
        wp.synchronize_device("cuda:0")
        assert close(r.grad(), expected, tol)
    # An input changed in place: the next replay differentiates the new rollout.
    slower = Rollout("cuda:0", vx=0.25)
    slower.forward_backward()
    r.states[0].particle_qd.assign(slower.model.particle_qd.numpy())
    r.tape.zero()
    wp.capture_launch(capture.graph)
    wp.synchronize_device("cuda:0")
    assert close(r.grad(), slower.grad(), tol)
    assert not close(slower.grad(), expected, 100 * tol)
