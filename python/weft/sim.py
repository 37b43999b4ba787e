"""wp.sim: the engine (particles and rigid bodies) from Python, under NVIDIA Warp 1.9's warp.sim names.

    import weft as wp
    import weft.sim

    builder = wp.sim.ModelBuilder(gravity=-9.81)
    builder.add_particle(pos=(0.0, 1.0, 0.0), vel=(1.0, 0.0, 0.0), mass=1.0, radius=0.1)
    model = builder.finalize(device="cpu", requires_grad=True)
    model.soft_contact_ke = 1.0e4
    states = [model.state() for _ in range(n + 1)]
    integrator = wp.sim.SemiImplicitIntegrator()
    with wp.Tape() as tape:
        for i in range(n):
            states[i].clear_forces()
            integrator.simulate(model, states[i], states[i + 1], dt)
        wp.launch(loss_kernel, dim=1, inputs=[states[-1].particle_q], outputs=[loss])
    tape.backward(loss)
    states[0].particle_qd.grad          # d loss / d initial velocity

The Model, State and Control are the C++ engine's (engine/model.h); their arrays appear as
wp.arrays sharing the same memory, so gradients, assign() and numpy() work on them directly.
Every step writes state_out from state_in, so a rollout that keeps one State per step can be
differentiated by the Tape (a rollout that swaps two states cannot: backward() says which array
was overwritten). Vectors are tuples (x, y, z); quaternions (x, y, z, w), as in Warp.
"""

import copy as _copy

import numpy as np

from . import _weft
from . import arrays as _arrays

BuildError = _weft.BuildError

__all__ = ["ModelBuilder", "Model", "State", "Control", "Mesh", "Integrator", "integrator_names", "create_integrator",
           "SemiImplicitIntegrator", "XPBDIntegrator", "FeatherstoneIntegrator", "MPMIntegrator", "SmokeIntegrator", "collide", "BuildError", "eval_fk", "eval_ik", "JOINT_PRISMATIC", "JOINT_REVOLUTE",
           "JOINT_BALL", "JOINT_FIXED", "JOINT_FREE", "JOINT_COMPOUND", "JOINT_UNIVERSAL", "JOINT_DISTANCE", "JOINT_D6", "JOINT_MODE_FORCE",
           "JOINT_MODE_TARGET_POSITION", "JOINT_MODE_TARGET_VELOCITY", "JointAxis"]

from .sim_joints import (JOINT_BALL, JOINT_COMPOUND, JOINT_D6, JOINT_DISTANCE, JOINT_FIXED, JOINT_FREE,  # noqa: E402,F401
                         JOINT_MODE_FORCE,
                         JOINT_MODE_TARGET_POSITION, JOINT_MODE_TARGET_VELOCITY, JOINT_PRISMATIC, JOINT_REVOLUTE,
                         JOINT_UNIVERSAL)
from ._sim_values import _F32_MAX, _IDENTITY, _f32, _f32s, _opt, _transform_parts  # noqa: E402,F401
from .sim_joints import JointAxis, _JointBuilder, _joint_keywords, _set_compliance  # noqa: E402
from .sim_voxels import _VoxelBuilder  # noqa: E402


_ARRAY_NAMES = {}  # C++ class -> names of its array attributes (_Wrapped._array_attributes)


class _Wrapped:
    """Forwards attributes to the C++ object; array attributes come back as wp.arrays (one
    wrapper per underlying array, so `tape.gradients[state.particle_q]` finds it)."""

    def __init__(self, cpp):
        object.__setattr__(self, "_cpp", cpp)
        object.__setattr__(self, "_arrays", {})

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        value = getattr(self._cpp, name)
        if isinstance(value, _weft.Array):
            cached = self._arrays.get(name)
            if cached is None or cached._handle().ptr != value.ptr or cached._handle().shape != value.shape:
                cached = _arrays.array._wrap(value)
                self._arrays[name] = cached
            return cached
        return value

    def __setattr__(self, name, value):
        if isinstance(value, _arrays.array):
            self._check_replacement(name, value._handle())
            setattr(self._cpp, name, value._handle())
            self._arrays[name] = value
        elif hasattr(self._cpp, name):
            setattr(self._cpp, name, value)
        else:
            object.__setattr__(self, name, value)

    def __dir__(self):
        return sorted(set(dir(self._cpp)) | set(object.__dir__(self)))

    def _array_attributes(self):
        """The wrappers of every non-empty array attribute (one object per attribute, as getattr gives)."""
        cpp = self._cpp
        names = _ARRAY_NAMES.get(type(cpp))
        if names is None:  # the array properties of a C++ class, found once (dir() is slow)
            names = [n for n in dir(cpp) if not n.startswith("_") and isinstance(getattr(cpp, n, None), _weft.Array)]
            _ARRAY_NAMES[type(cpp)] = names
        out = []
        for name in names:
            if getattr(cpp, name).size:
                out.append(getattr(self, name))
        return out

    def _check_replacement(self, name, new):
        """An array attribute may only be replaced by one of the same shape, dtype and device: the
        kernels index it by particle (or element) without bounds checks in release builds, so a
        wrong-sized array would be read past its end. (simulate() checks the State arrays again.)"""
        current = getattr(self._cpp, name, None)
        if not isinstance(current, _weft.Array) or current.describe() == new.describe():
            return
        if current.size == 0 and current.ptr == 0:  # an empty slot (Control.particle_f): shape checked by simulate()
            return
        count = getattr(self._cpp, "particle_count", None)
        model = f" (the model has {count} particles)" if count is not None else ""
        raise ValueError(f"{type(self).__name__}.{name}: cannot assign {new.describe()}: it must be {current.describe()}{model}; "
                         f"copy values into the existing array with {name}.assign(...) to keep it")


