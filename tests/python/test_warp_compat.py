"""Warp compatibility, issue 19's first part: what used to give silently wrong results or drop
input without a word. Each test failed before its fix; the references are analytic (or another
way of computing the same thing: a recorded rollout against a checkpointed one, two randn calls
in one statement against two statements)."""
import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401


# ---- gradients of arrays held in struct fields, and of arrays of structs ----

@wp.struct
class Inner:
    w: wp.array(dtype=float)


@wp.struct
class Holder:
    x: wp.array(dtype=float)
    scale: float
    inner: Inner


@wp.func
def held_value(h: Holder, i: int) -> float:
    return h.x[i] * h.inner.w[i]


@wp.kernel
def struct_field_loss(h: Holder, loss: wp.array(dtype=float)):
    i = wp.tid()
    # d/dx = 2 x scale + w, d/dw = x
    wp.atomic_add(loss, 0, h.x[i] * h.x[i] * h.scale + held_value(h, i))


def test_arrays_in_struct_fields_get_gradients_through_the_tape():
    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    w = wp.array([0.5, -1.0, 4.0], dtype=float, requires_grad=True)
    h = Holder(x=x, scale=3.0, inner=Inner(w=w))
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(struct_field_loss, dim=3, inputs=[h, loss])
    tape.backward(loss)
    assert np.allclose(x.grad.numpy(), 2.0 * np.array([1.0, 2.0, 3.0]) * 3.0 + np.array([0.5, -1.0, 4.0]))
    assert np.allclose(w.grad.numpy(), [1.0, 2.0, 3.0])
    assert x in tape.gradients and w in tape.gradients  # the tape saw the arrays the struct held
    tape.zero()
    assert not x.grad.numpy().any()


@wp.struct
class Body:
    pos: wp.vec3
    mass: float
    tag: int


@wp.kernel
def double_position(bodies: wp.array(dtype=Body), out: wp.array(dtype=Body)):
    i = wp.tid()
    b = bodies[i]
    b.pos = b.pos * 2.0
    out[i] = b


@wp.kernel
def struct_array_energy(bodies: wp.array(dtype=Body), loss: wp.array(dtype=float)):
    i = wp.tid()
    b = bodies[i]
    wp.atomic_add(loss, 0, b.mass * wp.dot(b.pos, b.pos))


