"""wp.sim's integrators: the engine's registry by name (wp.sim.Integrator) and Warp's
SemiImplicitIntegrator / XPBDIntegrator / MPMIntegrator over it. Re-exported by wp.sim
(python/weft/sim.py)."""

from . import _weft
from . import recording as _recording

__all__ = ["Integrator", "integrator_names", "create_integrator", "SemiImplicitIntegrator", "MPMIntegrator", "SmokeIntegrator",
           "XPBDIntegrator", "FeatherstoneIntegrator"]


def integrator_names():
    """The names of the registered integrators (engine/integrator_registry.h), sorted:
    ["featherstone", "mpm", "semi_implicit", "smoke", "xpbd"]."""
    return list(_weft.integrator_names())


class Integrator:
    """An integrator of the engine's registry, by name: wp.sim.Integrator("xpbd", iterations=4).

    Every integrator has simulate(model, state_in, state_out, dt, control=None), which writes
    state_out and leaves state_in as it was, and says what it is: `name`, `kernels` ((module
    group, kernel) pairs), `graph_capture`, `differentiable`, `state_reads`, `state_writes`.
    Options are the integrator's own (an unknown one raises RuntimeError with a did-you-mean);
    SemiImplicitIntegrator and XPBDIntegrator are this class under Warp's names."""

    def __init__(self, name, **options):
        self._cpp = _weft.create_integrator(str(name), {str(k): float(v) for k, v in options.items()})

    def simulate(self, model, state_in, state_out, dt, control=None):
        if _recording.open_tapes:
            # tape.gradients[a] finds the Model, State and Control arrays the step used, as for
            # the arrays of a wp.launch (the C++ step records itself on the Tape).
            _recording.note_objects(obj for obj in (model, state_in, state_out, control) if obj is not None)
        self._cpp.simulate(model._cpp, state_in._cpp, state_out._cpp, float(dt), None if control is None else control._cpp)
        return state_out

    name = property(lambda self: self._cpp.name)
    kernels = property(lambda self: list(self._cpp.kernels))
    graph_capture = property(lambda self: self._cpp.graph_capture)
    differentiable = property(lambda self: self._cpp.differentiable)
    state_reads = property(lambda self: list(self._cpp.state_reads))
    state_writes = property(lambda self: list(self._cpp.state_writes))


def create_integrator(name, **options):
    """wp.sim.Integrator(name, **options): the integrator registered as `name`."""
    return Integrator(name, **options)


def _no_other_keywords(cls, kwargs):
    """An integrator keyword Weft does not simulate raises TypeError naming it: Warp's
    friction_smoothing (Weft's rigid friction is viscous below the Coulomb limit, not Huber-
    smoothed) (docs/python.md, docs/rigid-bodies.md)."""
    if kwargs:
        raise TypeError(f"{cls.__name__}() got unexpected keyword argument(s) {', '.join(repr(k) for k in sorted(kwargs))}"
                        " (Weft's integrators do not simulate them)")


class SemiImplicitIntegrator(Integrator):
    """Semi-implicit Euler: springs, triangle FEM, bending, neo-Hookean tetrahedra, contacts, and
    rigid bodies (angular_damping: 1/s, Warp's default 0.05)."""

    def __init__(self, angular_damping=0.05, **kwargs):
        _no_other_keywords(SemiImplicitIntegrator, kwargs)
        super().__init__("semi_implicit", angular_damping=float(angular_damping))
        self.angular_damping = float(angular_damping)


class MPMIntegrator(Integrator):
    """MLS-MPM (docs/mpm.md): the particles of add_mpm_box / add_mpm_sphere on the dense grid of
    set_mpm_grid. No options."""

    def __init__(self, **kwargs):
        _no_other_keywords(MPMIntegrator, kwargs)
        super().__init__("mpm")


