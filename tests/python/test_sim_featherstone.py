"""wp.sim.FeatherstoneIntegrator (engine/featherstone.h) from Python under Warp's name: a hinged
box's period against the physical pendulum formula (the state's joint_q is what advances, body_q
follows), the cart-pole example's Tape gradient against central differences and its swing-up in
reduced coordinates, and the keywords that are refused by name."""
import math
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

G = 9.80665


@pytest.mark.parametrize("integrator", ["euler", "rk4"])
def test_hinged_box_swings_with_the_physical_pendulum_period(integrator):
    L, h, theta0, dt = 0.8, 0.1, 0.05, 1.0e-3
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    b.add_shape_box(body=body, hx=h, hy=h, hz=h)
    b.add_joint_revolute(-1, body, child_xform=((0.0, L, 0.0), (0.0, 0.0, 0.0, 1.0)), axis=(0.0, 0.0, 1.0), armature=0.0)
    b.joint_q[0] = theta0
    model = b.finalize(device="cpu")
    model.ground = False
    it = wp.sim.FeatherstoneIntegrator(model, integrator=integrator)
    assert it.name == "featherstone" and "joint_q" in it.state_writes
    s0, s1 = model.state(), model.state()
    mass = 1000.0 * (2 * h) ** 3
    T = 2 * math.pi * math.sqrt((mass * (2 * h) ** 2 / 6 + mass * L * L) / (mass * G * L)) * (1 + theta0 ** 2 / 16)
    crossings, prev = [], theta0
    for k in range(int(3.5 * T / dt)):
        it.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
        q = float(s0.joint_q.numpy()[0])
        if prev > 0.0 >= q:
            crossings.append(dt * (k + prev / (prev - q)))
        prev = q
    assert len(crossings) >= 3
    assert (crossings[-1] - crossings[0]) / (len(crossings) - 1) == pytest.approx(T, rel=0.005)
    # body_q follows joint_q: the box's centre L below the pivot, turned by q about z
    x = s0.body_q.numpy()[0]
    assert x[0] == pytest.approx(L * math.sin(q), abs=1e-4)
    assert x[1] == pytest.approx(-L * math.cos(q), abs=1e-4)


def test_cartpole_gradient_matches_finite_differences_and_swings_up():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
    import sim_cartpole

    sim = sim_cartpole.CartPole("cpu", integrator="featherstone")
    u = np.array(sim_cartpole.initial_forces())
    loss, grad = sim.loss_and_gradient(u)
    for k in (3, 12):
        eps = 0.05
        hi, lo = u.copy(), u.copy()
        hi[k] += eps
        lo[k] -= eps
        sim.set_forces(hi)
        f_hi = sim.forward()
        sim.set_forces(lo)
        f_lo = sim.forward()
        assert grad[k] == pytest.approx((f_hi - f_lo) / (2 * eps), rel=0.02)
    u, losses, sim = sim_cartpole.optimise(device="cpu", integrator="featherstone")
    assert losses[-1] < 0.05 * losses[0]
    sim.set_forces(u)
    sim.forward()
    assert sim.tip_height() > 0.15  # from hanging (-0.5 m) to above the cart


def test_keywords_weft_does_not_simulate_are_refused_by_name():
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    b.add_shape_sphere(body=body, radius=0.1)
    b.add_joint_free(body)
    model = b.finalize(device="cpu")
    with pytest.raises(TypeError, match="friction_smoothing"):
        wp.sim.FeatherstoneIntegrator(model, friction_smoothing=1.0)
    wp.sim.FeatherstoneIntegrator(model, use_tile_gemm=False, fuse_cholesky=False)  # Warp's kernel choices: one result
    with pytest.raises(TypeError, match="use_tile_gemm must be a bool"):
        wp.sim.FeatherstoneIntegrator(model, use_tile_gemm="yes")
    with pytest.raises(ValueError, match="update_mass_matrix_every=2 is not simulated"):
        wp.sim.FeatherstoneIntegrator(model, update_mass_matrix_every=2)
    with pytest.raises(ValueError, match="integrator='rk3'"):
        wp.sim.FeatherstoneIntegrator(model, integrator="rk3")
    with pytest.raises(RuntimeError, match="has no option 'rk5'"):
        wp.sim.Integrator("featherstone", rk5=1)


def test_builder_joint_act_and_axis_modes_write_through_as_warps_lists():
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    b.add_shape_sphere(body=body, radius=0.1)
    b.add_joint_revolute(-1, body, axis=(0.0, 0.0, 1.0))
    b.add_joint_prismatic(-1, b.add_body(), axis=(1.0, 0.0, 0.0))
    b.joint_act[-2:] = [0.3, -0.2]  # Warp's example_quadruped writes them this way
    b.joint_axis_mode = [wp.sim.JOINT_MODE_TARGET_POSITION] * len(b.joint_axis_mode)
    b.joint_axis_mode[1] = wp.sim.JOINT_MODE_TARGET_VELOCITY
    model = b.finalize(device="cpu")
    assert model.joint_act.numpy().tolist() == pytest.approx([0.3, -0.2])
    assert model.joint_axis_mode.numpy().tolist() == [wp.sim.JOINT_MODE_TARGET_POSITION, wp.sim.JOINT_MODE_TARGET_VELOCITY]
    with pytest.raises(ValueError, match=r"joint_axis_mode\[0\] = 7: a joint axis mode is"):
        b.joint_axis_mode = [7, 0]
    with pytest.raises(ValueError, match="1 modes for 2 axis slots"):
        b.joint_axis_mode = [0]
    with pytest.raises(ValueError, match=r"joint_act\[0:3\] = ...: 3 values for 2 entries"):
        b.joint_act[0:3] = [1.0, 2.0, 3.0]