def test_arrays_of_structs_get_gradients_through_loads_and_stores():
    src = [Body(pos=wp.vec3(1.0, 2.0, -1.0), mass=2.0, tag=1), Body(pos=wp.vec3(0.5, 0.0, 3.0), mass=0.25, tag=2)]
    bodies = wp.array(src, dtype=Body, requires_grad=True)
    doubled = wp.zeros(2, dtype=Body, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(double_position, dim=2, inputs=[bodies, doubled])
        wp.launch(struct_array_energy, dim=2, inputs=[doubled, loss])
    tape.backward(loss)
    # loss = sum m |2 p|^2: d/dp = 8 m p, d/dm = 4 |p|^2
    for b, g in zip(src, bodies.grad.list()):
        p = np.array(list(b.pos))
        assert np.allclose(list(g.pos), 8.0 * b.mass * p)
        assert g.mass == pytest.approx(4.0 * p.dot(p))


# ---- wp.clone on a Tape ----

@wp.kernel
def sum_of_squares(a: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, a[i] * a[i])


def test_clone_recorded_on_a_tape_passes_the_gradient_back():
    x = wp.array([1.0, -2.0, 0.5], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        y = wp.clone(x)
        wp.launch(sum_of_squares, dim=3, inputs=[y, loss])
    tape.backward(loss)
    assert y.requires_grad
    assert np.allclose(x.grad.numpy(), 2.0 * np.array([1.0, -2.0, 0.5]))


# ---- two random draws in one statement ----

@wp.kernel
def two_draws_one_statement(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.rand_init(42, i)
    out[i] = x[i] * (wp.randn(s) + wp.randf(s))


@wp.kernel
def two_draws_two_statements(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.rand_init(42, i)
    a = wp.randn(s)
    b = wp.randf(s)
    out[i] = x[i] * (a + b)


def test_two_random_draws_in_one_statement_compile_and_differentiate():
    x = wp.array(np.linspace(1.0, 2.0, 16), dtype=float, requires_grad=True)
    out = wp.zeros(16, dtype=float, requires_grad=True)
    ref = wp.zeros(16, dtype=float)
    with wp.Tape() as tape:
        wp.launch(two_draws_one_statement, dim=16, inputs=[x, out])
    wp.launch(two_draws_two_statements, dim=16, inputs=[x, ref])
    assert np.array_equal(out.numpy(), ref.numpy())
    tape.backward(grads={out: np.ones(16, dtype=np.float32)})
    # d out / d x = the two draws of the forward pass, replayed from the same state
    assert np.allclose(x.grad.numpy(), ref.numpy() / x.numpy(), rtol=1e-6)


# ---- keywords: as in Warp, or a TypeError naming them ----

def test_array_constructors_take_warps_keywords_or_name_the_unknown_one():
    assert wp.zeros(n=3).shape == (3,)  # Warp's old spelling of shape
    assert wp.empty(n=2, dtype=wp.vec3).shape == (2,)
    with pytest.raises(TypeError, match=r"wp.zeros\(\) got an unexpected keyword argument 'm'"):
        wp.zeros(m=1)
    with pytest.raises(TypeError, match=r"wp.full\(\) got an unexpected keyword argument 'fill'"):
        wp.full(3, fill=2.0)
    with pytest.raises(TypeError, match=r"ptr= \(wrapping memory by its address\) is not supported"):
        wp.array(ptr=12345, shape=(4,), dtype=float)
    with pytest.raises(TypeError, match=r"strides=\(8,\) differ from the array's contiguous strides \(4,\)"):
        wp.array(np.ones(4, dtype=np.float32), strides=(8,))
    assert wp.array(np.ones(4, dtype=np.float32), strides=(4,)).strides == (4,)
    with pytest.raises(TypeError, match=r"copy=False \(aliasing the data\) is not supported"):
        wp.array(np.ones(4, dtype=np.float32), copy=False)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'dtyp'"):
        wp.array(np.ones(4), dtyp=float)
    a = wp.zeros(3, pinned=False)
    assert wp.zeros_like(a, pinned=False).shape == (3,) and wp.clone(a, pinned=False).shape == (3,)


def test_array_grad_is_assignable():
    x = wp.array([1.0, 2.0, 3.0], dtype=float)
    g = wp.zeros(3, dtype=float)
    x.grad = g
    assert x.requires_grad
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(sum_of_squares, dim=3, inputs=[x, loss])
    tape.backward(loss)
    assert np.allclose(g.numpy(), [2.0, 4.0, 6.0])  # the assigned array received the gradient
    with pytest.raises(RuntimeError, match=r"it must have the same shape, dtype and device"):
        x.grad = wp.zeros(4, dtype=float)
    y = wp.array([1.0, 2.0], dtype=float, grad=wp.ones(2, dtype=float))
    assert np.allclose(y.grad.numpy(), 1.0)
    x.grad = None
    assert not x.requires_grad


def test_sim_builder_methods_name_unknown_keywords():
    b = wp.sim.ModelBuilder()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'radiuss'"):
        b.add_shape_sphere(radiuss=0.25, ke=1e5)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'k_mu_typo'"):
        b.add_soft_grid((0, 0, 0), (0, 0, 0, 1), (0, 0, 0), 1, 1, 1, 0.1, 0.1, 0.1, 1.0, 1.0, 1.0, 0.0, k_mu_typo=1)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'normal'"):
        b.add_shape_plane(normal=(0, 1, 0))
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'sdf_res'"):
        b.add_shape_mesh(mesh=wp.sim.Mesh([(0, 0, 0), (1, 0, 0), (0, 0, 1)], [0, 2, 1]), sdf_res=8)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_plane: width=10.0: finite planes are not supported"):
        b.add_shape_plane(width=10.0)
    b.add_particle((0, 1, 0), (0, 0, 0), 1.0)
    model = b.finalize("cpu")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'soft_contact_margin'"):
        wp.sim.collide(model, model.state(), soft_contact_margin=0.1)
    with pytest.raises(TypeError, match=r"collide\(\): edge_sdf_iter=3 is not supported"):
        wp.sim.collide(model, model.state(), edge_sdf_iter=3)
    assert wp.sim.collide(model, model.state(), edge_sdf_iter=10, requires_grad=False) == 0


def test_autograd_and_tape_keywords_are_warps_or_raise():
    x = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'max_output_per_var'"):
        wp.autograd.jacobian(sum_of_squares, 2, [x], [loss], max_output_per_var=1)
    with pytest.raises(TypeError, match=r"jacobian\(\): plot_jacobians=True is not supported"):
        wp.autograd.jacobian(sum_of_squares, 2, [x], [loss], plot_jacobians=True)
    j = wp.autograd.jacobian(sum_of_squares, 2, [x], [loss], max_blocks=0, metadata=None)
    assert np.allclose(j[(0, 0)], [[2.0, 4.0]])
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'epsilon'"):
        wp.autograd.gradcheck(sum_of_squares, 2, [x], [loss], epsilon=1e-3)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'rankdir'"):
        wp.Tape().visualize(rankdir="TB")
    with pytest.raises(TypeError, match=r"visualize\(\): graph_direction='TB' is not supported"):
        wp.Tape().visualize(graph_direction="TB")


# ---- wp.sim physics as Warp computes it ----

def _one_step(model, dt=1e-3):
    s0, s1 = model.state(), model.state()
    wp.sim.SemiImplicitIntegrator().simulate(model, s0, s1, dt)
    return s1.particle_qd.numpy()


def test_particle_shape_contact_averages_the_shape_material_with_soft_contact():
    # A particle of radius 0.1 resting 0.02 deep in a sphere shape (and in a plane), no gravity,
    # at rest: one step gives dv = dt ke depth / m with Warp's ke = (soft_contact_ke + shape ke) / 2.
    for add_shape in (lambda b: b.add_shape_sphere(pos=(0.0, 0.0, 0.0), radius=1.0, ke=3.0e4),
                      lambda b: b.add_shape_plane(plane=(0.0, 1.0, 0.0, -1.0), ke=3.0e4, thickness=0.0)):
        b = wp.sim.ModelBuilder(gravity=0.0)
        b.add_particle((0.0, 1.08, 0.0), (0.0, 0.0, 0.0), mass=2.0, radius=0.1)
        add_shape(b)
        model = b.finalize("cpu")
        model.ground = False
        model.soft_contact_ke = 1.0e3
        v = _one_step(model)[0]
        assert v[1] == pytest.approx(1e-3 * 0.5 * (1.0e3 + 3.0e4) * 0.02 / 2.0, rel=1e-3)
        assert abs(v[0]) < 1e-6 and abs(v[2]) < 1e-6


def test_triangle_drag_and_lift_are_simulated():
    # One triangle in the xz plane moving at a uniform velocity (no strain, no strain rate), no
    # gravity: its vertices feel only Warp's drag and lift.
    for vel in ((0.0, -2.0, 0.0), (1.0, -1.0, 0.5)):
        b = wp.sim.ModelBuilder(gravity=0.0)
        for p in ((0.0, 1.0, 0.0), (1.0, 1.0, 0.0), (0.0, 1.0, 1.0)):
            b.add_particle(p, vel, mass=0.5)
        b.add_triangle(0, 1, 2, tri_drag=0.3, tri_lift=0.7)
        model = b.finalize("cpu")
        model.ground = False
        dt = 1e-3
        dv = _one_step(model, dt) - np.array(vel)
        x = np.array([(0.0, 1.0, 0.0), (1.0, 1.0, 0.0), (0.0, 1.0, 1.0)])
        n = np.cross(x[1] - x[0], x[2] - x[0])
        area = np.linalg.norm(n) / 2.0
        n = n / np.linalg.norm(n)
        vm = np.array(vel) * 3 * 0.3333
        f = vm * 0.3 * area * abs(n.dot(vm)) + n * 0.7 * area * (np.pi / 2 - np.arccos(n.dot(vm / np.linalg.norm(vm)))) * vm.dot(vm)
        for i in range(3):
            assert np.allclose(dv[i], -dt * f / 0.5, rtol=1e-3, atol=1e-6)


@pytest.mark.parametrize("dims", [(1, 1, 1), (2, 1, 3)])
def test_soft_grid_adds_its_surface_triangles(dims):
    dx, dy, dz = dims
    b = wp.sim.ModelBuilder()
    b.add_soft_grid((0, 0, 0), (0, 0, 0, 1), (0, 0, 0), dx, dy, dz, 0.1, 0.1, 0.1, 100.0, 1e3, 1e3, 0.0)
    model = b.finalize("cpu")
    assert model.tet_count == 5 * dx * dy * dz
    # every face of the box's surface is two triangles; interior faces are left out
    assert model.tri_count == 4 * (dx * dy + dy * dz + dx * dz)
    # each surface triangle lies on the box's boundary, and together they cover its area
    q = model.particle_q.numpy()
    tris = model.tri_indices.numpy()
    hi = 0.1 * np.array(dims)
    area = 0.0
    for t in tris:
        p = q[t]
        assert any(np.allclose(p[:, a], 0.0) or np.allclose(p[:, a], hi[a]) for a in range(3))
        area += np.linalg.norm(np.cross(p[1] - p[0], p[2] - p[0])) / 2.0
    assert area == pytest.approx(2 * (hi[0] * hi[1] + hi[1] * hi[2] + hi[0] * hi[2]), rel=1e-5)


def test_particle_contact_starts_when_the_particle_grid_is_built():
    # As in Warp: particles collide with each other once model.particle_grid is built.
    b = wp.sim.ModelBuilder(gravity=0.0)
    b.add_particle((0.0, 1.0, 0.0), (0.0, 0.0, 0.0), mass=1.0, radius=0.1)
    b.add_particle((0.15, 1.0, 0.0), (0.0, 0.0, 0.0), mass=1.0, radius=0.1)
    model = b.finalize("cpu")
    model.ground = False
    assert np.allclose(_one_step(model), 0.0)
    model.particle_grid.build(model.particle_q, 0.2)
    v = _one_step(model)
    # overlap 0.05 pushes them apart, equal and opposite: dv = dt particle_ke 0.05 / m
    assert v[0][0] == pytest.approx(-1e-3 * model.particle_ke * 0.05, rel=1e-4)
    assert v[1][0] == pytest.approx(-v[0][0], rel=1e-6)


def test_model_gravity_edits_the_model():
    b = wp.sim.ModelBuilder(gravity=-9.8)
    b.add_particle((0.0, 1.0, 0.0), (0.0, 0.0, 0.0), mass=1.0)
    model = b.finalize("cpu")
    model.ground = False
    assert np.allclose(model.gravity, (0.0, -9.8, 0.0))
    model.gravity[1] = 0.0
    assert np.allclose(model.gravity, 0.0)
    assert np.allclose(_one_step(model), 0.0)
    model.gravity = (1.0, 0.0, 0.0)
    assert _one_step(model)[0][0] == pytest.approx(1e-3)


@wp.kernel
def height_loss(q: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, q[i][1] + q[i][0] * q[i][0])


def _rollout_model():
    b = wp.sim.ModelBuilder(gravity=-9.8)
    b.add_particle((0.0, 0.3, 0.0), (0.5, 0.0, 0.0), mass=1.0, radius=0.05)
    b.add_particle((0.5, 0.2, 0.0), (0.0, 1.0, 0.0), mass=2.0, radius=0.05)
    b.add_spring(0, 1, ke=100.0, kd=1.0)
    return b.finalize("cpu", requires_grad=True)


def test_tape_gradients_list_arrays_used_only_inside_integrators():
    model = _rollout_model()
    states = [model.state() for _ in range(4)]
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    integrator = wp.sim.SemiImplicitIntegrator()
    with wp.Tape() as tape:
        for i in range(3):
            integrator.simulate(model, states[i], states[i + 1], 1e-2)
        wp.launch(height_loss, dim=2, inputs=[states[-1].particle_q, loss])
    tape.backward(loss)
    g = tape.gradients
    assert states[0].particle_qd in g and states[0].particle_q in g and model.spring_rest_length in g
    assert np.abs(g[states[0].particle_qd].numpy()).sum() > 0


def test_checkpoint_accepts_sim_states_and_matches_the_recorded_rollout():
    n, dt = 8, 1e-2
    integrator = wp.sim.SemiImplicitIntegrator()

    def gradients(checkpointed):
        model = _rollout_model()
        loss = wp.zeros(1, dtype=float, requires_grad=True)
        first, last = model.state(), model.state()
        with wp.Tape() as tape:
            if checkpointed:
                wp.checkpoint(lambda a, b: integrator.simulate(model, a, b, dt), n, first, last, segment=3)
            else:
                states = [first] + [model.state() for _ in range(n - 1)] + [last]
                for i in range(n):
                    integrator.simulate(model, states[i], states[i + 1], dt)
            wp.launch(height_loss, dim=2, inputs=[last.particle_q, loss])
        tape.backward(loss)
        return last.particle_q.numpy().copy(), first.particle_qd.grad.numpy().copy()

    q_ref, g_ref = gradients(False)
    q, g = gradients(True)
    assert np.allclose(q, q_ref, rtol=1e-6)
    assert np.allclose(g, g_ref, rtol=1e-5, atol=1e-7) and np.abs(g_ref).sum() > 0
