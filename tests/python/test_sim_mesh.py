"""wp.sim mesh shapes from Python: wp.sim.Mesh and ModelBuilder.add_shape_mesh under Warp's
names. A mesh box behaves as the analytic box (rest height; the bounce off a wall, gradient
included, against central finite differences); a mesh on a body has the box's mass and inertia and
rests on its vertices; mistakes raise BuildError with their message."""
import os
import sys

import numpy as np
import pytest

import weft as wp
import weft.sim  # noqa: F401

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_bounce  # noqa: E402


def box_mesh(hx, hy, hz):
    """12 triangles, counter-clockwise seen from outside, as an (8, 3) and a (12, 3) array."""
    v = np.array([[hx if k & 1 else -hx, hy if k & 2 else -hy, hz if k & 4 else -hz] for k in range(8)])
    quads = [(0, 4, 6, 2), (1, 3, 7, 5), (0, 1, 5, 4), (2, 6, 7, 3), (0, 2, 3, 1), (4, 5, 7, 6)]
    tris = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    return wp.sim.Mesh(v, tris)


def rest_height(use_mesh):
    b = wp.sim.ModelBuilder()
    b.ground = False
    b.soft_contact_ke = 1.0e4
    b.soft_contact_kd = 20.0
    # the shapes' material is the contact's (particle contact averages the two, as in Warp)
    if use_mesh:
        b.add_shape_mesh(body=-1, pos=(0.0, 0.0, 0.0), mesh=box_mesh(0.5, 0.5, 0.5), scale=(0.6, 0.4, 0.6), ke=1.0e4, kd=20.0)
    else:
        b.add_shape_box(body=-1, pos=(0.0, 0.0, 0.0), hx=0.3, hy=0.2, hz=0.3, ke=1.0e4, kd=20.0)
    b.add_particle(pos=(0.05, 0.3, 0.0), vel=(0.0, 0.0, 0.0), mass=0.1, radius=0.05)
    model = b.finalize(device="cpu")
    s0, s1 = model.state(), model.state()
    integrator = wp.sim.SemiImplicitIntegrator()
    for _ in range(3000):
        s0.clear_forces()
        integrator.simulate(model, s0, s1, 5.0e-4)
        s0, s1 = s1, s0
    return float(s0.particle_q.numpy()[0][1]), model


def test_particle_rests_on_a_mesh_box_as_on_the_box():
    on_mesh, model = rest_height(True)
    on_box, _ = rest_height(False)
    assert on_mesh == pytest.approx(on_box, abs=1e-5)
    assert on_box == pytest.approx(0.2 + 0.05 - 0.1 * 9.80665 / 1.0e4, abs=2e-4)
    dims = model.shape_sdf_dims.numpy()
    assert dims.shape == (1, 4) and dims[0][0] == 0
    assert model.shape_sdf_size == dims[0][1] * dims[0][2] * dims[0][3] == model.shape_sdf_values.shape[0]
    assert model.shape_geo_type.numpy()[0] == 5  # GEO_MESH, Warp's number


class MeshBounce(sim_bounce.Bounce):
    """examples/sim_bounce.py with its wall given as a triangle mesh."""

    def __init__(self):
        b = wp.sim.ModelBuilder()
        b.add_particle(pos=(-0.5, 1.0, 0.0), vel=(5.0, -5.0, 0.0), mass=1.0, radius=0.1)
        b.add_shape_mesh(body=-1, pos=(2.0, 1.0, 0.0), mesh=box_mesh(0.25, 1.0, 1.0), ke=1.0e4, kd=10.0, kf=0.0, mu=0.2)
        model = b.finalize(device="cpu", requires_grad=True)
        super().__init__("cpu")
        model.soft_contact_ke, model.soft_contact_kd = 1.0e4, 10.0
        model.soft_contact_kf, model.soft_contact_mu = 0.0, 0.2
        self.model = model
        self.states = [self.model.state() for _ in range(self.steps + 1)]


def test_bounce_off_a_mesh_wall_matches_the_box_wall_and_finite_differences():
    v = np.array([5.0, -5.0, 0.0])
    mesh, box = MeshBounce(), sim_bounce.Bounce("cpu")
    loss_mesh, grad_mesh = mesh.loss_and_gradient(v)
    loss_box, grad_box = box.loss_and_gradient(v)
    assert loss_mesh == pytest.approx(loss_box, rel=1e-4)
    eps = 1e-3
    for k in range(2):
        dv = np.zeros(3)
        dv[k] = eps
        fd = (mesh.forward(v + dv) - mesh.forward(v - dv)) / (2 * eps)
        assert grad_mesh[k] == pytest.approx(fd, rel=0.05), f"component {k}"
        assert grad_mesh[k] == pytest.approx(grad_box[k], rel=1e-3), f"component {k}"