class _GravityView(np.ndarray):
    """model.gravity as Warp has it (a numpy array of 3), whose item assignments
    (`model.gravity[1] = 0.0`) write through to the engine's model."""

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        cpp = getattr(self, "_model_cpp", None)
        if cpp is not None:
            cpp.gravity = [float(v) for v in np.asarray(self).reshape(-1)]


class ParticleGrid:
    """model.particle_grid, Warp's wp.HashGrid of the particles. In Warp, particle-particle contact
    happens once the grid is built (`model.particle_grid.build(state.particle_q, radius)`); here
    build() switches the model's particle contact on, and every step then rebuilds the grid from
    its input positions itself (engine/particle_grid.h). `radius` only sizes Warp's cells."""

    def __init__(self, model):
        self._model = model

    def build(self, points, radius):
        _f32("particle_grid.build", "radius", radius)
        self._model._cpp.particle_contact = True

    def reserve(self, num_points):
        pass  # the engine sizes its grid at finalize


class Model(_Wrapped):
    """What does not change during a rollout: topology, masses, materials, shapes (engine/model.h)."""

    @property
    def gravity(self):
        g = np.asarray(self._cpp.gravity, dtype=np.float32).view(_GravityView)
        g._model_cpp = self._cpp
        return g

    @property
    def particle_grid(self):
        grid = self.__dict__.get("_particle_grid")
        if grid is None:
            grid = ParticleGrid(self)
            object.__setattr__(self, "_particle_grid", grid)
        return grid

    def state(self, requires_grad=None):
        """A new State holding the model's initial positions and velocities (copies)."""
        return State(self._cpp.state(-1 if requires_grad is None else int(bool(requires_grad))))

    def control(self, clone_variables=True):
        return Control(self._cpp.control())

    def __repr__(self):
        return (f"<weft.sim.Model on {self._cpp.device}: {self._cpp.particle_count} particles, {self._cpp.spring_count} springs, "
                f"{self._cpp.tri_count} triangles, {self._cpp.tet_count} tetrahedra, {self._cpp.shape_count} shapes, "
                f"{self._cpp.body_count} bodies>")


class State(_Wrapped):
    """Positions, velocities and forces of the particles and bodies at one instant."""

    def clear_forces(self):
        self._cpp.clear_forces()


class Control(_Wrapped):
    """Inputs of a step: external forces (particle_f) and body wrenches (body_f: torque about the
    centre of mass, then force, world frame)."""


class Mesh:
    """A triangle mesh for add_shape_mesh, as Warp's wp.sim.Mesh(vertices, indices): `vertices` is
    a sequence of (x, y, z) points (or an (n, 3) array) and `indices` 3 vertex indices per triangle
    (flat, or an (m, 3) array), counter-clockwise seen from outside. Warp's other arguments are
    kept: a static mesh has no mass, so they do not matter there; on a body the mesh's mass is
    always computed (the solid's, from the density), and a mesh made with compute_inertia=False
    (Warp's unit mass and inertia) or is_solid=False (a hollow shell) is refused by name."""

    def __init__(self, vertices, indices, compute_inertia=True, is_solid=True):
        self.compute_inertia = bool(compute_inertia)
        self.is_solid = bool(is_solid)
        self.vertices = [tuple(float(c) for c in v) for v in vertices]
        flat = []
        for i in indices:
            if hasattr(i, "__len__"):
                flat.extend(int(j) for j in i)
            else:
                flat.append(int(i))
        self.indices = flat
        for v in self.vertices:
            if len(v) != 3:
                raise BuildError(f"Mesh: vertices must be (x, y, z) points, got one with {len(v)} coordinates")

    def __repr__(self):
        return f"<weft.sim.Mesh: {len(self.vertices)} vertices, {len(self.indices) // 3} triangles>"


