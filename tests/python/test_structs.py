"""@wp.struct from Python: structs as kernel arguments (scalars, vectors, nested structs and
array fields packed in the compiler's layout), and arrays of structs read and written by kernels."""
import numpy as np

import weft as wp


@wp.struct
class Material:
    stiffness: float
    damping: wp.float64
    tint: wp.vec3


@wp.struct
class Particle:
    pos: wp.vec3
    vel: wp.vec3
    mass: float
    id: int


@wp.struct
class Params:
    gravity: wp.vec3
    dt: float
    material: Material
    weights: wp.array(dtype=float)
    flags: wp.int8


@wp.kernel
def step(particles: wp.array(dtype=Particle), p: Params, out_energy: wp.array(dtype=float)):
    i = wp.tid()
    q = particles[i]
    q.vel = q.vel + p.gravity * p.dt
    q.pos = q.pos + q.vel * p.dt
    particles[i] = q
    w = p.weights[i]
    out_energy[i] = 0.5 * q.mass * wp.dot(q.vel, q.vel) * w + p.material.stiffness + float(p.flags)


def test_struct_argument_and_struct_array(device):
    n = 5
    items = []
    for k in range(n):
        q = Particle()
        q.pos = wp.vec3(float(k), 0.0, 0.0)
        q.vel = (0.0, 1.0, 0.0)
        q.mass = 2.0
        q.id = k
        items.append(q)
    particles = wp.array(items, dtype=Particle, device=device)
    assert particles.shape == (n,)
    weights = wp.array(np.arange(n, dtype=np.float32) + 1.0, device=device)

    p = Params()
    p.gravity = wp.vec3(0.0, -10.0, 0.0)
    p.dt = 0.1
    p.material = Material(stiffness=100.0, damping=0.5, tint=wp.vec3(1.0, 1.0, 1.0))
    p.weights = weights
    p.flags = 3
    energy = wp.zeros(n, dtype=float, device=device)
    wp.launch(step, dim=n, inputs=[particles, p, energy], device=device)

    vel = np.array([0.0, 1.0 - 1.0, 0.0])
    out = particles.list()
    for k in range(n):
        np.testing.assert_allclose(np.array(out[k].vel), vel, atol=1e-6)
        np.testing.assert_allclose(np.array(out[k].pos), [k, 0.0, 0.0], atol=1e-6)
        assert out[k].id == k and out[k].mass == 2.0
    np.testing.assert_allclose(energy.numpy(), np.full(n, 100.0 + 3.0), rtol=1e-6)

    # The structured numpy view reads the same memory.
    view = particles.numpy()
    assert view.dtype.names == ("pos", "vel", "mass", "id")
    np.testing.assert_array_equal(view["id"], np.arange(n))


@wp.kernel
def read_material(m: Material, out: wp.array(dtype=wp.float64), tint: wp.array(dtype=wp.vec3)):
    out[0] = wp.float64(m.stiffness) + m.damping
    tint[0] = m.tint


def test_struct_with_float64_and_vec3_fields(device):
    m = Material()
    m.stiffness = 3.0
    m.damping = 0.125
    m.tint = wp.vec3(0.25, 0.5, 0.75)
    out = wp.zeros(1, dtype=wp.float64, device=device)
    tint = wp.zeros(1, dtype=wp.vec3, device=device)
    wp.launch(read_material, dim=1, inputs=[m, out, tint], device=device)
    assert out.numpy()[0] == 3.125
    np.testing.assert_array_equal(tint.numpy()[0], [0.25, 0.5, 0.75])


def test_struct_defaults_and_layout():
    m = Material()
    assert m.stiffness == 0.0 and m.tint == wp.vec3(0.0, 0.0, 0.0)
    offsets = {name: off for name, _, off in Material._struct_type().fields}
    assert offsets == {"stiffness": 0, "damping": 8, "tint": 16}
    assert len(m.to_bytes()) == 32


def test_struct_array_from_structured_numpy(device):
    data = np.zeros(3, dtype=Particle.numpy_dtype())
    data["mass"] = [1.0, 2.0, 3.0]
    data["pos"][:, 1] = 5.0
    a = wp.array(data, dtype=Particle, device=device)
    items = a.list()
    assert [q.mass for q in items] == [1.0, 2.0, 3.0]
    assert items[2].pos == wp.vec3(0.0, 5.0, 0.0)
    z = wp.zeros(2, dtype=Particle, device=device)
    assert z.list()[0].numpy_value() == Particle().numpy_value()


def test_struct_instances_compare_and_hash_by_identity():
    # As in Warp: instances key dicts (tape.gradients[instance]); equal contents are not equality.
    a, b = Particle(), Particle()
    assert a == a and a != b
    assert {a: 1, b: 2}[a] == 1
