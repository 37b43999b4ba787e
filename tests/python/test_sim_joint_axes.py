"""Joints of several axes from Python under Warp's warp.sim names: wp.sim.JointAxis,
add_joint_universal / add_joint_compound / add_joint_d6 with Warp's keywords: a universal joint
with one axis locked by limits swinging with the physical pendulum's period, a D6 joint of one
linear axis against the prismatic joint, compound drives set through Control.joint_act settling on
their targets (eval_ik), eval_ik(eval_fk(q)) == q, the Tape's gradient with respect to the drive
targets against central differences, and every error by name."""
import math

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

G = 9.80665
IDENTITY = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))


def rollout(model, steps, dt, control=None, each=None, angular_damping=0.05):
    it = wp.sim.SemiImplicitIntegrator(angular_damping=angular_damping)
    s0, s1 = model.state(), model.state()
    for k in range(steps):
        it.simulate(model, s0, s1, dt, control)
        s0, s1 = s1, s0
        if each:
            each(k, s0)
    return s0


def joint_coordinates(model, state):
    q = wp.zeros(model.joint_coord_count, dtype=float)
    qd = wp.zeros(model.joint_dof_count, dtype=float)
    wp.sim.eval_ik(model, state, q, qd)
    return q.numpy(), qd.numpy()


def test_universal_pendulum_with_a_locked_axis_has_the_physical_pendulum_period():
    L, h, theta0 = 0.8, 0.1, 0.05
    b = wp.sim.ModelBuilder()
    b.joint_attach_ke = 1.0e5
    c = (L * math.sin(theta0), -L * math.cos(theta0), 0.0)
    body = b.add_body(origin=(c, (0.0, 0.0, math.sin(theta0 / 2), math.cos(theta0 / 2))))
    b.add_shape_box(body=body, hx=h, hy=h, hz=h)
    locked = wp.sim.JointAxis((1.0, 0.0, 0.0), limit_lower=0.0, limit_upper=0.0, limit_ke=1.0e4)
    j = b.add_joint_universal(-1, body, locked, (0.0, 0.0, 1.0), parent_xform=IDENTITY,
                              child_xform=((0.0, L, 0.0), (0.0, 0.0, 0.0, 1.0)))
    assert (j, b.joint_count, b.joint_axis_count) == (0, 1, 2)
    model = b.finalize(device="cpu")
    model.ground = False
    assert model.joint_type.numpy().tolist() == [wp.sim.JOINT_UNIVERSAL]
    assert model.joint_axis_dim.numpy().tolist() == [[0, 2]]
    assert model.joint_limit_upper.numpy().tolist() == [0.0, pytest.approx(2 * math.pi)]  # inf: Weft's default
    assert model.joint_limit_kd.numpy().tolist() == [10.0, 10.0]  # JointAxis's default, as Warp's
    dt = 2.0e-4
    xs = []
    rollout(model, 8000, dt, each=lambda k, s: xs.append(s.body_q.numpy()[0][0]), angular_damping=0.0)
    prev = c[0]
    measured = None
    for k, x in enumerate(xs):
        if prev < 0.0 <= x:
            measured = dt * (k + (-prev) / (x - prev)) / 0.75  # the first upward crossing is at 3T/4
            break
        prev = x
    mass = 1000.0 * (2 * h) ** 3
    T = 2 * math.pi * math.sqrt((mass * (2 * h) ** 2 / 6 + mass * L * L) / (mass * G * L)) * (1 + theta0 ** 2 / 16)
    assert measured == pytest.approx(T, rel=0.005)


