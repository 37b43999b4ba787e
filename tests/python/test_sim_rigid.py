"""Rigid bodies from Python under Warp's warp.sim names: the builder's bodies and shapes (mass
properties against the formulas, every keyword simulated or refused by name), a free fall of a
body against the discrete recurrence, and the rigid push example (examples/sim_rigid_push.py):
its Tape gradient against central differences and its optimisation reaching the target."""
import math
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_rigid_push  # noqa: E402


def test_bodies_take_mass_and_inertia_from_their_shapes():
    b = wp.sim.ModelBuilder()
    body = b.add_body(origin=((0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)), name="crate")
    assert body == 0
    b.add_shape_box(body=body, pos=(0.0, 0.0, 0.0), hx=0.5, hy=0.25, hz=0.1, density=200.0)
    m = 8 * 0.5 * 0.25 * 0.1 * 200.0
    assert b.body_mass[0] == pytest.approx(m, rel=1e-6)
    inertia = np.array(b.body_inertia[0]).reshape(3, 3)
    np.testing.assert_allclose(np.diag(inertia), [m / 3 * (0.0625 + 0.01), m / 3 * (0.25 + 0.01), m / 3 * (0.25 + 0.0625)],
                               rtol=1e-6)
    b.add_shape_sphere(body=body, pos=(1.0, 0.0, 0.0), radius=0.1, density=1000.0)
    ms = 4.0 / 3.0 * math.pi * 1e-3 * 1000.0
    assert b.body_com[0][0] == pytest.approx(ms / (m + ms), rel=1e-5)
    model = b.finalize(device="cpu")
    assert model.body_count == 1 and "1 bodies" in repr(model)
    state = model.state()
    np.testing.assert_allclose(state.body_q.numpy()[0], [0, 1, 0, 0, 0, 0, 1], atol=1e-7)
    assert model.shape_body.numpy().tolist() == [0, 0]
    assert model.shape_materials.numpy()[0].tolist() == pytest.approx([1e5, 1e3, 1e3, 0.0, 0.5, 0.0])


def test_shape_keywords_are_simulated_or_refused():
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    with pytest.raises(TypeError, match="radiuss"):
        b.add_shape_sphere(body=body, radiuss=0.25)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_box: is_solid=False \(hollow shapes\) is not supported"):
        b.add_shape_box(body=body, is_solid=False)
    with pytest.raises(wp.sim.BuildError, match="collision_group=3 is not supported yet"):
        b.add_shape_capsule(body=body, collision_group=3)
    with pytest.raises(wp.sim.BuildError, match=r"up_axis=0 is not supported"):
        b.add_shape_capsule(body=body, up_axis=0)
    with pytest.raises(wp.sim.BuildError, match="add_shape_sphere: ke must be >= 0, got -1"):
        b.add_shape_sphere(body=body, radius=0.1, ke=-1.0)
    with pytest.raises(wp.sim.BuildError, match="add_body: I_m must be a 3x3 matrix"):
        b.add_body(I_m=[1.0, 2.0])
    with pytest.raises(wp.sim.BuildError, match="add_body: origin must be a wp.transform"):
        b.add_body(origin=3.0)
    with pytest.raises(wp.sim.BuildError, match=r"set_ground_plane: mu must be >= 0, got -0.5"):
        b.set_ground_plane(mu=-0.5)


def test_a_body_falls_as_the_discrete_recurrence_says():
    b = wp.sim.ModelBuilder(gravity=-10.0)
    body = b.add_body(origin=((0.0, 5.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_sphere(body=body, radius=0.1)
    b.set_body_velocity(body, linear=(1.0, 0.0, 0.0))
    model = b.finalize(device="cpu")
    model.ground = False
    s0, s1 = model.state(), model.state()
    it = wp.sim.SemiImplicitIntegrator()
    dt, n = 0.01, 40
    for _ in range(n):
        it.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
    q = s0.body_q.numpy()[0]
    assert q[0] == pytest.approx(dt * n, rel=1e-5)
    assert q[1] == pytest.approx(5.0 - 10.0 * dt * dt * n * (n + 1) / 2, rel=1e-5)
    assert s0.body_f.numpy()[0].tolist() == pytest.approx([0.0] * 6)


def test_rigid_push_gradient_matches_finite_differences():
    sim = sim_rigid_push.Push("cpu")
    vx = 1.5
    _, grad = sim.loss_and_gradient(vx)
    eps = 1e-2
    fd = (sim.forward(vx + eps) - sim.forward(vx - eps)) / (2 * eps)
    assert grad == pytest.approx(fd, rel=0.03)


def test_rigid_push_optimisation_reaches_the_target():
    vx, losses, sim = sim_rigid_push.optimise(device="cpu")
    assert losses[-1] < 1e-3 * losses[0], losses
    assert sim.final_x() == pytest.approx(sim_rigid_push.TARGET, abs=5e-3)
    assert vx == pytest.approx(math.sqrt(2 * 0.5 * 9.81 * 0.4), rel=0.1)
