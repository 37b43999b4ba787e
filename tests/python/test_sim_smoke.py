"""wp.sim's Eulerian smoke from Python (docs/smoke.md): the builder's grid, sources, obstacles and
fields, the SmokeIntegrator, and gradients through the Tape and wp.checkpoint. References are
computed here with numpy in float64 (divergence, sums, advection of a uniform flow) or by central
differences."""
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))


def shapes(n):
    nx, ny, nz = n
    return dict(density=(nz, ny, nx), u=(nz, ny, nx + 1), v=(nz, ny + 1, nx), w=(nz + 1, ny, nx))


def divergence(state, n, solid):
    """|div u| over the fluid cells (2-norm, per cell side), from the face velocities, float64."""
    s = shapes(n)
    u = state.smoke_u.numpy().astype(np.float64).reshape(s["u"])
    v = state.smoke_v.numpy().astype(np.float64).reshape(s["v"])
    w = state.smoke_w.numpy().astype(np.float64).reshape(s["w"])
    d = (u[:, :, 1:] - u[:, :, :-1]) + (v[:, 1:, :] - v[:, :-1, :]) + (w[1:] - w[:-1])
    return float(np.sqrt(np.sum(d[~solid] ** 2)))


def test_projection_leaves_a_divergence_free_field_around_an_obstacle():
    n = (12, 10, 8)
    rng = np.random.default_rng(3)
    s = shapes(n)
    b = wp.sim.ModelBuilder(gravity=0.0)
    b.set_smoke_grid(n, 0.1, buoyancy=0.0, tolerance=1.0e-7, iterations=200)
    b.add_smoke_obstacle(center=(0.6, 0.5, 0.4), radius=0.22)
    b.set_smoke_fields(u=rng.standard_normal(s["u"]), v=rng.standard_normal(s["v"]), w=rng.standard_normal(s["w"]))
    model = b.finalize(device="cpu")
    assert tuple(model.smoke_resolution) == n
    assert model.smoke_cell_size == pytest.approx(0.1)
    # the obstacle's cells: centres within the sphere (the builder's rule, recomputed here)
    z, y, x = np.meshgrid(*[(np.arange(k) + 0.5) * 0.1 for k in n[::-1]], indexing="ij")
    solid = (x - 0.6) ** 2 + (y - 0.5) ** 2 + (z - 0.4) ** 2 <= 0.22**2
    assert solid.any()
    s0, s1 = model.state(), model.state()
    integ = wp.sim.SmokeIntegrator()
    integ.simulate(model, s0, s1, 1.0e-4)  # a tiny dt: advection barely moves the random field
    stats = integ.last_solve
    assert stats["relative_divergence"] <= 1.0e-5
    assert stats["iterations"] <= 200 and stats["residual"] <= 1.0e-6
    assert divergence(s1, n, solid) <= 1.0e-5 * divergence(s0, n, np.zeros_like(solid))
    assert set(stats) == {"iterations", "residual", "divergence_in", "divergence_out", "relative_divergence",
                          "viscosity_substeps"}


def test_conservative_advection_keeps_the_density_sum_and_a_source_adds_rate_dt():
    n = (16, 16, 1)
    b = wp.sim.ModelBuilder(gravity=-9.8)
    b.set_smoke_grid(n, 1.0 / 16, buoyancy=2.0, advection="conservative")
    dens = np.zeros(shapes(n)["density"])
    dens[0, 3:7, 5:9] = 1.0
    b.set_smoke_fields(density=dens)
    b.add_smoke_obstacle(center=(0.5, 0.6, 0.5 / 16), half_extents=(0.1, 0.05, 0.1))
    model = b.finalize(device="cpu")
    integ = wp.sim.SmokeIntegrator()
    a, c = model.state(), model.state()
    start = float(np.sum(a.smoke_density.numpy(), dtype=np.float64))
    for _ in range(20):
        integ.simulate(model, a, c, 0.01)
        a, c = c, a
    after = a.smoke_density.numpy()
    assert float(np.sum(after, dtype=np.float64)) == pytest.approx(start, rel=1.0e-5)
    assert not np.allclose(after.reshape(16, 16), dens[0])  # it moved (buoyancy)
    assert (after >= -1.0e-6).all()

    b = wp.sim.ModelBuilder(gravity=0.0)
    b.set_smoke_grid((8, 8, 1), 0.125, buoyancy=0.0)
    b.add_smoke_source(center=(0.5, 0.5, 0.0625), half_extents=(0.13, 0.13, 0.1), rate=3.0)
    model = b.finalize(device="cpu")
    s0, s1 = model.state(), model.state()
    wp.sim.SmokeIntegrator().simulate(model, s0, s1, 0.5)
    d = s1.smoke_density.numpy().reshape(8, 8)
    # cells whose centres lie within 0.13 of 0.5: columns/rows 3 and 4 (centres 0.4375, 0.5625)
    assert d[3:5, 3:5] == pytest.approx(np.full((2, 2), 1.5), rel=1.0e-6)
    assert float(d.sum()) == pytest.approx(6.0, rel=1.0e-6)