def _joint_mode(name, where, value):
    """A drive mode of builder.joint_axis_mode: JOINT_MODE_FORCE (0), TARGET_POSITION (1) or
    TARGET_VELOCITY (2)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) not in (0, 1, 2):
        raise ValueError(f"{where} = {value!r}: a joint axis mode is JOINT_MODE_FORCE (0), JOINT_MODE_TARGET_POSITION (1) "
                         "or JOINT_MODE_TARGET_VELOCITY (2)")
    return int(value)


class _CoordinateList:
    """The builder's per-joint lists (joint_q, joint_qd, and per axis slot joint_act,
    joint_axis_mode) as lists that write through: `builder.joint_q[3] = 0.5` and slice
    assignments of the same length change the builder (Warp's builders hold Python lists; a copy
    here would drop such edits silently)."""

    def __init__(self, cpp, name, convert=None):
        object.__setattr__(self, "_cpp", cpp)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_convert", convert or _f32)

    def _values(self):
        return getattr(self._cpp, self._name)

    def __len__(self):
        return len(self._values())

    def __iter__(self):
        return iter(self._values())

    def __getitem__(self, k):
        return self._values()[k]

    def __setitem__(self, k, value):
        values = self._values()
        if isinstance(k, slice):
            new = [self._convert(self._name, f"{self._name}[{k.start}:{k.stop}]", v) for v in value]
            if len(range(*k.indices(len(values)))) != len(new):
                raise ValueError(f"{self._name}[{k.start}:{k.stop}] = ...: {len(new)} values for "
                                 f"{len(range(*k.indices(len(values))))} entries (the joints fix its length)")
            values[k] = new
        else:
            values[k] = self._convert(self._name, f"{self._name}[{k}]", value)
        setattr(self._cpp, self._name, values)

    def __eq__(self, other):
        return list(self) == list(other)

    def __repr__(self):
        return repr(self._values())


class _FilterPairs:
    """builder.shape_collision_filter_pairs: Warp's set of shape pairs that never collide, kept by the
    C++ builder (either order names the same pair)."""

    def __init__(self, cpp):
        self._cpp = cpp

    def add(self, pair):
        a, b = pair
        self._cpp.add_shape_collision_filter_pair(int(a), int(b))

    def update(self, pairs):
        for p in pairs:
            self.add(p)

    def discard(self, pair):
        a, b = pair
        self._cpp.discard_shape_collision_filter_pair(int(a), int(b))

    def __contains__(self, pair):
        a, b = pair
        return (min(a, b), max(a, b)) in set(self._cpp.shape_collision_filter_pairs)

    def __iter__(self):
        return iter(list(self._cpp.shape_collision_filter_pairs))

    def __len__(self):
        return len(self._cpp.shape_collision_filter_pairs)


class ModelBuilder(_JointBuilder, _VoxelBuilder):
    """Builds a Model on the host, then uploads it with finalize(device, requires_grad)."""

    def __init__(self, up_vector=(0.0, 1.0, 0.0), gravity=-9.80665):
        object.__setattr__(self, "_cpp", _weft.ModelBuilder(float(gravity), tuple(up_vector)))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._cpp, name)

    def __setattr__(self, name, value):
        prop = getattr(type(self), name, None)
        if isinstance(prop, property) and prop.fset is not None:  # a checked whole-list assignment
            prop.fset(self, value)
            return
        setattr(self._cpp, name, value)

    shape_collision_filter_pairs = property(
        lambda self: _FilterPairs(self._cpp),
        doc="Warp's set of (shape, shape) pairs that never collide: add((a, b)), discard, in, len, iteration")
    joint_q = property(lambda self: _CoordinateList(self._cpp, "joint_q"),
                       doc="Reduced coordinates (Warp's layout), written through by item and slice assignment")
    joint_qd = property(lambda self: _CoordinateList(self._cpp, "joint_qd"), doc="Reduced velocities (as joint_q)")
    joint_act = property(lambda self: _CoordinateList(self._cpp, "joint_act"),
                         doc="Each axis slot's initial drive input (a force, or a target by its mode), written through")

    def _set_joint_axis_mode(self, modes):
        modes = list(modes)
        if len(modes) != len(self._cpp.joint_axis_mode):
            raise ValueError(f"joint_axis_mode = [...]: {len(modes)} modes for {len(self._cpp.joint_axis_mode)} axis slots "
                             "(the joints fix its length)")
        self._cpp.joint_axis_mode = [_joint_mode("joint_axis_mode", f"joint_axis_mode[{k}]", m) for k, m in enumerate(modes)]

    joint_axis_mode = property(lambda self: _CoordinateList(self._cpp, "joint_axis_mode", _joint_mode), _set_joint_axis_mode,
                               doc="Each axis slot's drive mode (Warp's joint_axis_mode), written through")

    # Every number is checked by _f32 (finite, within float32, not silently 0) and the C++
    # builder checks the rest (masses >= 0, indices, degenerate elements): a BuildError, which is a
    # ValueError, names the call and the argument.
    def add_particle(self, pos, vel, mass, radius=None, flags=1):
        c = "add_particle"
        return self._cpp.add_particle(_f32s(c, "pos", pos, 3), _f32s(c, "vel", vel, 3), _f32(c, "mass", mass),
                                      _opt(c, "radius", radius, -1.0), int(flags))

    def add_spring(self, i, j, ke, kd, control=0.0, rest_length=None):
        c = "add_spring"
        return self._cpp.add_spring(int(i), int(j), _f32(c, "ke", ke), _f32(c, "kd", kd),
                                    _opt(c, "rest_length", rest_length, -1.0))

    def add_triangle(self, i, j, k, tri_ke=None, tri_ka=None, tri_kd=None, tri_drag=None, tri_lift=None):
        c = "add_triangle"
        return self._cpp.add_triangle(int(i), int(j), int(k), _opt(c, "tri_ke", tri_ke, -1.0), _opt(c, "tri_ka", tri_ka, -1.0),
                                      _opt(c, "tri_kd", tri_kd, -1.0), _opt(c, "tri_drag", tri_drag, 0.0),
                                      _opt(c, "tri_lift", tri_lift, 0.0))

    def add_edge(self, i, j, k, l, rest=None, edge_ke=None, edge_kd=None):  # noqa: E741
        c = "add_edge"
        return self._cpp.add_edge(int(i), int(j), int(k), int(l), _opt(c, "rest", rest, float("nan")),
                                  _opt(c, "edge_ke", edge_ke, -1.0), _opt(c, "edge_kd", edge_kd, -1.0))

    def add_tetrahedron(self, i, j, k, l, k_mu=1.0e3, k_lambda=1.0e3, k_damp=0.0):  # noqa: E741
        c = "add_tetrahedron"
        return self._cpp.add_tetrahedron(int(i), int(j), int(k), int(l), _f32(c, "k_mu", k_mu), _f32(c, "k_lambda", k_lambda),
                                         _f32(c, "k_damp", k_damp))

    def add_cloth_grid(self, pos, rot, vel, dim_x, dim_y, cell_x, cell_y, mass, reverse_winding=False, fix_left=False,
                       fix_right=False, fix_top=False, fix_bottom=False, tri_ke=None, tri_ka=None, tri_kd=None,
                       tri_drag=None, tri_lift=None, edge_ke=None, edge_kd=None, add_springs=False, spring_ke=None,
                       spring_kd=None, particle_radius=None):
        c = self._cpp
        f = lambda name, v: _f32("add_cloth_grid", name, v)  # noqa: E731
        checked = {k: f(k, v) for k, v in dict(tri_ke=tri_ke, tri_ka=tri_ka, tri_kd=tri_kd, tri_drag=tri_drag, tri_lift=tri_lift,
                                               edge_ke=edge_ke, edge_kd=edge_kd, spring_ke=spring_ke, spring_kd=spring_kd,
                                               particle_radius=particle_radius).items() if v is not None}
        tri_ke, tri_ka, tri_kd = checked.get("tri_ke"), checked.get("tri_ka"), checked.get("tri_kd")
        tri_drag, tri_lift = checked.get("tri_drag"), checked.get("tri_lift")
        edge_ke, edge_kd = checked.get("edge_ke"), checked.get("edge_kd")
        spring_ke, spring_kd, particle_radius = checked.get("spring_ke"), checked.get("spring_kd"), checked.get("particle_radius")
        pick = lambda v, default: float(default if v is None else v)  # noqa: E731
        pos, rot, vel = _f32s("add_cloth_grid", "pos", pos, 3), _f32s("add_cloth_grid", "rot", rot, 4), \
            _f32s("add_cloth_grid", "vel", vel, 3)
        c.add_cloth_grid(pos, rot, vel, int(dim_x), int(dim_y), f("cell_x", cell_x), f("cell_y", cell_y), f("mass", mass),
                         bool(reverse_winding), bool(fix_left), bool(fix_right), bool(fix_top), bool(fix_bottom),
                         pick(tri_ke, c.default_tri_ke), pick(tri_ka, c.default_tri_ka), pick(tri_kd, c.default_tri_kd),
                         pick(tri_drag, 0.0), pick(tri_lift, 0.0), pick(edge_ke, c.default_edge_ke),
                         pick(edge_kd, c.default_edge_kd), bool(add_springs), pick(spring_ke, c.default_spring_ke),
                         pick(spring_kd, c.default_spring_kd), pick(particle_radius, -1.0))

    def add_soft_grid(self, pos, rot, vel, dim_x, dim_y, dim_z, cell_x, cell_y, cell_z, density, k_mu, k_lambda, k_damp,
                      fix_left=False, fix_right=False, fix_top=False, fix_bottom=False, tri_ke=None, tri_ka=None,
                      tri_kd=None, tri_drag=None, tri_lift=None, particle_radius=None):
        """Warp's add_soft_grid: 5 tetrahedra per cell and, as Warp does, the grid's surface as
        triangles (tri_* default to the builder's default_tri_*; faces that two tetrahedra share
        are inside and left out). particle_radius is Weft's own (default: the builder's)."""
        c = "add_soft_grid"
        f = lambda name, v: _f32(c, name, v)  # noqa: E731
        first_tet = len(self._cpp.tet_indices)
        self._cpp.add_soft_grid(_f32s(c, "pos", pos, 3), _f32s(c, "rot", rot, 4), _f32s(c, "vel", vel, 3), int(dim_x),
                                int(dim_y), int(dim_z), f("cell_x", cell_x), f("cell_y", cell_y), f("cell_z", cell_z),
                                f("density", density), f("k_mu", k_mu), f("k_lambda", k_lambda), f("k_damp", k_damp),
                                bool(fix_left), bool(fix_right), bool(fix_top), bool(fix_bottom),
                                _opt(c, "particle_radius", particle_radius, -1.0))
        faces = {}  # sorted vertices -> oriented face; a face seen twice is interior

        def add_face(i, j, k):
            key = tuple(sorted((i, j, k)))
            if key in faces:
                del faces[key]
            else:
                faces[key] = (i, j, k)

        for i, j, k, l in self._cpp.tet_indices[first_tet:]:  # noqa: E741
            add_face(i, k, j)
            add_face(j, k, l)
            add_face(i, j, l)
            add_face(i, l, k)
        for i, j, k in faces.values():
            self.add_triangle(i, j, k, tri_ke, tri_ka, tri_kd, tri_drag, tri_lift)

    # Static shapes: `body` must be -1 (shapes do not move in this engine).
    @staticmethod
    @staticmethod
    def _static(body, what):
        if body != -1:
            raise BuildError(f"{what}: body={body}: only static shapes (body=-1) are supported for this shape type")

    _NAN = float("nan")

    def _shape(self, c, kind, body, pos, rot, size, density, ke, kd, kf, ka, mu, restitution, is_solid, thickness,
               has_ground_collision, has_shape_collision, collision_group, collision_filter_parent, is_visible, mesh=None):
        """A sphere, box, capsule, cylinder or cone, static (body=-1) or on a body, with Warp's keywords. Every
        keyword is simulated or refused: collision_group, has_ground_collision and has_shape_collision
        filter body contact as Warp's do (docs/rigid-bodies.md, Filtering); hollow shapes and a
        shape-level collision_filter_parent=False are not supported (BuildError naming them; the
        joints' collision_filter_parent filters parent and child)."""
        if not is_solid:
            raise BuildError(f"{c}: is_solid=False (hollow shapes) is not supported; the shape's mass is that of a solid")
        if collision_filter_parent is not True:
            raise BuildError(f"{c}: collision_filter_parent={collision_filter_parent!r} is not supported yet (a body's "
                             "shapes and its parent's are filtered by the joint's collision_filter_parent)")
        for name, value in (("has_ground_collision", has_ground_collision), ("has_shape_collision", has_shape_collision)):
            if not isinstance(value, (bool, int)):
                raise BuildError(f"{c}: {name} must be a bool, got {type(value).__name__}")
        if isinstance(collision_group, bool) or not isinstance(collision_group, int) or collision_group < -1:
            raise BuildError(f"{c}: collision_group must be an int >= -1, got {collision_group!r}")
        try:
            body = int(body)
        except (TypeError, ValueError):
            raise BuildError(f"{c}: body must be an int, got {body!r}") from None
        if body == -1 and thickness is None:
            thickness = 0.0  # static shapes: no thickness unless asked (the particle solvers' contact distance)
        n = self._NAN
        params = tuple(n if v is None else _f32(c, name, v) for name, v in (
            ("density", density), ("ke", ke), ("kd", kd), ("kf", kf), ("ka", ka), ("mu", mu), ("restitution", restitution),
            ("thickness", thickness)))
        pos = (0.0, 0.0, 0.0) if pos is None else pos  # Warp's defaults may be None
        rot = _IDENTITY if rot is None else rot
        if mesh is not None:  # (wp.sim.Mesh, scale, sdf_resolution, sdf_margin)
            shape = self._cpp.add_body_mesh(body, _f32s(c, "pos", pos, 3), _f32s(c, "rot", rot, 4), mesh[0].vertices,
                                            mesh[0].indices, mesh[1], params, mesh[2], mesh[3])
        else:
            shape = self._cpp.add_body_shape(kind, body, _f32s(c, "pos", pos, 3), _f32s(c, "rot", rot, 4),
                                             tuple(_f32(c, k, v) for k, v in size) + (0.0,) * (3 - len(size)), params)
        if collision_group != -1 or not has_ground_collision or not has_shape_collision:
            self._cpp.set_shape_collision(shape, int(collision_group), bool(has_ground_collision), bool(has_shape_collision))
        return shape

    def add_shape_sphere(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, radius=1.0, density=None, ke=None, kd=None,
                         kf=None, ka=None, mu=None, restitution=None, is_solid=True, thickness=None, has_ground_collision=True,
                         has_shape_collision=True, collision_group=-1, collision_filter_parent=True, is_visible=True):
        """A sphere, static (body=-1) or on a body whose mass, centre of mass and inertia its
        density adds to (Warp's add_shape_sphere). Material keywords default to the builder's
        default_shape_*; a static shape's thickness defaults to 0."""
        return self._shape("add_shape_sphere", "sphere", body, pos, rot, (("radius", radius),), density, ke, kd, kf, ka, mu,
                           restitution, is_solid, thickness, has_ground_collision, has_shape_collision, collision_group,
                           collision_filter_parent, is_visible)

    def add_shape_box(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, hx=0.5, hy=0.5, hz=0.5, density=None, ke=None,
                      kd=None, kf=None, ka=None, mu=None, restitution=None, is_solid=True, thickness=None,
                      has_ground_collision=True, has_shape_collision=True, collision_group=-1, collision_filter_parent=True,
                      is_visible=True):
        """A box of half extents (hx, hy, hz), static or on a body (Warp's add_shape_box)."""
        return self._shape("add_shape_box", "box", body, pos, rot, (("hx", hx), ("hy", hy), ("hz", hz)), density, ke, kd, kf,
                           ka, mu, restitution, is_solid, thickness, has_ground_collision, has_shape_collision,
                           collision_group, collision_filter_parent, is_visible)

    def add_shape_capsule(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, radius=1.0, half_height=0.5, up_axis=1,
                          density=None, ke=None, kd=None, kf=None, ka=None, mu=None, restitution=None, is_solid=True,
                          thickness=None, has_ground_collision=True, has_shape_collision=True, collision_group=-1,
                          collision_filter_parent=True, is_visible=True):
        """A capsule of `radius` and `half_height` along its local y axis (Warp's up_axis=1; other
        axes are refused), static or on a body (Warp's add_shape_capsule)."""
        if up_axis != 1:
            raise BuildError(f"add_shape_capsule: up_axis={up_axis!r} is not supported (capsules lie along their local y "
                             "axis, up_axis=1; rotate the shape with rot)")
        return self._shape("add_shape_capsule", "capsule", body, pos, rot, (("radius", radius), ("half_height", half_height)),
                           density, ke, kd, kf, ka, mu, restitution, is_solid, thickness, has_ground_collision,
                           has_shape_collision, collision_group, collision_filter_parent, is_visible)

    def add_shape_cylinder(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, radius=1.0, half_height=0.5, up_axis=1,
                           density=None, ke=None, kd=None, kf=None, ka=None, mu=None, restitution=None, is_solid=True,
                           thickness=None, has_ground_collision=True, has_shape_collision=True, collision_group=-1,
                           collision_filter_parent=True, is_visible=True):
        """A cylinder of `radius` from -half_height to +half_height along its local y axis (Warp's
        up_axis=1; other axes are refused), static or on a body (Warp's add_shape_cylinder)."""
        if up_axis != 1:
            raise BuildError(f"add_shape_cylinder: up_axis={up_axis!r} is not supported (cylinders lie along their local y "
                             "axis, up_axis=1; rotate the shape with rot)")
        return self._shape("add_shape_cylinder", "cylinder", body, pos, rot, (("radius", radius), ("half_height", half_height)),
                           density, ke, kd, kf, ka, mu, restitution, is_solid, thickness, has_ground_collision,
                           has_shape_collision, collision_group, collision_filter_parent, is_visible)

    def add_shape_cone(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, radius=1.0, half_height=0.5, up_axis=1,
                       density=None, ke=None, kd=None, kf=None, ka=None, mu=None, restitution=None, is_solid=True,
                       thickness=None, has_ground_collision=True, has_shape_collision=True, collision_group=-1,
                       collision_filter_parent=True, is_visible=True):
        """A cone along its local y axis with its base of `radius` at +half_height and its apex at
        -half_height (Warp's add_shape_cone, up_axis=1; other axes are refused). Its centre of mass is
        half_height / 2 above the shape's origin (Warp places it at the origin)."""
        if up_axis != 1:
            raise BuildError(f"add_shape_cone: up_axis={up_axis!r} is not supported (cones lie along their local y axis, "
                             "up_axis=1; rotate the shape with rot)")
        return self._shape("add_shape_cone", "cone", body, pos, rot, (("radius", radius), ("half_height", half_height)),
                           density, ke, kd, kf, ka, mu, restitution, is_solid, thickness, has_ground_collision,
                           has_shape_collision, collision_group, collision_filter_parent, is_visible)

    def add_body(self, origin=None, armature=0.0, com=None, I_m=None, m=0.0, name=None):
        """A rigid body (Warp's add_body): `origin` a wp.transform or ((x, y, z), (qx, qy, qz, qw)),
        `com` its centre of mass in the body frame, `I_m` its 3x3 inertia about it, `m` its mass;
        shapes added with body=<this index> add theirs. Returns the body's index."""
        c = "add_body"
        pos, rot = _transform_parts(c, origin)
        com = (0.0, 0.0, 0.0) if com is None else com
        if I_m is None:
            inertia = (0.0,) * 9
        else:
            rows = [tuple(r) for r in I_m] if hasattr(I_m, "__len__") and len(I_m) == 3 else None
            flat = [v for r in rows for v in r] if rows and all(len(r) == 3 for r in rows) else list(I_m)
            if len(flat) != 9:
                raise BuildError(f"{c}: I_m must be a 3x3 matrix, got {I_m!r}")
            inertia = tuple(_f32(c, f"I_m[{k // 3}][{k % 3}]", v) for k, v in enumerate(flat))
        return self._cpp.add_body(_f32s(c, "pos", pos, 3), _f32s(c, "rot", rot, 4), _f32s(c, "com", com, 3), inertia,
                                  _f32(c, "m", m), _f32(c, "armature", armature), "" if name is None else str(name))

    def set_body_velocity(self, body, angular=(0.0, 0.0, 0.0), linear=(0.0, 0.0, 0.0)):
        """The initial body_qd of `body`: angular velocity and centre-of-mass velocity (world)."""
        c = "set_body_velocity"
        self._cpp.set_body_velocity(int(body), _f32s(c, "angular", angular, 3), _f32s(c, "linear", linear, 3))

    def add_builder(self, builder, xform=None, update_num_env_count=True, separate_collision_group=True):
        """Appends a copy of `builder` moved by `xform` (Warp's add_builder): its particles,
        elements, shapes, bodies and joints with their indices offset. `separate_collision_group`
        makes the copy a world of its own whose body shapes never touch another world's
        (finalize refuses particle-particle contact between shared particles and the worlds');
        `update_num_env_count` counts it in
        num_envs. Returns nothing, as Warp's."""
        c = "add_builder"
        if not isinstance(builder, ModelBuilder):
            raise TypeError(f"{c}: builder must be a wp.sim.ModelBuilder, got {type(builder).__name__}")
        pos, rot = _transform_parts(c, xform)
        self._cpp.add_builder(builder._cpp, _f32s(c, "xform.p", pos, 3), _f32s(c, "xform.q", rot, 4),
                              bool(separate_collision_group))
        if update_num_env_count:
            self._cpp.num_envs += 1

    def _joint(self, c, kind, parent, child, parent_xform, child_xform, axis=(1.0, 0.0, 0.0), target=None, target_ke=0.0,
               target_kd=0.0, mode=JOINT_MODE_FORCE, limit_lower=None, limit_upper=None, limit_ke=None, limit_kd=None,
               linear_compliance=0.0, angular_compliance=0.0, armature=0.01, name=None, collision_filter_parent=True,
               enabled=True):
        compliance = _joint_keywords(c, linear_compliance, angular_compliance, enabled)
        ppos, prot = _transform_parts(c, parent_xform)
        cpos, crot = _transform_parts(c, child_xform)
        nan = float("nan")
        return _set_compliance(self._cpp, self._cpp.add_joint(
            kind, int(parent), int(child), _f32s(c, "parent_xform.p", ppos, 3), _f32s(c, "parent_xform.q", prot, 4),
            _f32s(c, "child_xform.p", cpos, 3), _f32s(c, "child_xform.q", crot, 4), _f32s(c, "axis", axis, 3),
            0.0 if target is None else _f32(c, "target", target), _f32(c, "target_ke", target_ke),
            _f32(c, "target_kd", target_kd), int(mode), nan if limit_lower is None else _f32(c, "limit_lower", limit_lower),
            nan if limit_upper is None else _f32(c, "limit_upper", limit_upper),
            nan if limit_ke is None else _f32(c, "limit_ke", limit_ke), nan if limit_kd is None else _f32(c, "limit_kd", limit_kd),
            bool(collision_filter_parent), _f32(c, "armature", armature), "" if name is None else str(name)), compliance)

    def add_joint_revolute(self, parent, child, parent_xform=None, child_xform=None, axis=(1.0, 0.0, 0.0), target=None,
                           target_ke=0.0, target_kd=0.0, mode=JOINT_MODE_FORCE, limit_lower=None, limit_upper=None,
                           limit_ke=None, limit_kd=None, linear_compliance=0.0, angular_compliance=0.0, armature=0.01,
                           name=None, collision_filter_parent=True, enabled=True):
        """A hinge about `axis` (in the joint frame) between body `parent` (-1: the world) and
        `child`, with Warp's keywords: the joint frame is parent_xform in the parent's frame and
        child_xform in the child's; target/target_ke/target_kd/mode drive it (joint_act), limits
        default to +-2 pi rad. Returns the joint's index."""
        return self._joint("add_joint_revolute", "revolute", parent, child, parent_xform, child_xform, axis, target,
                           target_ke, target_kd, mode, limit_lower, limit_upper, limit_ke, limit_kd, linear_compliance,
                           angular_compliance, armature, name, collision_filter_parent, enabled)

    def add_joint_prismatic(self, parent, child, parent_xform=None, child_xform=None, axis=(1.0, 0.0, 0.0), target=None,
                            target_ke=0.0, target_kd=0.0, mode=JOINT_MODE_FORCE, limit_lower=None, limit_upper=None,
                            limit_ke=None, limit_kd=None, linear_compliance=0.0, angular_compliance=0.0, armature=0.01,
                            name=None, collision_filter_parent=True, enabled=True):
        """A slider along `axis` (Warp's add_joint_prismatic); limits default to +-1e4 m."""
        return self._joint("add_joint_prismatic", "prismatic", parent, child, parent_xform, child_xform, axis, target,
                           target_ke, target_kd, mode, limit_lower, limit_upper, limit_ke, limit_kd, linear_compliance,
                           angular_compliance, armature, name, collision_filter_parent, enabled)

    def add_joint_ball(self, parent, child, parent_xform=None, child_xform=None, linear_compliance=0.0,
                       angular_compliance=0.0, armature=0.01, name=None, collision_filter_parent=True, enabled=True):
        """A ball joint: the two joint frames' origins held together (Warp's add_joint_ball)."""
        return self._joint("add_joint_ball", "ball", parent, child, parent_xform, child_xform,
                           linear_compliance=linear_compliance, angular_compliance=angular_compliance, armature=armature,
                           name=name, collision_filter_parent=collision_filter_parent, enabled=enabled)

    def add_joint_fixed(self, parent, child, parent_xform=None, child_xform=None, linear_compliance=0.0,
                        angular_compliance=0.0, armature=0.01, name=None, collision_filter_parent=True, enabled=True):
        """A weld: the two joint frames held together in position and orientation (Warp's add_joint_fixed)."""
        return self._joint("add_joint_fixed", "fixed", parent, child, parent_xform, child_xform,
                           linear_compliance=linear_compliance, angular_compliance=angular_compliance, armature=armature,
                           name=name, collision_filter_parent=collision_filter_parent, enabled=enabled)

    def add_joint_free(self, child, parent_xform=None, child_xform=None, armature=0.0, parent=-1, name=None,
                       collision_filter_parent=True, enabled=True):
        """A free joint (six degrees of freedom: no force), Warp's add_joint_free."""
        return self._joint("add_joint_free", "free", parent, child, parent_xform, child_xform, armature=armature, name=name,
                           collision_filter_parent=collision_filter_parent, enabled=enabled)

    def _static_material(self, c, shape, ke, kd, kf, ka, mu, restitution, switches):
        """Gives static shape `shape` its material (None: the builder's default_shape_*), which
        particle contact averages with soft_contact_* as Warp does; refuses the collision
        switches that differ from their defaults (name, value, default)."""
        for name, value, default in switches:
            if value != default:
                raise BuildError(f"{c}: {name}={value!r} is not supported yet (static shapes collide with every particle "
                                 "and body)")
        b = self._cpp
        mat = []
        for name, value, default in (("ke", ke, b.default_shape_ke), ("kd", kd, b.default_shape_kd),
                                     ("kf", kf, b.default_shape_kf), ("ka", ka, b.default_shape_ka),
                                     ("mu", mu, b.default_shape_mu), ("restitution", restitution, b.default_shape_restitution)):
            v = float(default) if value is None else _f32(c, name, value)
            if v < 0:
                raise BuildError(f"{c}: {name} must be >= 0, got {v:g}")
            mat.append(v)
        b.set_shape_material(int(shape), tuple(mat))
        return shape

    def add_shape_plane(self, plane=(0.0, 1.0, 0.0, 0.0), pos=None, rot=None, width=None, length=None, body=-1, ke=None,
                        kd=None, kf=None, ka=None, mu=None, restitution=None, thickness=None, has_ground_collision=False,
                        has_shape_collision=True, is_visible=True, collision_group=-1):
        """An infinite static plane a x + b y + c z + d = 0 (Warp's add_shape_plane). Planes here are
        infinite: Warp's finite width/length, and pos/rot instead of `plane`, raise BuildError."""
        c = "add_shape_plane"
        self._static(body, c)
        if pos is not None or rot is not None:
            raise BuildError(f"{c}: pos/rot are not supported; give the plane as plane=(a, b, c, d)")
        for name, value in (("width", width), ("length", length)):
            if value is not None and value != 0.0:
                raise BuildError(f"{c}: {name}={value!r}: finite planes are not supported (Weft's planes are infinite; "
                                 f"pass {name}=0.0 or leave it out)")
        thickness = self._cpp.default_shape_thickness if thickness is None else thickness
        s = self._cpp.add_shape_plane(_f32s(c, "plane", plane, 4), _f32(c, "thickness", thickness))
        return self._static_material(c, s, ke, kd, kf, ka, mu, restitution,
                                     (("has_ground_collision", has_ground_collision, False),
                                      ("has_shape_collision", has_shape_collision, True),
                                      ("collision_group", collision_group, -1)))

    def add_shape_mesh(self, body=-1, pos=(0.0, 0.0, 0.0), rot=_IDENTITY, mesh=None, scale=(1.0, 1.0, 1.0), density=None,
                       ke=None, kd=None, kf=None, ka=None, mu=None, restitution=None, is_solid=True, thickness=None,
                       has_ground_collision=True, has_shape_collision=True, collision_group=-1, is_visible=True,
                       sdf_resolution=64, sdf_margin=None):
        """A triangle-mesh shape, static (body=-1) or on a body (Warp's add_shape_mesh).
        finalize() samples its signed distance on a grid of `sdf_resolution` cells along its
        longest side, `sdf_margin` m (default: 10% of that side) beyond its bounds; contacts
        interpolate that grid (both Weft's own keywords). On a body, the mesh's density adds the
        mass of the solid it bounds (it must then be closed and wound counter-clockwise seen from
        outside; density=0 takes any mesh), and its vertices are its contact points. A static
        mesh's thickness defaults to 0, a body's to default_shape_thickness; is_solid=False (a hollow
        shell's mass) is refused on a body and means nothing for a static mesh."""
        c = "add_shape_mesh"
        if not isinstance(mesh, Mesh):
            raise BuildError(f"add_shape_mesh: mesh must be a wp.sim.Mesh, got {type(mesh).__name__}")
        pos = (0.0, 0.0, 0.0) if pos is None else pos  # Warp's defaults are None
        rot = _IDENTITY if rot is None else rot
        scale = (1.0, 1.0, 1.0) if scale is None else scale
        margin = -1.0 if sdf_margin is None else _f32(c, "sdf_margin", sdf_margin)
        if isinstance(sdf_resolution, bool) or not isinstance(sdf_resolution, int):
            raise BuildError(f"add_shape_mesh: sdf_resolution must be an int, got {sdf_resolution!r}")
        if body == -1:
            if density is not None:
                _f32(c, "density", density)
            # is_solid sets only a body's mass (a hollow one on a body is refused): a static mesh has none.
            s = self._cpp.add_shape_mesh(tuple(pos), tuple(rot), mesh.vertices, mesh.indices, _f32s(c, "scale", scale, 3),
                                         _f32(c, "thickness", 0.0 if thickness is None else thickness), sdf_resolution,
                                         margin)
            return self._static_material(c, s, ke, kd, kf, ka, mu, restitution,
                                         (("has_ground_collision", has_ground_collision, True),
                                          ("has_shape_collision", has_shape_collision, True),
                                          ("collision_group", collision_group, -1)))
        for flag, meaning in (("compute_inertia", "Warp's unit mass and inertia"), ("is_solid", "a hollow shell's mass")):
            if not getattr(mesh, flag):
                raise BuildError(f"{c}: the wp.sim.Mesh was made with {flag}=False ({meaning}), which a mesh on a body "
                                 "does not support: its mass is the solid's, from the density")
        return self._shape(c, "mesh", body, pos, rot, (), density, ke, kd, kf, ka, mu, restitution, is_solid, thickness,
                           has_ground_collision, has_shape_collision, collision_group, True, is_visible,
                           mesh=(mesh, _f32s(c, "scale", scale, 3), sdf_resolution, margin))

    def set_ground_plane(self, normal=(0.0, 1.0, 0.0), offset=0.0, ke=None, kd=None, kf=None, mu=None, restitution=None):
        """The ground n.x = offset, and its material against body shapes (Warp's keywords; None
        keeps the current value)."""
        c = "set_ground_plane"
        self._cpp.set_ground_plane(_f32s(c, "normal", normal, 3), _f32(c, "offset", offset))
        for name, value in (("ke", ke), ("kd", kd), ("kf", kf), ("mu", mu), ("restitution", restitution)):
            if value is not None:
                v = _f32(c, name, value)
                if v < 0:
                    raise BuildError(f"{c}: {name} must be >= 0, got {v:g}")
                setattr(self._cpp, "ground_" + name, v)

    def finalize(self, device=None, requires_grad=False):
        """The Model on `device`. As in Warp, particle-particle contact starts once
        model.particle_grid.build(...) is called (unless builder.particle_contact asks for it
        from the start); the model is made ready for it when it has 2 or more particles with a
        radius."""
        from . import context as _context
        dev, rg = _context.get_device(device).alias, bool(requires_grad)
        if self._cpp.particle_contact or self._cpp.particle_count < 2:
            return Model(self._cpp.finalize(dev, rg))
        self._cpp.particle_contact = True  # sizes the grid (and each State's buckets) for a later build()
        try:
            cpp = self._cpp.finalize(dev, rg)
        except BuildError:  # no particle has a radius: no particle contact to prepare
            self._cpp.particle_contact = False
            return Model(self._cpp.finalize(dev, rg))
        self._cpp.particle_contact = False
        cpp.particle_contact = False
        return Model(cpp)


# The integrators (python/weft/sim_integrators.py)
from .sim_integrators import (FeatherstoneIntegrator, Integrator, MPMIntegrator, SemiImplicitIntegrator,  # noqa: E402,F401
                              SmokeIntegrator, XPBDIntegrator, create_integrator, integrator_names)


def eval_fk(model, joint_q, joint_qd, mask, state):
    """Warp's eval_fk: state.body_q / body_qd from reduced coordinates joint_q, joint_qd (float32
    wp.arrays laid out as the builder's; each joint's coordinates in its parent's joint frame).
    `mask` (an int32 wp.array, one entry per articulation, or None) skips articulations whose
    entry is 0. Not differentiable yet: it refuses to run while a Tape records."""
    _weft.eval_fk(model._cpp, joint_q._handle(), joint_qd._handle(), state._cpp,
                  None if mask is None else mask._handle())


def eval_ik(model, state, joint_q, joint_qd):
    """Warp's eval_ik: joint_q / joint_qd (float32 wp.arrays, written) from the bodies of `state`;
    recorded by a Tape like any launch."""
    _weft.eval_ik(model._cpp, state._cpp, joint_q._handle(), joint_qd._handle())


def collide(model, state, edge_sdf_iter=10, iterate_mesh_vertices=True, requires_grad=None, skip_init_contact_reset=False):
    """Prepares contacts for the next step from `state`: with particle-particle contact enabled,
    builds the state's hash grid (each step builds its own in state_out, from state_in's
    positions, so calling this is optional). Ground and shape contacts are evaluated inside the
    integrators' force kernels. Returns how many particles did not fit in the grid (0 normally).
    Warp's keywords are accepted at their defaults; others change what Warp computes and raise
    TypeError (Weft evaluates contacts inside the integrators)."""
    for name, value, default in (("edge_sdf_iter", edge_sdf_iter, 10), ("iterate_mesh_vertices", iterate_mesh_vertices, True),
                                 ("skip_init_contact_reset", skip_init_contact_reset, False)):
        if value != default:
            raise TypeError(f"collide(): {name}={value!r} is not supported (Weft evaluates contacts inside the integrators)")
    if not model.particle_contact:
        return 0
    return _weft.build_particle_grid(model._cpp, state._cpp)

# wp.sim.parse_urdf / parse_mjcf (python/weft/sim_import.py)
from .sim_import import ModelImportError, parse_mjcf, parse_urdf  # noqa: E402,F401
from .sim_rotations import quat_from_euler  # noqa: E402,F401

# wp.sim.render.SimRendererOpenGL / SimRenderer (python/weft/sim_render.py); registered as the
# submodule weft.sim.render too, so that Warp's `import warp.sim.render` line ported to
# `import weft.sim.render` works although weft.sim is a module, not a package.
from . import sim_render as render  # noqa: E402
import sys as _sys  # noqa: E402

_sys.modules[__name__ + ".render"] = render
