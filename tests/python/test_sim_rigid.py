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
    # collision groups are simulated (test_sim_xpbd_rigid.py); a shape-level parent filter is not
    with pytest.raises(wp.sim.BuildError, match="add_shape_capsule: collision_filter_parent=False is not supported yet"):
        b.add_shape_capsule(body=body, collision_filter_parent=False)
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


def _rest(model, steps, dt):
    s0, s1 = model.state(), model.state()
    it = wp.sim.SemiImplicitIntegrator()
    for _ in range(steps):
        it.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
    return s0


def test_a_particle_rests_on_a_free_box_with_its_weight():
    """Particles meet the shapes of moving bodies (Warp's eval_particle_body_contact): a 0.5 kg
    particle on a free 0.8 kg box on the ground sinks into the box by m_p g / ke, ke the mean of
    soft_contact_ke and the shape's ke, and the box into the ground by (m_b + m_p) g / (4 ke_g)."""
    g, h, r, mp, thick = 9.80665, 0.1, 0.05, 0.5, 1e-5
    b = wp.sim.ModelBuilder()
    box = b.add_body(origin=((0.0, h + thick, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_box(body=box, hx=h, hy=h, hz=h, density=100.0)
    b.add_particle(pos=(0.0, 2 * h + r + thick, 0.0), vel=(0.0, 0.0, 0.0), mass=mp, radius=r)
    model = b.finalize(device="cpu")
    s = _rest(model, 2000, 5e-4)
    mb = 8 * h ** 3 * 100.0
    box_y = s.body_q.numpy()[0][1]
    assert box_y == pytest.approx(h + thick - (mb + mp) * g / (4 * 1e5), abs=1e-6)
    x = s.particle_q.numpy()[0]
    assert x[1] - (box_y + h + thick + r) == pytest.approx(-mp * g / (0.5 * (1e3 + 1e5)), abs=1e-6)


def test_cloth_falls_onto_a_free_box_and_weighs_on_it():
    """A cloth dropped onto a free box through the Python API rests on the box's top, and the box,
    carrying part of it, sinks deeper into the ground than it does alone."""
    def build(cloth):
        b = wp.sim.ModelBuilder()
        b.soft_contact_kd = b.soft_contact_kf = 10.0
        box = b.add_body(origin=((0.0, 0.15, 0.0), (0.0, 0.0, 0.0, 1.0)))
        b.add_shape_box(body=box, hx=0.15, hy=0.15, hz=0.15, density=100.0, kd=10.0, kf=10.0)
        if cloth:
            b.add_cloth_grid(pos=(-0.2, 0.4, 0.2), rot=(-0.7071068, 0.0, 0.0, 0.7071068), vel=(0.0, 0.0, 0.0), dim_x=8,
                             dim_y=8, cell_x=0.05, cell_y=0.05, mass=0.01, tri_ke=1e3, tri_ka=1e3, tri_kd=1.0, edge_ke=0.5,
                             edge_kd=0.01, particle_radius=0.01)
        return b.finalize(device="cpu")
    alone = _rest(build(False), 2000, 5e-4).body_q.numpy()[0]
    s = _rest(build(True), 2000, 5e-4)
    q = s.body_q.numpy()[0]
    x = s.particle_q.numpy()
    centre = x[4 * 9 + 4]
    assert centre[0] == pytest.approx(q[0], abs=5e-3) and centre[2] == pytest.approx(q[2], abs=5e-3)
    assert centre[1] == pytest.approx(q[1] + 0.15 + 1e-5 + 0.01, abs=1e-3)
    assert q[1] < alone[1] - 1e-6, "the cloth's weight presses the box into the ground"
    inside = (np.abs(x[:, 0] - q[0]) < 0.14) & (np.abs(x[:, 2] - q[2]) < 0.14) & (x[:, 1] < q[1] + 0.14)
    assert not inside.any(), "no particle passes into the box"


def test_cylinders_and_cones_on_bodies():
    """add_shape_cylinder / add_shape_cone with Warp's keywords: mass and inertia from the density
    (the cone's centre of mass a quarter of its height above its base, where Warp puts it at the
    shape's origin), other axes refused by name, and a cylinder standing on the ground at the
    penalty depth of its eight rim points."""
    r, h, rho, g = 0.1, 0.15, 1000.0, 9.80665
    b = wp.sim.ModelBuilder()
    cyl = b.add_body(origin=((0.0, h + 1e-5, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_cylinder(body=cyl, radius=r, half_height=h, density=rho)
    m = math.pi * r * r * 2 * h * rho
    assert b.body_mass[cyl] == pytest.approx(m, rel=1e-6)
    np.testing.assert_allclose(np.diag(np.array(b.body_inertia[cyl]).reshape(3, 3)),
                               [m * (r * r / 4 + h * h / 3), m * r * r / 2, m * (r * r / 4 + h * h / 3)], rtol=1e-6)
    cone = b.add_body(origin=((1.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_cone(body=cone, radius=r, half_height=h, density=rho)
    assert b.body_mass[cone] == pytest.approx(m / 3, rel=1e-6)
    assert b.body_com[cone][1] == pytest.approx(h / 2, rel=1e-6)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_cone: up_axis=2 is not supported"):
        b.add_shape_cone(body=cone, up_axis=2)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_cylinder: radius and half_height must be > 0, got 0.1 and 0"):
        b.add_shape_cylinder(body=cyl, radius=0.1, half_height=0.0)
    with pytest.raises(TypeError, match="half_heigth"):
        b.add_shape_cylinder(body=cyl, half_heigth=0.1)
    model = b.finalize(device="cpu")
    assert model.shape_geo_type.numpy().tolist() == [6, 4]
    s = _rest(model, 3000, 5e-4)
    assert s.body_q.numpy()[cyl][1] == pytest.approx(h + 1e-5 - m * g / (8 * 1e5), abs=2e-6)


def test_the_broad_phase_is_on_for_a_crowded_world_and_changes_no_bit():
    # 100 bodies in one world: each would walk 100 shapes, so finalize turns the body broad phase
    # on (engine/broad_phase.h); stepping with it off gives the same bits (docs/rigid-bodies.md).
    b = wp.sim.ModelBuilder()
    for k in range(100):
        body = b.add_body(origin=((0.2 * (k % 10), 0.12 + 0.2 * (k // 50), 0.2 * ((k // 10) % 5)), (0.0, 0.0, 0.0, 1.0)))
        b.add_shape_box(body=body, hx=0.09, hy=0.06, hz=0.05)
    model = b.finalize(device="cpu")
    assert model.max_shape_candidates == 100
    assert model.body_broad_phase
    finals = []
    for on in (True, False):
        model.body_broad_phase = on
        integrator = wp.sim.SemiImplicitIntegrator()
        s0, s1 = model.state(), model.state()
        for _ in range(200):
            integrator.simulate(model, s0, s1, 5e-4)
            s0, s1 = s1, s0
        finals.append(s0.body_q.numpy().copy())
    assert np.array_equal(finals[0], finals[1])
    assert finals[0][:, 1].min() < 0.1  # the bodies fell onto the ground and each other
    model.body_broad_phase = True
    model.body_candidate_capacity = 0
    with pytest.raises(RuntimeError, match="the body broad phase needs body_candidate_capacity >= 1"):
        wp.sim.SemiImplicitIntegrator().simulate(model, model.state(), model.state(), 5e-4)
