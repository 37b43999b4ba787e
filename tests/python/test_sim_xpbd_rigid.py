"""wp.sim.XPBDIntegrator with rigid bodies (kernels/xpbd_*.py) from Python, as a Warp user
writes it: a box dropped on the ground rests on its face, a hinged chain keeps its joints, the rigid
push example's Tape gradient against central differences and its optimised push against the
analytic Coulomb answer v = sqrt(2 mu g d), and what is refused by name."""
import math
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_rigid_push  # noqa: E402


def _run(model, integrator, steps, dt):
    s0, s1 = model.state(), model.state()
    for _ in range(steps):
        integrator.simulate(model, s0, s1, dt)
        s0, s1 = s1, s0
    return s0


def test_box_dropped_on_the_ground_rests_on_its_face():
    b = wp.sim.ModelBuilder()
    box = b.add_body(origin=wp.transform((0.0, 0.3, 0.0), wp.quat_from_axis_angle(wp.vec3(0.6, 0.0, 0.8), 0.4)))
    b.add_shape_box(body=box, hx=0.1, hy=0.1, hz=0.1, density=500.0, mu=0.5)
    model = b.finalize(device="cpu")
    it = wp.sim.XPBDIntegrator()
    assert "body_q" in it.state_writes
    s = _run(model, it, 1500, 2.0e-3)
    q = s.body_q.numpy()[0]
    assert q[1] == pytest.approx(0.1, abs=1e-3)
    assert np.linalg.norm(s.body_qd.numpy()[0]) < 0.1


def test_joint_compliance_keywords_reach_the_model_and_let_the_joint_give():
    # Warp's keywords: linear_compliance on a ball joint at a hanging sphere's centre. At rest the
    # XPBD step leaves the error e = a K / (1 - K), a = g dt^2, K = (1 - 0.7 w / (w + c / dt^2))^2
    # (two iterations, w = 1/m; tests/engine/xpbd_rigid_test.cpp derives it); about m g c / 1.4.
    dt, sags = 1.0e-3, []
    for c in (1.0e-4, 2.0e-4):
        b = wp.sim.ModelBuilder()
        body = b.add_body(origin=wp.transform((0.0, 1.0, 0.0), wp.quat_identity()))
        b.add_shape_sphere(body=body, radius=0.1, density=1000.0)
        j = b.add_joint_ball(-1, body, parent_xform=wp.transform((0.0, 1.0, 0.0), wp.quat_identity()), linear_compliance=c,
                             angular_compliance=0.5 * c)
        model = b.finalize(device="cpu")
        model.ground = False
        assert model.joint_linear_compliance.numpy()[j] == pytest.approx(c)
        assert model.joint_angular_compliance.numpy()[j] == pytest.approx(0.5 * c)
        m = 1000.0 * 4.0 / 3.0 * math.pi * 0.1 ** 3
        K = (1.0 - 0.7 / m / (1.0 / m + c / dt ** 2)) ** 2
        sag = 1.0 - _run(model, wp.sim.XPBDIntegrator(), 10000, dt).body_q.numpy()[0][1]
        assert sag == pytest.approx(9.80665 * dt ** 2 * K / (1.0 - K), rel=0.01)
        sags.append(sag)
    assert sags[1] / sags[0] == pytest.approx(2.0, rel=0.01)


def test_distance_joint_is_a_rope_under_xpbd_and_refused_by_the_semi_implicit_integrator():
    def rope(generic):
        b = wp.sim.ModelBuilder()
        body = b.add_body(origin=wp.transform((0.05, 0.8, 0.0), wp.quat_identity()))
        b.add_shape_sphere(body=body, radius=0.02, density=1000.0)
        anchor = wp.transform((0.0, 1.0, 0.0), wp.quat_identity())
        if generic:
            j = b.add_joint(wp.sim.JOINT_DISTANCE, -1, body, parent_xform=anchor,
                            linear_axes=[wp.sim.JointAxis((1.0, 0.0, 0.0), limit_upper=0.5)])
        else:
            j = b.add_joint_distance(-1, body, parent_xform=anchor, min_distance=-1.0, max_distance=0.5)
        model = b.finalize(device="cpu")
        model.ground = False
        assert model.joint_type.numpy()[j] == wp.sim.JOINT_DISTANCE == 7
        return model

    for generic in (False, True):
        model = rope(generic)
        assert model.joint_limit_upper.numpy()[0] == pytest.approx(0.5)
        assert model.joint_limit_lower.numpy()[0] == -1.0
        s0, s1 = model.state(), model.state()
        longest = 0.0
        it = wp.sim.XPBDIntegrator()
        for _ in range(1500):
            it.simulate(model, s0, s1, 1.0e-3)
            s0, s1 = s1, s0
            longest = max(longest, np.linalg.norm(s0.body_q.numpy()[0][:3] - np.array([0.0, 1.0, 0.0])))
        assert 0.499 < longest < 0.501  # fell slack, then hung on the rope without stretching it
    with pytest.raises(RuntimeError, match="joint 0 is a distance joint, which the semi_implicit integrator does not simulate"):
        wp.sim.SemiImplicitIntegrator().simulate(model, model.state(), model.state(), 1.0e-3)