def _loss_and_state(n, u0, steps, device="cpu"):
    b = wp.sim.ModelBuilder(gravity=-9.8)
    b.set_smoke_grid(n, 0.1, buoyancy=1.5, vorticity=0.2, advection="semi_lagrangian")
    dens = np.zeros(shapes(n)["density"])
    dens[:, 2:4, 2:5] = 1.0
    b.set_smoke_fields(density=dens)
    model = b.finalize(device=device, requires_grad=True)
    integ = wp.sim.SmokeIntegrator()
    states = [model.state() for _ in range(steps + 1)]
    states[0].smoke_u.assign(u0)
    weights = wp.array(np.linspace(0.0, 1.0, int(np.prod(n)), dtype=np.float32), dtype=float, device=device)
    loss = wp.zeros(1, dtype=float, device=device, requires_grad=True)
    tape = wp.Tape()
    with tape:
        for k in range(steps):
            integ.simulate(model, states[k], states[k + 1], 0.02)
        wp.launch(weighted_sum, dim=weights.shape[0], inputs=[states[-1].smoke_density, weights], outputs=[loss])
    return loss, tape, states


@wp.kernel
def weighted_sum(x: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i] * w[i])


def test_tape_gradient_of_the_initial_velocity_matches_central_differences():
    n, steps = (7, 6, 1), 4
    rng = np.random.default_rng(5)
    u0 = (0.3 * rng.standard_normal((n[0] + 1) * n[1] * n[2])).astype(np.float32)
    loss, tape, states = _loss_and_state(n, u0, steps)
    tape.backward(loss)
    grad = states[0].smoke_u.grad.numpy().copy()
    assert np.abs(grad).max() > 0
    # semi-Lagrangian advection: its trilinear samples are piecewise linear in the velocity, so a
    # step of 3e-3 m/s stays on one piece (1e-2 crosses a kink on face 26; MacCormack's clamp adds
    # more kinks: its derivative is the branch taken's, docs/smoke.md)
    eps = 3.0e-3
    # interior faces (the walls' faces carry no velocity: zero gradient there)
    for face in (9, 12, 17, 20, 26, 33):
        up, dn = u0.copy(), u0.copy()
        up[face] += eps
        dn[face] -= eps
        fd = (float(_loss_and_state(n, up, steps)[0].numpy()[0]) - float(_loss_and_state(n, dn, steps)[0].numpy()[0])) / (2 * eps)
        assert grad[face] == pytest.approx(fd, rel=0.03, abs=0.02 * np.abs(grad).max()), face


