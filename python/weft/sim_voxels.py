"""The voxel solvers' part of wp.sim.ModelBuilder: the MLS-MPM grid and volumes (docs/mpm.md) and
the Eulerian smoke grid, its sources, obstacles and initial fields (docs/smoke.md). ModelBuilder
(python/weft/sim.py) inherits these methods; every number is checked by _sim_values and the C++
builder checks the rest at finalize(), naming the field."""

import numpy as np

from . import _weft
from ._sim_values import _f32, _f32s

BuildError = _weft.BuildError


class _VoxelBuilder:
    # MLS-MPM (docs/mpm.md): the grid, then volumes of particles of a material. Each material
    # takes its own parameters and only those (an elastic volume given friction_angle raises
    # TypeError naming it), with the C++ builder's defaults (engine/mpm_defs.h).
    _MPM_PARAMS = {
        "fixed_corotated": ("E", "nu"),
        "neo_hookean": ("E", "nu"),
        "fluid": ("bulk_modulus",),
        "sand": ("E", "nu", "friction_angle"),
        "snow": ("E", "nu", "theta_c", "theta_s", "hardening"),
    }
    _MPM_DEFAULTS = dict(E=1.0e4, nu=0.3, bulk_modulus=1.0e4, friction_angle=30.0, theta_c=2.5e-2, theta_s=7.5e-3,
                         hardening=10.0)

    def set_mpm_grid(self, dx, cells, lo=(0.0, 0.0, 0.0), boundary="separate", boundary_cells=3, floor=None):
        """The dense MPM grid: cells (nx, ny, nz) of side dx (m) from the lower corner lo; boundary
        "separate", "sticky", "slip" or "none": what the walls of the domain box do to the grid
        velocity within boundary_cells cells of them; floor: the -y wall's kind (default: boundary's)."""
        c = "set_mpm_grid"
        try:
            cells = tuple(int(n) for n in cells)
        except (TypeError, ValueError):
            raise BuildError(f"{c}: cells must be 3 integers, got {cells!r}") from None
        if len(cells) != 3:
            raise BuildError(f"{c}: cells must be 3 integers, got {cells!r}")
        self._cpp.set_mpm_grid(_f32s(c, "lo", lo, 3), _f32(c, "dx", dx), cells, str(boundary), int(boundary_cells),
                               "" if floor is None else str(floor))

    def _mpm_volume(self, c, shape, lo, hi, center, radius, material, vel, density, particles_per_cell, params):
        allowed = self._MPM_PARAMS.get(material)
        if allowed is None:
            raise BuildError(f"{c}: material must be one of {', '.join(repr(m) for m in self._MPM_PARAMS)}, got {material!r}")
        other = sorted(k for k in params if k not in allowed)
        if other:
            raise TypeError(f"{c}() got unexpected keyword argument(s) {', '.join(repr(k) for k in other)} for material "
                            f"{material!r} (its parameters: {', '.join(allowed)})")
        values = dict(self._MPM_DEFAULTS)
        values.update({k: _f32(c, k, v) for k, v in params.items()})
        packed = tuple(values[k] for k in ("E", "nu", "bulk_modulus", "friction_angle", "theta_c", "theta_s", "hardening"))
        return self._cpp.add_mpm_volume(shape, lo, hi, center, radius, _f32s(c, "vel", vel, 3), material,
                                        _f32(c, "density", density), packed, int(particles_per_cell))

    def add_mpm_box(self, lo, hi, material, vel=(0.0, 0.0, 0.0), density=1000.0, particles_per_cell=2, **params):
        """Fills the box [lo, hi] with MPM particles of `material` ("fixed_corotated", "neo_hookean",
        "fluid", "sand", "snow") and its parameters (E, nu; bulk_modulus; friction_angle; theta_c,
        theta_s, hardening); particles_per_cell along each axis. Returns the number added."""
        c = "add_mpm_box"
        zero = (0.0, 0.0, 0.0)
        return self._mpm_volume(c, "box", _f32s(c, "lo", lo, 3), _f32s(c, "hi", hi, 3), zero, 0.0, material, vel, density,
                                particles_per_cell, params)

    def add_mpm_sphere(self, center, radius, material, vel=(0.0, 0.0, 0.0), density=1000.0, particles_per_cell=2, **params):
        """Fills the sphere (center, radius) with MPM particles, as add_mpm_box."""
        c = "add_mpm_sphere"
        zero = (0.0, 0.0, 0.0)
        return self._mpm_volume(c, "sphere", zero, zero, _f32s(c, "center", center, 3), _f32(c, "radius", radius), material,
                                vel, density, particles_per_cell, params)

    # Eulerian smoke (docs/smoke.md): a MAC grid of nx x ny x nz cells (nz = 1: 2-D) solved by the
    # "smoke" integrator (wp.sim.SmokeIntegrator). A State holds smoke_density (nz, ny, nx cells),
    # smoke_u ((nx + 1) faces), smoke_v, smoke_w, flat and x fastest.
    def set_smoke_grid(self, resolution, cell_size, origin=(0.0, 0.0, 0.0), solver="mgpcg", iterations=100, tolerance=1.0e-6,
                       buoyancy=1.0, vorticity=0.0, viscosity=0.0, advection="semi_lagrangian"):
        """The smoke grid: resolution (nx, ny, nz) cells of side cell_size (m) from the corner
        origin; solver "mgpcg" | "jacobi" | "gauss_seidel" with iterations (CG iterations at most,
        or sweeps) and tolerance (MGPCG: |r| <= tolerance |b|); buoyancy (m/s^2 per unit density,
        against gravity), vorticity (confinement epsilon), viscosity (m^2/s); advection
        "semi_lagrangian" | "maccormack" | "conservative"."""
        c = "set_smoke_grid"
        try:
            res = tuple(int(n) for n in resolution)
        except (TypeError, ValueError):
            raise BuildError(f"{c}: resolution must be 3 integers, got {resolution!r}") from None
        if len(res) != 3 or any(n != r for n, r in zip(res, resolution)):
            raise BuildError(f"{c}: resolution must be 3 integers, got {resolution!r}")
        if isinstance(iterations, bool) or int(iterations) != iterations:
            raise BuildError(f"{c}: iterations must be an integer, got {iterations!r}")
        self._cpp.set_smoke_grid(res, _f32(c, "cell_size", cell_size), _f32s(c, "origin", origin, 3), str(solver),
                                 int(iterations), _f32(c, "tolerance", tolerance), _f32(c, "buoyancy", buoyancy),
                                 _f32(c, "vorticity", vorticity), _f32(c, "viscosity", viscosity), str(advection))

    @staticmethod
    def _smoke_region(c, radius, half_extents):
        if (radius is None) == (half_extents is None):
            raise BuildError(f"{c}: give either radius (a sphere) or half_extents (a box)")
        if radius is not None:
            return "sphere", (_f32(c, "radius", radius), 0.0, 0.0)
        return "box", _f32s(c, "half_extents", half_extents, 3)

    def add_smoke_source(self, center, radius=None, half_extents=None, rate=1.0, velocity=None):
        """A source: rate density per second added to the cells whose centres lie in the sphere
        (radius) or box (half_extents) about center; with velocity (m/s), an inflow that sets the
        faces inside to it. Returns its index."""
        c = "add_smoke_source"
        shape, size = self._smoke_region(c, radius, half_extents)
        vel = None if velocity is None else _f32s(c, "velocity", velocity, 3)
        return self._cpp.add_smoke_source(shape, _f32s(c, "center", center, 3), size, _f32(c, "rate", rate), vel)

    def add_smoke_obstacle(self, center, radius=None, half_extents=None):
        """A static solid sphere or box: every cell whose centre it holds. Returns its index."""
        c = "add_smoke_obstacle"
        shape, size = self._smoke_region(c, radius, half_extents)
        return self._cpp.add_smoke_obstacle(shape, _f32s(c, "center", center, 3), size)

    def set_smoke_fields(self, density=None, u=None, v=None, w=None):
        """Initial fields (None: zero, or the one set before): numpy-convertible arrays of shape
        density (nz, ny, nx), u (nz, ny, nx + 1), v (nz, ny + 1, nx), w (nz + 1, ny, nx), or flat
        with as many values. Call set_smoke_grid first."""
        c = "set_smoke_fields"
        nx, ny, nz = self._smoke_resolution()
        shapes = dict(density=(nz, ny, nx), u=(nz, ny, nx + 1), v=(nz, ny + 1, nx), w=(nz + 1, ny, nx))
        flat = {}
        for name, value in (("density", density), ("u", u), ("v", v), ("w", w)):
            if value is None:
                flat[name] = None
                continue
            a = np.asarray(value, dtype=np.float64)
            if a.shape != shapes[name] and a.shape != (int(np.prod(shapes[name])),):
                raise BuildError(f"{c}: {name} must have shape {shapes[name]} (or {int(np.prod(shapes[name]))} values), "
                                 f"got {a.shape}")
            if not np.all(np.isfinite(a)) or np.any(np.abs(a) > 3.4028234663852886e38):
                raise BuildError(f"{c}: {name} must hold finite float32 values")
            flat[name] = a.astype(np.float32).ravel().tolist()
        self._cpp.set_smoke_fields(flat["density"], flat["u"], flat["v"], flat["w"])

    def _smoke_resolution(self):
        res = tuple(self._cpp.smoke_resolution)
        if not all(n > 0 for n in res):
            raise BuildError("set_smoke_fields: call set_smoke_grid(resolution, cell_size) first")
        return res