def build_slider(d6):
    b = wp.sim.ModelBuilder()
    b.ground = False
    body = b.add_body(origin=((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_box(body=body, hx=0.1, hy=0.05, hz=0.05)
    b.set_body_velocity(body, angular=(0.3, 0.0, -0.5), linear=(0.2, 0.4, 0.0))
    kw = dict(target_ke=400.0, target_kd=10.0, limit_lower=-0.2, limit_upper=0.1, limit_ke=100.0, limit_kd=1.0,
              mode=wp.sim.JOINT_MODE_TARGET_POSITION)
    xform = ((0.0, 0.3, 0.0), (0.0, 0.0, 0.0, 1.0))
    if d6:
        b.add_joint_d6(-1, body, linear_axes=[wp.sim.JointAxis((0.0, 1.0, 1.0), action=0.3, **kw)], parent_xform=xform)
    else:
        b.add_joint_prismatic(-1, body, parent_xform=xform, axis=(0.0, 1.0, 1.0), target=0.3, **kw)
    return b.finalize(device="cpu")


def test_d6_with_one_linear_axis_follows_the_prismatic_joint():
    trajectories = []
    for d6 in (False, True):
        poses = []
        rollout(build_slider(d6), 1000, 5.0e-4, each=lambda k, s: poses.append(s.body_q.numpy()[0].copy()))
        trajectories.append(np.array(poses))
    prismatic, d6 = trajectories
    assert np.abs(prismatic[:, :3] - prismatic[0, :3]).max() > 0.05  # it moves
    assert np.abs(d6 - prismatic).max() < 1e-6


def test_compound_drives_set_through_control_joint_act_settle_on_their_targets():
    b = wp.sim.ModelBuilder(gravity=0.0)
    b.ground = False
    body = b.add_body()
    b.add_shape_box(body=body, hx=0.1, hy=0.1, hz=0.1)
    axes = [wp.sim.JointAxis(a, target_ke=20.0, target_kd=1.0, mode=wp.sim.JOINT_MODE_TARGET_POSITION)
            for a in ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 0.0))]
    b.add_joint_compound(-1, body, *axes)
    model = b.finalize(device="cpu")
    control = model.control()
    assert control.joint_act.shape == (3,)
    targets = np.array([-0.5, 0.7, 0.3], dtype=np.float32)
    control.joint_act.assign(targets)
    state = rollout(model, 6000, 5.0e-4, control)
    q, qd = joint_coordinates(model, state)
    assert q == pytest.approx(targets, abs=2e-3)
    assert np.abs(qd).max() < 1e-2


def test_eval_ik_inverts_eval_fk_for_d6_universal_and_compound():
    b = wp.sim.ModelBuilder()
    b.add_articulation()
    for k in range(3):
        b.add_body(origin=((float(k), 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
        b.add_shape_sphere(body=k, radius=0.1, pos=(0.05, 0.02, 0.0))
    tilt = (0.0, math.sin(0.2), 0.0, math.cos(0.2))
    b.add_joint_d6(-1, 0, linear_axes=[(1.0, 0.0, 0.0), (0.0, 0.0, 1.0)],
                   angular_axes=[(0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)], parent_xform=((0.0, 1.0, 0.0), tilt))
    b.add_joint_universal(0, 1, (0.0, 0.0, 1.0), (1.0, 0.0, 0.0), parent_xform=((0.3, 0.0, 0.0), tilt),
                          child_xform=((-0.2, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_joint_compound(1, 2, (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
                         child_xform=((-0.2, 0.1, 0.0), tilt))
    model = b.finalize(device="cpu")
    assert (model.joint_coord_count, model.joint_dof_count) == (5 + 2 + 3, 10)
    rng = np.random.default_rng(3)
    for _ in range(5):
        q = rng.uniform(-1.2, 1.2, 10).astype(np.float32)
        qd = rng.uniform(-2.0, 2.0, 10).astype(np.float32)
        state = model.state()
        wp.sim.eval_fk(model, wp.array(q, dtype=float), wp.array(qd, dtype=float), None, state)
        q2, qd2 = joint_coordinates(model, state)
        assert q2 == pytest.approx(q, abs=2e-5)
        assert qd2 == pytest.approx(qd, abs=2e-4)


@wp.kernel
def tip_loss(body_q: wp.array(dtype=wp.transform), loss: wp.array(dtype=float)):
    p = wp.transform_point(body_q[0], wp.vec3(0.0, -0.4, 0.0))
    loss[0] = p[0] - 0.5 * p[1] + 0.3 * p[2]


def d6_loss(act, tape=None):
    b = wp.sim.ModelBuilder()
    b.ground = False
    b.joint_attach_ke = 2.0e4
    body = b.add_body(origin=((0.0, -0.4, 0.0), (0.0, 0.0, 0.0, 1.0)))
    b.add_shape_capsule(body=body, radius=0.05, half_height=0.3)
    drive = dict(target_ke=30.0, target_kd=1.0, mode=wp.sim.JOINT_MODE_TARGET_POSITION)
    b.add_joint_d6(-1, body, linear_axes=[wp.sim.JointAxis((1.0, 0.0, 0.0), **drive)],
                   angular_axes=[wp.sim.JointAxis((0.0, 0.0, 1.0), **drive), wp.sim.JointAxis((1.0, 0.0, 0.0), **drive)],
                   child_xform=((0.0, 0.4, 0.0), (0.0, 0.0, 0.0, 1.0)))
    model = b.finalize(device="cpu", requires_grad=tape is not None)
    control = model.control()
    control.joint_act.assign(np.array(act, dtype=np.float32))
    it = wp.sim.SemiImplicitIntegrator()
    states = [model.state() for _ in range(301)]
    loss = wp.zeros(1, dtype=float, requires_grad=tape is not None)

    def run():
        for k in range(300):
            it.simulate(model, states[k], states[k + 1], 5.0e-4, control)
        wp.launch(tip_loss, dim=1, inputs=[states[-1].body_q], outputs=[loss])

    if tape is None:
        run()
        return float(loss.numpy()[0]), None
    with tape:
        run()
    tape.backward(loss)
    return float(loss.numpy()[0]), control.joint_act.grad.numpy().copy()


def test_tape_gradient_with_respect_to_d6_drive_targets_matches_finite_differences():
    act = [0.1, 0.3, -0.2]
    _, grad = d6_loss(act, wp.Tape())
    for k in range(3):
        eps = 5e-3
        hi, lo = list(act), list(act)
        hi[k] += eps
        lo[k] -= eps
        fd = (d6_loss(hi)[0] - d6_loss(lo)[0]) / (2 * eps)
        assert abs(fd) > 1e-3
        assert grad[k] == pytest.approx(fd, rel=0.03), k


def test_joint_axis_copies_and_defaults_as_warps():
    a = wp.sim.JointAxis((0.0, 2.0, 0.0), limit_lower=0.2, limit_upper=0.6, mode=wp.sim.JOINT_MODE_TARGET_POSITION)
    assert a.action == pytest.approx(0.4)  # a position drive whose limits exclude 0 starts mid-range
    b = wp.sim.JointAxis(a)
    assert (b.axis, b.limit_lower, b.limit_ke, b.limit_kd, b.mode) == ((0.0, 1.0, 0.0), 0.2, 100.0, 10.0, a.mode)
    assert wp.sim.JointAxis((1.0, 0.0, 0.0)).action == 0.0
    assert (wp.sim.JOINT_COMPOUND, wp.sim.JOINT_UNIVERSAL, wp.sim.JOINT_D6) == (5, 6, 8)


def test_mistakes_raise_by_name():
    b = wp.sim.ModelBuilder()
    p = b.add_body()
    c = b.add_body()
    x, y, z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
    with pytest.raises(TypeError, match="linear_axis"):
        b.add_joint_d6(p, c, linear_axis=[x])
    with pytest.raises(TypeError, match="axis_2"):
        b.add_joint_universal(p, c, x, y, axis_2=z)
    with pytest.raises(TypeError, match="limit_lower"):
        b.add_joint_compound(p, c, x, y, z, limit_lower=-1.0)
    with pytest.raises(wp.sim.BuildError, match=r"add_joint_d6: 4 linear axes given; a joint has at most 3 of each"):
        b.add_joint_d6(p, c, linear_axes=[x, y, z, x])
    with pytest.raises(wp.sim.BuildError,
                       match=r"add_joint_d6: angular_axes\[1\]: axis must be a nonzero vector, got \(0, 0, 0\)"):
        b.add_joint_d6(p, c, angular_axes=[x, (0.0, 0.0, 0.0)])
    with pytest.raises(wp.sim.BuildError, match="add_joint_universal: axis_0 and axis_1 must be perpendicular"):
        b.add_joint_universal(p, c, x, (1.0, 1.0, 0.0))
    with pytest.raises(wp.sim.BuildError, match=r"add_joint_compound: axis_1.limit_lower must be a finite number, got nan"):
        b.add_joint_compound(p, c, x, wp.sim.JointAxis(y, limit_lower=float("nan")), z)
    with pytest.raises(wp.sim.BuildError, match=r"add_joint_d6: linear_axes\[0\].axis must have 3 components, got 2"):
        b.add_joint_d6(p, c, linear_axes=[(1.0, 0.0)])
    with pytest.raises(wp.sim.BuildError, match="add_joint_d6: linear_axes must be a list"):
        b.add_joint_d6(p, c, linear_axes=3)
    with pytest.raises(wp.sim.BuildError, match="add_joint_universal: angular_compliance must be >= 0, got -0.5"):
        b.add_joint_universal(p, c, x, y, angular_compliance=-0.5)
    assert b.joint_count == 0


def test_generic_add_joint_makes_each_type_with_its_axes():
    b = wp.sim.ModelBuilder()
    bodies = [b.add_body() for _ in range(6)]
    A = wp.sim.JointAxis
    j = [b.add_joint(wp.sim.JOINT_REVOLUTE, -1, bodies[0], angular_axes=[A((0.0, 0.0, 1.0), limit_lower=-0.5, limit_upper=0.5)]),
         b.add_joint(wp.sim.JOINT_PRISMATIC, bodies[0], bodies[1], linear_axes=[(0.0, 1.0, 0.0)]),
         b.add_joint(wp.sim.JOINT_BALL, bodies[1], bodies[2]),
         b.add_joint(wp.sim.JOINT_UNIVERSAL, bodies[2], bodies[3], angular_axes=[(1.0, 0.0, 0.0), (0.0, 1.0, 0.0)]),
         b.add_joint(wp.sim.JOINT_COMPOUND, bodies[3], bodies[4],
                     angular_axes=[(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]),
         b.add_joint(wp.sim.JOINT_D6, bodies[4], bodies[5], linear_axes=[(1.0, 0.0, 0.0)], name="slider")]
    assert j == [0, 1, 2, 3, 4, 5]
    model = b.finalize(device="cpu")
    assert model.joint_type.numpy().tolist() == [1, 0, 2, 6, 5, 8]
    assert model.joint_axis_start.numpy().tolist() == [0, 1, 2, 3, 5, 8, 9]
    assert model.joint_axis_count == 9
    assert model.joint_axis_mode.numpy().tolist() == model.joint_mode.numpy().tolist()  # Warp's name
    assert model.joint_limit_upper.numpy()[0] == pytest.approx(0.5)
    assert model.joint_limit_kd.numpy()[0] == 10.0  # JointAxis's default
    with pytest.raises(wp.sim.BuildError, match="add_joint: a universal joint has 0 linear and 2 angular axes, got 0 and 1"):
        b.add_joint(wp.sim.JOINT_UNIVERSAL, -1, bodies[0], angular_axes=[(1.0, 0.0, 0.0)])
    with pytest.raises(wp.sim.BuildError, match="add_joint: a distance joint has 1 linear and 0 angular axes, got 0 and 0"):
        b.add_joint(wp.sim.JOINT_DISTANCE, -1, bodies[0])
    with pytest.raises(wp.sim.BuildError, match="add_joint: joint_type 9 is not a joint type"):
        b.add_joint(9, -1, bodies[0])
    with pytest.raises(TypeError, match="axes"):
        b.add_joint(wp.sim.JOINT_D6, -1, bodies[0], axes=[(1.0, 0.0, 0.0)])
