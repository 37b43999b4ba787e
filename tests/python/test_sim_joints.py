"""Joints from Python under Warp's warp.sim names: add_joint_revolute/prismatic/ball/fixed/free
with Warp's keywords (every one simulated or refused by name), a hinged pendulum's period against
the physical pendulum formula, a position drive set through Control.joint_act against Hooke's law,
and the Model's joint arrays."""
import math

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

G = 9.80665


def swing_period(builder, dt, steps):
    model = builder.finalize(device="cpu")
    model.ground = False
    it = wp.sim.SemiImplicitIntegrator(angular_damping=0.0)
    s0, s1 = model.state(), model.state()
    prev = s0.body_q.numpy()[0][0]
    for k in range(steps):
        it.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
        x = s0.body_q.numpy()[0][0]
        if prev < 0.0 <= x:
            return dt * (k + (-prev) / (x - prev)) / 0.75  # the first upward crossing is at 3T/4
        prev = x
    return None


def test_hinged_pendulum_has_the_physical_pendulum_period():
    L, h, theta0 = 0.8, 0.1, 0.05
    b = wp.sim.ModelBuilder()
    b.joint_attach_ke = 1.0e5
    c = (L * math.sin(theta0), -L * math.cos(theta0), 0.0)
    rot = (0.0, 0.0, math.sin(theta0 / 2), math.cos(theta0 / 2))
    body = b.add_body(origin=(c, rot))
    b.add_shape_box(body=body, hx=h, hy=h, hz=h)
    j = b.add_joint_revolute(-1, body, parent_xform=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
                             child_xform=((0.0, L, 0.0), (0.0, 0.0, 0.0, 1.0)), axis=(0.0, 0.0, 1.0))
    assert j == 0 and b.joint_count == 1
    mass = 1000.0 * (2 * h) ** 3
    T = 2 * math.pi * math.sqrt((mass * (2 * h) ** 2 / 6 + mass * L * L) / (mass * G * L)) * (1 + theta0 ** 2 / 16)
    measured = swing_period(b, 2.0e-4, 8000)
    assert measured == pytest.approx(T, rel=0.005)


def test_position_drive_through_control_joint_act():
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    b.add_shape_sphere(body=body, radius=0.1)
    b.add_joint_prismatic(-1, body, axis=(0.0, 1.0, 0.0), target=0.0, target_ke=2000.0, target_kd=100.0,
                          mode=wp.sim.JOINT_MODE_TARGET_POSITION)
    model = b.finalize(device="cpu")
    model.ground = False
    assert model.joint_count == 1
    assert model.joint_type.numpy().tolist() == [wp.sim.JOINT_PRISMATIC]
    assert model.joint_limit_lower.numpy()[0] == pytest.approx(-1.0e4)
    control = model.control()
    control.joint_act.assign(np.array([0.25], dtype=np.float32))  # the target moves to 0.25 m
    it = wp.sim.SemiImplicitIntegrator()
    s0, s1 = model.state(), model.state()
    for _ in range(6000):
        it.simulate(model, s0, s1, 5.0e-4, control)
        s0, s1 = s1, s0
    mass = 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3
    assert s0.body_q.numpy()[0][1] == pytest.approx(0.25 - mass * G / 2000.0, abs=1e-3)


def test_joint_keywords_are_simulated_or_refused():
    b = wp.sim.ModelBuilder()
    a = b.add_body()
    c = b.add_body()
    with pytest.raises(TypeError, match="axs"):
        b.add_joint_revolute(a, c, axs=(0.0, 0.0, 1.0))
    with pytest.raises(wp.sim.BuildError, match="add_joint_ball: linear_compliance must be a finite number, got nan"):
        b.add_joint_ball(a, c, linear_compliance=float("nan"))
    with pytest.raises(wp.sim.BuildError, match="enabled=False is not supported"):
        b.add_joint_fixed(a, c, enabled=False)
    with pytest.raises(wp.sim.BuildError, match="add_joint_revolute: limit_lower \\(1\\) is above limit_upper \\(0\\)"):
        b.add_joint_revolute(a, c, limit_lower=1.0, limit_upper=0.0)
    with pytest.raises(wp.sim.BuildError, match="add_joint_prismatic: child body 9 is out of range"):
        b.add_joint_prismatic(a, 9)
    with pytest.raises(wp.sim.BuildError, match="target must be a finite number"):
        b.add_joint_revolute(a, c, target=float("nan"))
    assert b.add_joint_free(c) == 0
    assert b.joint_count == 1