def test_mesh_mistakes_are_named():
    b = wp.sim.ModelBuilder()
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: body 2 is out of range \(the model has 0 bodies; -1 is static\)"):
        b.add_shape_mesh(body=2, mesh=box_mesh(1, 1, 1))
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: mesh must be a wp.sim.Mesh, got NoneType"):
        b.add_shape_mesh(pos=(0.0, 0.0, 0.0))
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: index 9 \(triangle 0\) is out of range \(the mesh has 3 vertices\)"):
        b.add_shape_mesh(mesh=wp.sim.Mesh([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [0, 1, 9]))
    with pytest.raises(wp.sim.BuildError, match=r"Mesh: vertices must be \(x, y, z\) points, got one with 2 coordinates"):
        wp.sim.Mesh([(0, 0), (1, 0), (0, 1)], [0, 1, 2])
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: sdf_resolution must be from 4 to 512, got 1000"):
        b.add_shape_mesh(mesh=box_mesh(1, 1, 1), sdf_resolution=1000)
    assert repr(box_mesh(1, 1, 1)) == "<weft.sim.Mesh: 8 vertices, 12 triangles>"
    # Warp's defaults (pos, rot, scale None) are accepted
    assert b.add_shape_mesh(body=-1, pos=None, rot=None, mesh=box_mesh(1, 1, 1), scale=None, density=100.0) == 0


def test_a_mesh_on_a_body_has_the_solids_mass_and_rests_on_its_vertices():
    b = wp.sim.ModelBuilder()
    body = b.add_body(origin=wp.transform((0.0, 0.25, 0.0), wp.quat_identity()))
    # a box of half extents (0.3, 0.2, 0.1) as the mesh of a unit box scaled, 0.1 m off the body's origin
    b.add_shape_mesh(body=body, pos=(0.1, 0.0, 0.0), mesh=box_mesh(0.5, 0.5, 0.5), scale=(0.6, 0.4, 0.2), density=500.0)
    model = b.finalize(device="cpu")
    m = 0.6 * 0.4 * 0.2 * 500.0
    assert model.body_mass.numpy()[0] == pytest.approx(m, rel=1e-6)
    assert model.body_com.numpy()[0] == pytest.approx([0.1, 0.0, 0.0], abs=1e-7)
    inertia = np.diag([m / 12 * (0.4**2 + 0.2**2), m / 12 * (0.6**2 + 0.2**2), m / 12 * (0.6**2 + 0.4**2)])
    assert model.body_inertia.numpy()[0] == pytest.approx(inertia, rel=1e-5, abs=1e-9)
    s0, s1 = model.state(), model.state()
    integrator = wp.sim.XPBDIntegrator()
    for _ in range(600):
        integrator.simulate(model, s0, s1, 2.0e-3)
        s0, s1 = s1, s0
    q = s0.body_q.numpy()[0]
    assert q[1] == pytest.approx(0.2, abs=1.5e-3)  # on its lower face: half its height
    assert np.linalg.norm(s0.body_qd.numpy()[0]) < 2e-2


def test_body_mesh_mistakes_are_named():
    b = wp.sim.ModelBuilder()
    body = b.add_body()
    open_box = box_mesh(0.1, 0.1, 0.1)
    open_box = wp.sim.Mesh(open_box.vertices, open_box.indices[:-3])
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: the mesh is not closed: edge \(4, 6\) has a triangle on "
                       r"one side only, so the mesh has no volume \(pass density=0"):
        b.add_shape_mesh(body=body, mesh=open_box)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: is_solid=False \(hollow shapes\) is not supported"):
        b.add_shape_mesh(body=body, mesh=box_mesh(0.1, 0.1, 0.1), is_solid=False)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: sdf_resolution must be an int, got 2.5"):
        b.add_shape_mesh(body=body, mesh=box_mesh(0.1, 0.1, 0.1), sdf_resolution=2.5)
    hollow = box_mesh(0.1, 0.1, 0.1)
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: the wp.sim.Mesh was made with is_solid=False \(a hollow "
                       r"shell's mass\), which a mesh on a body does not support"):
        b.add_shape_mesh(body=body, mesh=wp.sim.Mesh(hollow.vertices, hollow.indices, is_solid=False))
    with pytest.raises(wp.sim.BuildError, match=r"add_shape_mesh: the wp.sim.Mesh was made with compute_inertia=False "
                       r"\(Warp's unit mass and inertia\), which a mesh on a body does not support"):
        b.add_shape_mesh(body=body, mesh=wp.sim.Mesh(hollow.vertices, hollow.indices, compute_inertia=False))
    # an open mesh without density collides and adds no mass
    assert b.add_shape_mesh(body=body, mesh=open_box, density=0.0) == 0
