"""wp.sim's MLS-MPM: the builder's volumes and their keyword checks, the integrator by name, and
the DiffTaichi throw (examples/sim_mpm_throw.py): its Tape gradient against central finite
differences, and the optimisation bringing the loss below 1% of its start."""
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_mpm_throw  # noqa: E402


def test_mpm_volumes_and_their_keywords():
    b = wp.sim.ModelBuilder()
    b.set_mpm_grid(dx=0.1, cells=(10, 10, 10), boundary="sticky")
    n = b.add_mpm_box(lo=(0.4, 0.4, 0.4), hi=(0.6, 0.6, 0.6), material="sand", friction_angle=40.0, vel=(1.0, 0.0, 0.0))
    assert n == 4 * 4 * 4
    assert b.add_mpm_sphere(center=(0.5, 0.5, 0.5), radius=0.1, material="fluid", bulk_modulus=2.0e4) > 0
    model = b.finalize(device="cpu")
    assert model.mpm_particle_count == model.particle_count
    s = model.state()
    F = s.mpm_F.numpy()
    np.testing.assert_allclose(F[0], np.eye(3))
    assert s.mpm_Jp.numpy()[0] == 1.0
    assert model.mpm_material.numpy()[0] == 3 and model.mpm_material.numpy()[-1] == 2
    with pytest.raises(TypeError, match=r"add_mpm_box\(\) got unexpected keyword argument\(s\) 'friction_angle' for material "
                                        r"'neo_hookean' \(its parameters: E, nu\)"):
        b.add_mpm_box(lo=(0.4, 0.4, 0.4), hi=(0.6, 0.6, 0.6), material="neo_hookean", friction_angle=30.0)
    with pytest.raises(wp.sim.BuildError, match="add_mpm_box: material must be one of"):
        b.add_mpm_box(lo=(0.4, 0.4, 0.4), hi=(0.6, 0.6, 0.6), material="jelly")
    with pytest.raises(wp.sim.BuildError, match=r"set_mpm_grid: boundary must be 'none', 'sticky', 'slip' or 'separate', got 'wall'"):
        b.set_mpm_grid(dx=0.1, cells=(10, 10, 10), boundary="wall")
    with pytest.raises(wp.sim.BuildError, match="add_mpm_sphere: radius must be a finite number, got nan"):
        b.add_mpm_sphere(center=(0.5, 0.5, 0.5), radius=float("nan"), material="snow")
    with pytest.raises(TypeError, match=r"MPMIntegrator\(\) got unexpected keyword argument\(s\) 'substeps'"):
        wp.sim.MPMIntegrator(substeps=2)
    it = wp.sim.MPMIntegrator()
    assert it.name == "mpm" and it.differentiable
    assert it.state_writes == ["particle_q", "particle_qd", "mpm_F", "mpm_C", "mpm_Jp"]


def test_static_shapes_are_colliders_of_the_grid():
    # A block dropped onto a static box (body=-1) with Warp's keywords: the box's mu is its
    # friction as a collider; the block never sinks into it by more than a node spacing, and
    # without the box it falls past the box's top (the C++ tests check the friction law).
    def lowest(with_box):
        b = wp.sim.ModelBuilder()
        b.set_mpm_grid(dx=0.05, cells=(32, 32, 32), boundary="separate")
        b.add_mpm_box(lo=(0.7, 0.9, 0.7), hi=(0.9, 1.1, 0.9), material="fixed_corotated", E=2e4, nu=0.3)
        if with_box:
            b.add_shape_box(body=-1, pos=(0.8, 0.4, 0.8), hx=0.4, hy=0.2, hz=0.4, mu=0.3)
        b.ground = False
        model = b.finalize(device="cpu")
        if with_box:
            assert model.shape_materials.numpy()[0][4] == pytest.approx(0.3)
        s0, s1 = model.state(), model.state()
        integrator = wp.sim.MPMIntegrator()
        low = np.inf
        for _ in range(600):
            integrator.simulate(model, s0, s1, 1e-3)
            s0, s1 = s1, s0
            low = min(low, float(s0.particle_q.numpy()[:, 1].min()))
        return low

    assert lowest(True) > 0.6 - 0.05
    assert lowest(False) < 0.6 - 0.2


def test_mpm_throw_gradient_and_optimisation():
    sim = sim_mpm_throw.MpmThrow("cpu")
    v0 = np.array([0.5, 0.5, 0.0])
    _, grad = sim.loss_and_gradient(v0)
    eps = 1e-2
    for k in range(3):
        dv = np.eye(3)[k] * eps
        fd = (sim.forward(v0 + dv) - sim.forward(v0 - dv)) / (2 * eps)
        assert grad[k] == pytest.approx(fd, rel=0.02, abs=1e-4), f"component {k}"
    _, losses, sim = sim_mpm_throw.optimise(device="cpu")
    assert losses[-1] < 0.01 * losses[0]
    np.testing.assert_allclose(sim.centre(), sim_mpm_throw.TARGET, atol=0.02)
