"""wp.sim from Python: the builder and integrators under Warp's names and by registered name,
the step contract (state_in is not written), and the bounce
optimisation (examples/sim_bounce.py) checked against central finite differences."""
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_bounce  # noqa: E402


def test_free_fall_matches_the_discrete_recurrence():
    b = wp.sim.ModelBuilder(gravity=-10.0)
    b.add_particle(pos=(0.0, 5.0, 0.0), vel=(1.0, 0.0, 0.0), mass=2.0, radius=0.05)
    model = b.finalize(device="cpu")
    model.ground = False
    assert model.particle_count == 1 and "1 particles" in repr(model)
    s0, s1 = model.state(), model.state()
    dt, n = 0.01, 50
    integrator = wp.sim.SemiImplicitIntegrator()
    for _ in range(n):
        s0.clear_forces()
        integrator.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
    # symplectic Euler: v_k = -10 k dt, y_n = y0 - 10 dt^2 n (n + 1) / 2
    q = s0.particle_q.numpy()[0]
    assert q[0] == pytest.approx(1.0 * dt * n, rel=1e-5)
    assert q[1] == pytest.approx(5.0 - 10.0 * dt * dt * n * (n + 1) / 2, rel=1e-5)


def test_integrators_by_name():
    assert wp.sim.integrator_names() == ["featherstone", "mpm", "semi_implicit", "smoke", "xpbd"]
    xpbd = wp.sim.Integrator("xpbd", iterations=4)
    assert xpbd.name == "xpbd" and xpbd.differentiable and xpbd.graph_capture
    assert ("xpbd", "apply_deltas") in xpbd.kernels
    assert xpbd.state_reads == ["particle_q", "particle_qd", "body_q", "body_qd"]
    assert ("xpbd_contacts", "solve_contact_slots") in xpbd.kernels
    # Warp's class names are the same integrators
    assert isinstance(wp.sim.XPBDIntegrator(iterations=3), wp.sim.Integrator)
    assert wp.sim.XPBDIntegrator(iterations=3).iterations == 3
    assert wp.sim.SemiImplicitIntegrator().name == "semi_implicit"
    assert wp.sim.create_integrator("semi_implicit").name == "semi_implicit"
    with pytest.raises(RuntimeError, match=r"unknown integrator 'xbpd' \(did you mean 'xpbd'\?\)"):
        wp.sim.Integrator("xbpd")
    with pytest.raises(RuntimeError, match=r"integrator 'xpbd' has no option 'iteratons' \(did you mean 'iterations'\?\)"):
        wp.sim.Integrator("xpbd", iteratons=3)
    with pytest.raises(RuntimeError, match=r"option 'iterations' must be in \[1, 1000\], got 0"):
        wp.sim.XPBDIntegrator(iterations=0)
    # a keyword Weft does not simulate raises, naming it (it used to be swallowed)
    with pytest.raises(TypeError, match=r"SemiImplicitIntegrator\(\) got unexpected keyword argument\(s\) 'friction_smoothing'"):
        wp.sim.SemiImplicitIntegrator(friction_smoothing=1.0)
    assert wp.sim.SemiImplicitIntegrator(angular_damping=0.5).angular_damping == 0.5
    with pytest.raises(TypeError, match=r"XPBDIntegrator\(\) got unexpected keyword argument\(s\) 'iteratons', 'soft_body_relax'"):
        wp.sim.XPBDIntegrator(iteratons=3, soft_body_relax=0.9)
    # Warp's keywords are the integrator's options
    x = wp.sim.XPBDIntegrator(soft_body_relaxation=0.8, joint_angular_relaxation=0.5, enable_restitution=True)
    assert (x.relaxation, x.joint_angular_relaxation, x.enable_restitution) == (0.8, 0.5, True)
    with pytest.raises(TypeError, match=r"pass soft_body_relaxation or relaxation \(its older name\), not both"):
        wp.sim.XPBDIntegrator(soft_body_relaxation=0.8, relaxation=0.8)
    with pytest.raises(TypeError, match=r"XPBDIntegrator: enable_restitution must be a bool, got str"):
        wp.sim.XPBDIntegrator(enable_restitution="yes")