class XPBDIntegrator(Integrator):
    """Extended position-based dynamics (Warp's XPBDIntegrator, with its keywords and defaults):
    particles' distance, membrane, bending, volume and contact constraints, and rigid bodies'
    joints and contacts (Müller et al. 2020; docs/rigid-bodies.md).

    soft_body_relaxation / soft_contact_relaxation scale the particles' element and contact
    corrections (`relaxation` is Weft's older name of the first; pass one of the two);
    joint_linear_relaxation, joint_angular_relaxation and rigid_contact_relaxation the bodies';
    rigid_contact_con_weighting divides a body's contact corrections by its closed contacts;
    angular_damping (1/s) damps the bodies' prediction; enable_restitution adds a velocity pass
    with the shapes' restitution. rigid_contact_margin (m, default 0.1) is a model attribute in
    Warp and a keyword here: how far apart contacts are found at the step's start. A model with
    particles and shapes on bodies is refused (its particle-body contact is the semi-implicit
    integrator's)."""

    def __init__(self, iterations=2, soft_body_relaxation=None, soft_contact_relaxation=0.9, joint_linear_relaxation=0.7,
                 joint_angular_relaxation=0.4, rigid_contact_relaxation=0.8, rigid_contact_con_weighting=True,
                 angular_damping=0.0, enable_restitution=False, rigid_contact_margin=0.1, relaxation=None, **kwargs):
        _no_other_keywords(XPBDIntegrator, kwargs)
        if soft_body_relaxation is not None and relaxation is not None:
            raise TypeError("XPBDIntegrator: pass soft_body_relaxation or relaxation (its older name), not both")
        body = 0.9 if soft_body_relaxation is None and relaxation is None else float(
            relaxation if soft_body_relaxation is None else soft_body_relaxation)
        for name, value in (("rigid_contact_con_weighting", rigid_contact_con_weighting),
                            ("enable_restitution", enable_restitution)):
            if not isinstance(value, (bool, int)):
                raise TypeError(f"XPBDIntegrator: {name} must be a bool, got {type(value).__name__}")
        super().__init__("xpbd", iterations=int(iterations), relaxation=body, contact_relaxation=float(soft_contact_relaxation),
                         joint_linear_relaxation=float(joint_linear_relaxation),
                         joint_angular_relaxation=float(joint_angular_relaxation),
                         rigid_contact_relaxation=float(rigid_contact_relaxation),
                         rigid_contact_con_weighting=1 if rigid_contact_con_weighting else 0,
                         angular_damping=float(angular_damping), enable_restitution=1 if enable_restitution else 0,
                         rigid_contact_margin=float(rigid_contact_margin))
        self.iterations = int(iterations)
        self.relaxation = self.soft_body_relaxation = body
        self.soft_contact_relaxation = float(soft_contact_relaxation)
        self.joint_linear_relaxation = float(joint_linear_relaxation)
        self.joint_angular_relaxation = float(joint_angular_relaxation)
        self.rigid_contact_relaxation = float(rigid_contact_relaxation)
        self.rigid_contact_con_weighting = bool(rigid_contact_con_weighting)
        self.angular_damping = float(angular_damping)
        self.enable_restitution = bool(enable_restitution)
        self.rigid_contact_margin = float(rigid_contact_margin)


class FeatherstoneIntegrator(Integrator):
    """Articulations in reduced coordinates (state.joint_q, state.joint_qd), Warp's
    FeatherstoneIntegrator(model, ...): the recursive Newton-Euler bias, the composite-rigid-body
    mass matrix and a Cholesky solve per articulation, then semi-implicit Euler (Warp's) or, with
    integrator="rk4", classical Runge-Kutta 4. body_q and body_qd of state_out follow from the new
    joint_q and joint_qd. `model` is checked to have bodies (Warp allocates from it; Weft sizes its
    scratch at the first step).

    Differences from Warp (docs/rigid-bodies.md): `angular_damping` is simulated (rotational joint
    velocities scaled by 1 - angular_damping dt per step); Warp's signature takes 0.05 and does not
    use it, so the default here is 0. `update_mass_matrix_every` must be 1 (the mass matrix is
    refactored every evaluation). `use_tile_gemm` and `fuse_cholesky` choose which of Warp's kernels
    build and factor the same mass matrix; Weft has one way (a thread per articulation), which
    computes what both give, so either value is accepted (booleans only). Warp's friction_smoothing
    (a Huber norm in its friction, which Weft's does not have) raises TypeError naming it.
    Particles are not stepped (an error names them)."""

    def __init__(self, model=None, angular_damping=0.0, update_mass_matrix_every=1, integrator="euler", use_tile_gemm=False,
                 fuse_cholesky=True, **kwargs):
        _no_other_keywords(FeatherstoneIntegrator, kwargs)
        for name, value in (("use_tile_gemm", use_tile_gemm), ("fuse_cholesky", fuse_cholesky)):
            if not isinstance(value, (bool, int)):
                raise TypeError(f"FeatherstoneIntegrator: {name} must be a bool, got {type(value).__name__}")
        if int(update_mass_matrix_every) != 1:
            raise ValueError(f"FeatherstoneIntegrator: update_mass_matrix_every={update_mass_matrix_every} is not simulated: "
                             "Weft refactors the mass matrix at every evaluation; pass 1")
        if integrator not in ("euler", "rk4"):
            raise ValueError(f"FeatherstoneIntegrator: integrator={integrator!r}; expected 'euler' or 'rk4'")
        if model is not None and getattr(model, "body_count", 1) == 0:
            raise ValueError("FeatherstoneIntegrator: the model has no bodies (the integrator steps articulations)")
        super().__init__("featherstone", rk4=1 if integrator == "rk4" else 0, angular_damping=float(angular_damping))
        self.angular_damping = float(angular_damping)
        self.integrator = integrator


class SmokeIntegrator(Integrator):
    """Eulerian smoke on the grid of ModelBuilder.set_smoke_grid (docs/smoke.md). No options: the
    grid's settings are the model's. `last_solve` describes the last step's pressure projection."""

    def __init__(self, **kwargs):
        _no_other_keywords(SmokeIntegrator, kwargs)
        super().__init__("smoke")

    @property
    def last_solve(self):
        """The last step's projection: iterations, residual (|b - L psi| / |b|), divergence_in and
        divergence_out (2-norms over the cells, 1/s), relative_divergence (out / in), and
        viscosity_substeps."""
        return dict(_weft.smoke_last_solve(self._cpp))