def test_hinged_chain_keeps_its_joints():
    b = wp.sim.ModelBuilder()
    h = 0.1
    parent = -1
    for k in range(4):
        body = b.add_body(origin=wp.transform((h + 2 * h * k, 2.0, 0.0), wp.quat_identity()))
        b.add_shape_box(body=body, hx=h, hy=0.02, hz=0.02)
        xp = ((0.0, 2.0, 0.0) if parent < 0 else (h, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))
        b.add_joint_revolute(parent, body, parent_xform=xp, child_xform=((-h, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
                             axis=(0.0, 0.0, 1.0))
        parent = body
    model = b.finalize(device="cpu")
    model.ground = False
    s = _run(model, wp.sim.XPBDIntegrator(iterations=4), 1000, 5.0e-4)
    q = s.body_q.numpy()
    # each link's left end (-h, 0, 0) sits on its parent's right end (h, 0, 0); the first on the pivot
    for k in range(4):
        left = wp.transform_point(wp.transform(q[k][:3], q[k][3:]), wp.vec3(-h, 0.0, 0.0))
        anchor = (0.0, 2.0, 0.0) if k == 0 else wp.transform_point(wp.transform(q[k - 1][:3], q[k - 1][3:]),
                                                                     wp.vec3(h, 0.0, 0.0))
        assert np.linalg.norm(np.array(left) - np.array(anchor)) < 1e-3
    assert q[3][1] < 1.9  # it swung down


def test_rigid_push_gradient_matches_finite_differences():
    sim = sim_rigid_push.Push("cpu", integrator="xpbd")
    vx = 1.5
    _, grad = sim.loss_and_gradient(vx)
    eps = 1e-2
    fd = (sim.forward(vx + eps) - sim.forward(vx - eps)) / (2 * eps)
    assert grad == pytest.approx(fd, rel=0.03)


def test_rigid_push_optimisation_finds_the_coulomb_answer():
    vx, losses, sim = sim_rigid_push.optimise(device="cpu", integrator="xpbd")
    assert losses[-1] < 1e-3 * losses[0], losses
    assert sim.final_x() == pytest.approx(sim_rigid_push.TARGET, abs=5e-3)
    # positional Coulomb friction: the box stops after v^2 / (2 mu g)
    assert vx == pytest.approx(math.sqrt(2 * 0.5 * 9.81 * 0.4), rel=0.02)


def test_refusals_name_what_is_refused():
    with pytest.raises(TypeError, match=r"XPBDIntegrator\(\) got unexpected keyword argument\(s\) 'rigid_contact_relax'"):
        wp.sim.XPBDIntegrator(rigid_contact_relax=0.5)
    with pytest.raises(RuntimeError, match=r"option 'joint_linear_relaxation' must be in \(0, 2\], got 0"):
        wp.sim.XPBDIntegrator(joint_linear_relaxation=0.0)
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    b.add_shape_sphere(body=body, radius=0.1)
    b.add_particle(pos=(1.0, 1.0, 0.0), vel=(0.0, 0.0, 0.0), mass=1.0)
    model = b.finalize(device="cpu")
    with pytest.raises(RuntimeError, match=r"does not couple particles with shapes on bodies \(shape 0 is on body 0\)"):
        wp.sim.XPBDIntegrator().simulate(model, model.state(), model.state(), 1e-3)


def _drop_on_ball(setup):
    # a ball held at y = 0.5 (density 0: kinematic) and one dropped on it from 0.9; returns the
    # dropped ball's height after 0.5 s
    b = wp.sim.ModelBuilder()
    held = b.add_body(origin=wp.transform((0.0, 0.5, 0.0), wp.quat_identity()))
    dropped = b.add_body(origin=wp.transform((0.0, 0.9, 0.0), wp.quat_identity()))
    shapes = setup(b, held, dropped)
    model = b.finalize(device="cpu")
    model.ground = False
    del shapes
    return float(_run(model, wp.sim.XPBDIntegrator(), 1000, 5.0e-4).body_q.numpy()[1][1])


def test_warps_collision_filtering_keywords_and_pairs():
    def shapes(group_a=-1, group_b=-1, has_shape_collision=True):
        def setup(b, held, dropped):
            a = b.add_shape_sphere(body=held, radius=0.1, density=0.0, collision_group=group_a,
                                   has_shape_collision=has_shape_collision)
            c = b.add_shape_sphere(body=dropped, radius=0.1, collision_group=group_b)
            return a, c
        return setup

    assert _drop_on_ball(shapes()) > 0.6
    assert _drop_on_ball(shapes(1, 1)) > 0.6
    assert _drop_on_ball(shapes(1, 2)) < 0.0
    assert _drop_on_ball(shapes(has_shape_collision=False)) < 0.0

    def filtered(b, held, dropped):
        a = b.add_shape_sphere(body=held, radius=0.1, density=0.0)
        c = b.add_shape_sphere(body=dropped, radius=0.1)
        b.shape_collision_filter_pairs.add((c, a))
        assert (a, c) in b.shape_collision_filter_pairs and len(b.shape_collision_filter_pairs) == 1
        return a, c

    assert _drop_on_ball(filtered) < 0.0
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    with pytest.raises(wp.sim.BuildError, match=r"collision_filter_parent=False is not supported yet"):
        b.add_shape_box(body=body, hx=0.1, hy=0.1, hz=0.1, collision_filter_parent=False)
    with pytest.raises(wp.sim.BuildError, match=r"collision_group must be an int >= -1, got -3"):
        b.add_shape_box(body=body, hx=0.1, hy=0.1, hz=0.1, collision_group=-3)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_box: has_ground_collision must be a bool, got str"):
        b.add_shape_box(body=body, hx=0.1, hy=0.1, hz=0.1, has_ground_collision="no")
    with pytest.raises(wp.sim.BuildError,
                       match=r"add_shape_collision_filter_pair: shape index 0 is out of range \(the model has 0 shapes\)"):
        b.shape_collision_filter_pairs.add((0, 1))