def test_simulate_leaves_state_in_as_it_was():
    b = wp.sim.ModelBuilder()
    b.add_particle(pos=(0.0, 0.05, 0.0), vel=(1.0, -1.0, 0.0), mass=1.0, radius=0.1)
    b.add_particle(pos=(0.5, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0, radius=0.1)
    b.add_spring(0, 1, 100.0, 1.0)
    model = b.finalize(device="cpu")
    # The particle integrators (mpm needs MPM particles, smoke a grid: the C++ contract test,
    # tests/engine/integrator_test.cpp, runs every integrator on a model made for it).
    for name in ("semi_implicit", "xpbd"):
        s0, s1 = model.state(), model.state()
        before = [s0.particle_q.numpy().copy(), s0.particle_qd.numpy().copy(), s0.particle_f.numpy().copy()]
        wp.sim.Integrator(name).simulate(model, s0, s1, 1.0e-3)
        after = [s0.particle_q.numpy(), s0.particle_qd.numpy(), s0.particle_f.numpy()]
        for x, y in zip(before, after):
            assert np.array_equal(x, y), name
        assert not np.array_equal(s1.particle_q.numpy(), before[0]), name


def test_builder_errors_and_static_shapes():
    b = wp.sim.ModelBuilder()
    b.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_box: body 0 is out of range \(the model has 0 bodies; -1 is static\)"):
        b.add_shape_box(body=0, pos=(0.0, 0.0, 0.0), hx=1.0, hy=1.0, hz=1.0)
    with pytest.raises(wp.sim.BuildError, match="only static shapes"):
        b.add_shape_plane(body=0)
    with pytest.raises(wp.sim.BuildError, match="add_spring"):
        b.add_spring(0, 7, 100.0, 1.0)
    b.add_cloth_grid(pos=(0.0, 1.0, 0.0), rot=(0.0, 0.0, 0.0, 1.0), vel=(0.0, 0.0, 0.0), dim_x=2, dim_y=2, cell_x=0.1,
                     cell_y=0.1, mass=0.1)
    model = b.finalize(device="cpu", requires_grad=True)
    assert model.particle_count == 1 + 9 and model.tri_count == 8
    assert model.particle_q.shape == (10,) and model.requires_grad


def test_bounce_gradient_matches_finite_differences():
    sim = sim_bounce.Bounce("cpu")
    v = np.array([5.0, -5.0, 0.0])
    _, grad = sim.loss_and_gradient(v)
    eps = 1e-3
    for k in range(2):
        dv = np.zeros(3)
        dv[k] = eps
        fd = (sim.forward(v + dv) - sim.forward(v - dv)) / (2 * eps)
        assert grad[k] == pytest.approx(fd, rel=0.05), f"component {k}"


def test_bounce_optimisation_reaches_the_target():
    _, losses, sim = sim_bounce.optimise(iterations=30, rate=0.1, device="cpu")
    assert all(b < a for a, b in zip(losses[:15], losses[1:16])), losses
    assert losses[-1] < 0.01 * losses[0], losses
    np.testing.assert_allclose(sim.final_position(), sim_bounce.TARGET, atol=0.15)


import sim_cloth_throw  # noqa: E402
import sim_spring_cage  # noqa: E402


def test_spring_cage_rest_lengths_move_the_particle_to_the_target():
    sim = sim_spring_cage.SpringCage("cpu")
    _, grad = sim.loss_and_gradient()
    rest = sim.model.spring_rest_length.numpy().copy()
    eps = 1e-3
    for k in (0, 2):
        for sign, store in ((1, "p"), (-1, "m")):
            r = rest.copy()
            r[k] += sign * eps
            sim.model.spring_rest_length.assign(r)
            if store == "p":
                lp = sim.forward()
            else:
                lm = sim.forward()
        assert grad[k] == pytest.approx((lp - lm) / (2 * eps), rel=0.05), f"spring {k}"
    losses, sim = sim_spring_cage.optimise(iterations=40, device="cpu")
    assert losses[-1] < 1e-6 * losses[0]
    np.testing.assert_allclose(sim.states[-1].particle_q.numpy()[0], sim_spring_cage.TARGET, atol=1e-3)


def test_cloth_throw_lands_its_centre_of_mass_on_the_target():
    sim = sim_cloth_throw.ClothThrow("cpu")
    v0 = np.zeros(3)
    _, grad = sim.loss_and_gradient(v0)
    eps = 1e-3
    for k in range(3):
        dv = np.eye(3)[k] * eps
        fd = (sim.forward(v0 + dv) - sim.forward(v0 - dv)) / (2 * eps)
        assert grad[k] == pytest.approx(fd, rel=0.02, abs=1e-3), f"component {k}"
    _, losses, sim = sim_cloth_throw.optimise(iterations=25, device="cpu")
    assert losses[-1] < 1e-3 * losses[0]
    np.testing.assert_allclose(sim.centre(), sim_cloth_throw.TARGET, atol=0.01)


import sim_soft_body  # noqa: E402


def test_soft_body_recovers_its_lame_parameter():
    reference = sim_soft_body.SoftBody(sim_soft_body.TRUE_MU, "cpu")
    reference.rollout()
    targets = reference.trajectory()
    sim = sim_soft_body.SoftBody(1200.0, "cpu")
    _, dmu = sim.loss_and_gradient(targets)
    eps = 1.0
    sim.set_mu(1200.0 + eps)
    lp = sim.rollout(targets)
    sim.set_mu(1200.0 - eps)
    lm = sim.rollout(targets)
    assert dmu == pytest.approx((lp - lm) / (2 * eps), rel=0.05)
    mu, history, _, _ = sim_soft_body.recover(iterations=12, device="cpu")
    assert abs(mu - sim_soft_body.TRUE_MU) < 0.05 * sim_soft_body.TRUE_MU, history
    assert history[-1][1] < 1e-3 * history[0][1]


def test_builder_refuses_numbers_float32_cannot_hold():
    """NaN stiffness, NaN positions and masses past float32 (1e300 became inf, 1e-50 became 0:
    a fixed particle) were accepted; each is a ValueError naming the call and the argument."""
    b = wp.sim.ModelBuilder()
    b.add_particle(pos=(0.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    b.add_particle(pos=(1.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    cases = [
        (lambda: b.add_spring(0, 1, ke=float("nan"), kd=0.0), r"^add_spring: ke must be a finite number, got nan$"),
        (lambda: b.add_particle(pos=(float("nan"), 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0),
         r"^add_particle: pos\[0\] must be a finite number, got nan$"),
        (lambda: b.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1e300),
         r"^add_particle: mass = 1e\+300 is outside the float32 range the engine computes in \(\|x\| <= 3.40282e\+38\)$"),
        (lambda: b.add_particle(pos=(0.0, 0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1e-50),
         r"^add_particle: mass = 1e-50 is too small for float32 \(nonzero values need \|x\| >= 1.17549e-38\): it would "
         r"become 0; pass mass=0 for a fixed particle$"),
        (lambda: b.add_particle(pos=(0.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0), r"^add_particle: pos must have 3 components, got 2$"),
        (lambda: b.add_spring(0, 1, ke=-1.0, kd=0.0), r"^add_spring: ke must be >= 0, got -1$"),
        (lambda: b.add_shape_sphere(pos=(0.0, float("inf"), 0.0), radius=1.0),
         r"^add_shape_sphere: pos\[1\] must be a finite number, got inf$"),
    ]
    for call, message in cases:
        with pytest.raises(ValueError, match=message):
            call()
    assert b.particle_count == 2


def test_state_arrays_must_match_the_model():
    """A wrong-sized particle_q was accepted and simulate() read past its end (SIGSEGV)."""
    b = wp.sim.ModelBuilder()
    b.add_particle(pos=(0.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    b.add_particle(pos=(1.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    model = b.finalize("cpu")
    s0, s1 = model.state(), model.state()
    with pytest.raises(ValueError, match=r"^State.particle_q: cannot assign array\(vec3f, shape=\(1000,\), device=cpu\): it "
                                         r"must be array\(vec3f, shape=\(2,\), device=cpu\) \(the model has 2 particles\)"):
        s0.particle_q = wp.zeros(1000, dtype=wp.vec3)
    with pytest.raises(ValueError, match=r"cannot assign array\(float32, shape=\(2,\), device=cpu\)"):
        s0.particle_qd = wp.zeros(2, dtype=float)
    s0.particle_q = wp.array([[0.0, 2.0, 0.0], [1.0, 2.0, 0.0]], dtype=wp.vec3)  # the same shape: fine
    integrator = wp.sim.SemiImplicitIntegrator()
    integrator.simulate(model, s0, s1, 0.01)
    assert s1.particle_q.numpy()[0][1] < 2.0
    s0._cpp.particle_q = wp.zeros(1, dtype=wp.vec3)._handle()  # behind the wrapper's back: simulate checks again
    with pytest.raises(RuntimeError, match=r"^simulate: state_in.particle_q is array\(vec3f, shape=\(1,\), device=cpu\); the "
                                           r"model needs array\(vec3f, shape=\(2,\), device=cpu\)$"):
        integrator.simulate(model, s0, s1, 0.01)