def test_builder_joint_q_writes_through_and_eval_fk_ik_round_trip():
    b = wp.sim.ModelBuilder()
    b.add_articulation()
    parent = -1
    for k in range(2):
        body = b.add_body(origin=((0.3 * k, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
        b.add_shape_box(body=body, hx=0.15, hy=0.03, hz=0.03)
        b.add_joint_revolute(parent, body, parent_xform=((0.15 if parent >= 0 else 0.0, 1.0 if parent < 0 else 0.0, 0.0),
                                                         (0.0, 0.0, 0.0, 1.0)),
                             child_xform=((-0.15, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), axis=(0.0, 0.0, 1.0))
        parent = body
    b.joint_q[0] = 0.4          # item assignment reaches the builder (a copy would drop it)
    b.joint_q[1:2] = [-0.9]
    assert list(b.joint_q) == pytest.approx([0.4, -0.9])
    with pytest.raises(ValueError, match="1 values for 2 entries"):
        b.joint_q[0:2] = [1.0]
    model = b.finalize(device="cpu")
    assert (model.joint_coord_count, model.joint_dof_count, model.articulation_count) == (2, 2, 1)
    state = model.state()
    wp.sim.eval_fk(model, model.joint_q, model.joint_qd, None, state)
    q = state.body_q.numpy()
    # The first link turned by 0.4 about the pivot at (0, 1, 0): its centre at 0.15 (cos, sin).
    assert q[0][:2] == pytest.approx([0.15 * math.cos(0.4), 1.0 + 0.15 * math.sin(0.4)], abs=1e-6)
    joint_q = wp.zeros(2, dtype=float)
    joint_qd = wp.zeros(2, dtype=float)
    wp.sim.eval_ik(model, state, joint_q, joint_qd)
    assert joint_q.numpy() == pytest.approx([0.4, -0.9], abs=1e-6)


def test_cartpole_gradient_matches_finite_differences_and_swings_up():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
    import sim_cartpole

    sim = sim_cartpole.CartPole("cpu")
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
        assert grad[k] == pytest.approx((f_hi - f_lo) / (2 * eps), rel=0.05)
    u, losses, sim = sim_cartpole.optimise(device="cpu")
    assert losses[-1] < 0.05 * losses[0]
    sim.set_forces(u)
    sim.forward()
    assert sim.tip_height() > 0.15  # from hanging (-0.5 m) to above the cart


def test_add_builder_makes_separate_worlds_with_warps_keywords():
    one = wp.sim.ModelBuilder()
    body = one.add_body(origin=((0.3, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    one.add_shape_box(body=body, hx=0.1, hy=0.1, hz=0.1)
    one.add_joint_revolute(-1, body, parent_xform=((0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
                           child_xform=((-0.3, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)), axis=(0.0, 0.0, 1.0))
    batch = wp.sim.ModelBuilder()
    for k in range(3):
        batch.add_builder(one, xform=((2.0 * k, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    batch.add_builder(one, xform=((0.0, 0.0, 5.0), (0.0, 0.0, 0.0, 1.0)), update_num_env_count=False,
                      separate_collision_group=False)
    assert (batch.body_count, batch.joint_count, batch.num_envs, batch.num_worlds) == (4, 4, 3, 3)
    assert list(batch.body_world) == [0, 1, 2, -1]
    model = batch.finalize(device="cpu")
    assert model.shape_world.numpy().tolist() == [0, 1, 2, -1]
    assert model.body_q.numpy()[1][:3] == pytest.approx([2.3, 1.0, 0.0])
    with pytest.raises(TypeError, match="add_builder: builder must be a wp.sim.ModelBuilder, got int"):
        batch.add_builder(3)
    with pytest.raises(TypeError, match="separate_group"):
        batch.add_builder(one, separate_group=True)