def test_smoke_control_example_checkpointed_gradient_equals_the_plain_tape():
    import sim_smoke_control as ex

    c = ex.SmokeControl(cells=8, steps=16)
    rng = np.random.default_rng(7)
    c.u0.assign(0.2 + 0.05 * rng.standard_normal(c.u0.shape[0]).astype(np.float32))
    c.v0.assign(np.full(c.v0.shape[0], 0.1, dtype=np.float32))
    lp, gup, gvp = c.loss_and_gradient(checkpointed=False)
    lc, guc, gvc = c.loss_and_gradient(checkpointed=True)
    assert lc == pytest.approx(lp, rel=1.0e-6)
    scale = max(np.abs(gup).max(), np.abs(gvp).max())
    assert scale > 0
    np.testing.assert_allclose(guc, gup, atol=1.0e-4 * scale)
    np.testing.assert_allclose(gvc, gvp, atol=1.0e-4 * scale)
    # descending the gradient lowers the loss
    c.u0.assign(c.u0.numpy() - 0.05 / scale * gup)
    c.v0.assign(c.v0.numpy() - 0.05 / scale * gvp)
    assert c.loss_and_gradient()[0] < lp


def test_checkpoint_of_a_smoke_state_carries_the_fields():
    """wp.checkpoint of a wp.sim.State carries every field of it (the smoke grid here), so the
    checkpointed rollout ends where stepping by hand does."""
    b = wp.sim.ModelBuilder(gravity=-9.8)
    b.set_smoke_grid((6, 6, 1), 0.1, buoyancy=1.0)
    b.add_smoke_source(center=(0.3, 0.1, 0.05), radius=0.12, rate=2.0)
    model = b.finalize(device="cpu")
    integ = wp.sim.SmokeIntegrator()
    a, c = model.state(), model.state()
    for _ in range(5):
        integ.simulate(model, a, c, 0.05)
        a, c = c, a
    s0, s1 = model.state(), model.state()
    wp.checkpoint(lambda x, y: integ.simulate(model, x, y, 0.05), 5, s0, s1)
    for name in ("smoke_density", "smoke_u", "smoke_v", "smoke_w"):
        np.testing.assert_array_equal(getattr(s1, name).numpy(), getattr(a, name).numpy(), err_msg=name)


def test_builder_messages():
    b = wp.sim.ModelBuilder()
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_fields: call set_smoke_grid\(resolution, cell_size\) first"):
        b.set_smoke_fields(density=np.zeros((1, 4, 4)))
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_grid: solver must be one of 'jacobi', 'gauss_seidel', 'mgpcg', "
                                                 r"got 'cg'"):
        b.set_smoke_grid((4, 4, 1), 0.1, solver="cg")
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_grid: advection must be one of 'semi_lagrangian', 'maccormack', "
                                                 r"'conservative', got 'upwind'"):
        b.set_smoke_grid((4, 4, 1), 0.1, advection="upwind")
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_grid: resolution must be 3 integers, got \(4, 4\)"):
        b.set_smoke_grid((4, 4), 0.1)
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_grid: iterations must be an integer, got 2.5"):
        b.set_smoke_grid((4, 4, 1), 0.1, iterations=2.5)
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_grid: cell_size must be a finite number, got nan"):
        b.set_smoke_grid((4, 4, 1), float("nan"))
    b.set_smoke_grid((4, 5, 1), 0.1)
    with pytest.raises(wp.sim.BuildError, match=r"add_smoke_source: give either radius \(a sphere\) or half_extents \(a box\)"):
        b.add_smoke_source(center=(0, 0, 0))
    with pytest.raises(wp.sim.BuildError, match=r"add_smoke_obstacle: give either radius"):
        b.add_smoke_obstacle(center=(0, 0, 0), radius=0.1, half_extents=(1, 1, 1))
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_fields: u must have shape \(1, 5, 5\) \(or 25 values\), got \(1, 5, 4\)"):
        b.set_smoke_fields(u=np.zeros((1, 5, 4)))
    with pytest.raises(wp.sim.BuildError, match=r"set_smoke_fields: density must hold finite float32 values"):
        b.set_smoke_fields(density=np.full((1, 5, 4), np.inf))
    with pytest.raises(TypeError, match=r"SmokeIntegrator\(\) got unexpected keyword argument\(s\) 'iterations'"):
        wp.sim.SmokeIntegrator(iterations=3)
    # the C++ builder's own checks reach Python at finalize()
    b = wp.sim.ModelBuilder()
    b.set_smoke_grid((4, 4, 1), -0.1)
    with pytest.raises(wp.sim.BuildError, match=r"cell_size"):
        b.finalize(device="cpu")
