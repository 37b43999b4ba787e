"""wp.sim's joints of several axes: JointAxis (Warp's class) and the builder's add_joint_universal,
add_joint_compound, add_joint_d6 and the generic add_joint, with Warp 1.9's keywords
(engine/joint_builder.cpp); the joint type and drive mode numbers.

    builder.add_joint_d6(-1, body, linear_axes=[wp.sim.JointAxis((1.0, 0.0, 0.0), limit_lower=-0.5, limit_upper=0.5)],
                         angular_axes=[(0.0, 0.0, 1.0)])

An axis is a JointAxis or a bare vector (a JointAxis with its defaults). Warp's defaults: no limits
(-inf, inf), which Weft keeps as its own defaults (+-2 pi rad, an angle never gets there; +-1e4 m),
limit_ke 100, limit_kd 10, no drive. A separate module so that sim.py stays one concept; ModelBuilder
takes these methods from _JointBuilder.
"""

import math

from ._sim_values import BuildError, _f32, _f32s, _transform_parts

# Joint types and drive modes, Warp's numbers (engine/model.h).
JOINT_PRISMATIC, JOINT_REVOLUTE, JOINT_BALL, JOINT_FIXED, JOINT_FREE = 0, 1, 2, 3, 4
JOINT_COMPOUND, JOINT_UNIVERSAL, JOINT_DISTANCE, JOINT_D6 = 5, 6, 7, 8
JOINT_MODE_FORCE, JOINT_MODE_TARGET_POSITION, JOINT_MODE_TARGET_VELOCITY = 0, 1, 2

# add_joint's types: the C++ binding's name and the (linear, angular) axis counts, None for D6's any.
_JOINT_KINDS = {JOINT_PRISMATIC: ("prismatic", (1, 0)), JOINT_REVOLUTE: ("revolute", (0, 1)), JOINT_BALL: ("ball", (0, 0)),
                JOINT_FIXED: ("fixed", (0, 0)), JOINT_FREE: ("free", (0, 0)), JOINT_COMPOUND: ("compound", (0, 3)),
                JOINT_UNIVERSAL: ("universal", (0, 2)), JOINT_DISTANCE: ("distance", (1, 0)), JOINT_D6: ("d6", None)}


def _joint_keywords(c, linear_compliance, angular_compliance, enabled):
    """The XPBD compliances of a joint (Warp's keywords; ModelBuilder::set_joint_compliance), checked
    before the joint is added so that a bad one leaves the builder as it was. A disabled joint is
    refused (every joint is enabled)."""
    out = []
    for key, value in (("linear_compliance", linear_compliance), ("angular_compliance", angular_compliance)):
        v = _f32(c, key, value)  # a finite number
        if v < 0.0:
            raise BuildError(f"{c}: {key} must be >= 0, got {value!r}")
        out.append(v)
    if enabled is not True:
        raise BuildError(f"{c}: enabled={enabled!r} is not supported (every joint is enabled)")
    return out


def _set_compliance(cpp, joint, compliance):
    """Gives joint `joint` the compliances _joint_keywords checked (nothing to do for rigid ones)."""
    if compliance[0] != 0.0 or compliance[1] != 0.0:
        cpp.set_joint_compliance(joint, compliance[0], compliance[1])
    return joint


class JointAxis:
    """One axis of a joint with its limits and drive (Warp's wp.sim.JointAxis): `axis` (3 numbers,
    in the joint frame, or a JointAxis to copy), limit_lower/limit_upper (rad or m; infinite: none),
    limit_ke/limit_kd, action (the initial joint_act: a force, or a target position or velocity by
    `mode`; None: 0, or the middle of the limits for a position drive whose limits exclude 0, as
    Warp), target_ke/target_kd and mode (JOINT_MODE_*)."""

    def __init__(self, axis, limit_lower=-math.inf, limit_upper=math.inf, limit_ke=100.0, limit_kd=10.0, action=None,
                 target_ke=0.0, target_kd=0.0, mode=JOINT_MODE_FORCE):
        if isinstance(axis, JointAxis):
            self.__dict__.update(axis.__dict__)
            return
        self.axis = tuple(axis)
        try:  # normalised, as Warp's; a zero or malformed axis is kept for the builder to name
            n = math.sqrt(sum(float(v) * float(v) for v in self.axis))
            if len(self.axis) == 3 and 0.0 < n < math.inf:
                self.axis = tuple(float(v) / n for v in self.axis)
        except (TypeError, ValueError):
            pass
        self.limit_lower = limit_lower
        self.limit_upper = limit_upper
        self.limit_ke = limit_ke
        self.limit_kd = limit_kd
        if action is not None:
            self.action = action
        elif mode == JOINT_MODE_TARGET_POSITION and (limit_lower > 0.0 or limit_upper < 0.0):
            self.action = 0.5 * (limit_lower + limit_upper)
        else:
            self.action = 0.0
        self.target_ke = target_ke
        self.target_kd = target_kd
        self.mode = mode

    def __repr__(self):
        return (f"JointAxis(axis={self.axis}, limit_lower={self.limit_lower}, limit_upper={self.limit_upper}, "
                f"limit_ke={self.limit_ke}, limit_kd={self.limit_kd}, action={self.action}, target_ke={self.target_ke}, "
                f"target_kd={self.target_kd}, mode={self.mode})")


def _axis_values(c, label, ax):
    """The 11 numbers of the C++ binding's axis: x, y, z, target, target_ke, target_kd, mode,
    limit_lower, limit_upper, limit_ke, limit_kd (NaN limits: the builder's defaults)."""
    ax = JointAxis(ax)
    nan = float("nan")

    def limit(name, v, sign):
        v = float(v)
        return nan if v == sign * math.inf else _f32(c, f"{label}.{name}", v)

    try:
        mode = int(ax.mode)
    except (TypeError, ValueError):
        raise BuildError(f"{c}: {label}.mode must be a joint mode (0, 1 or 2), got {ax.mode!r}") from None
    return (*_f32s(c, f"{label}.axis", ax.axis, 3), _f32(c, f"{label}.action", ax.action),
            _f32(c, f"{label}.target_ke", ax.target_ke), _f32(c, f"{label}.target_kd", ax.target_kd), float(mode),
            limit("limit_lower", ax.limit_lower, -1), limit("limit_upper", ax.limit_upper, 1),
            _f32(c, f"{label}.limit_ke", ax.limit_ke), _f32(c, f"{label}.limit_kd", ax.limit_kd))


def _axis_list(c, name, axes):
    if axes is None:
        return []
    try:
        axes = list(axes)
    except TypeError:
        raise BuildError(f"{c}: {name} must be a list of JointAxis or 3-vectors, got {axes!r}") from None
    return [_axis_values(c, f"{name}[{k}]", a) for k, a in enumerate(axes)]


class _JointBuilder:
    """ModelBuilder's joints of several axes (a mixin: self._cpp is the C++ builder)."""

    def _axes_joint(self, c, kind, parent, child, linear, angular, parent_xform, child_xform, linear_compliance,
                    angular_compliance, armature, name, collision_filter_parent, enabled):
        compliance = _joint_keywords(c, linear_compliance, angular_compliance, enabled)
        ppos, prot = _transform_parts(c, parent_xform)
        cpos, crot = _transform_parts(c, child_xform)
        return _set_compliance(
            self._cpp,
            self._cpp.add_joint_axes(kind, int(parent), int(child), _f32s(c, "parent_xform.p", ppos, 3),
                                     _f32s(c, "parent_xform.q", prot, 4), _f32s(c, "child_xform.p", cpos, 3),
                                     _f32s(c, "child_xform.q", crot, 4), linear, angular, bool(collision_filter_parent),
                                     _f32(c, "armature", armature), "" if name is None else str(name)), compliance)

    def add_joint(self, joint_type, parent, child, linear_axes=None, angular_axes=None, name=None, parent_xform=None,
                  child_xform=None, linear_compliance=0.0, angular_compliance=0.0, armature=1e-2, collision_filter_parent=True,
                  enabled=True):
        """Warp's generic add_joint: a joint of `joint_type` (JOINT_*) with the axes its type has
        (revolute one angular, prismatic one linear, universal two angular, compound three, D6 any
        up to three of each, distance one linear (its limits), ball, fixed and free none). Returns
        the joint's index."""
        c = "add_joint"
        kind = _JOINT_KINDS.get(joint_type) if isinstance(joint_type, int) else None
        if kind is None:
            raise BuildError(f"{c}: joint_type {joint_type!r} is not a joint type (JOINT_PRISMATIC 0, JOINT_REVOLUTE 1, "
                             "JOINT_BALL 2, JOINT_FIXED 3, JOINT_FREE 4, JOINT_COMPOUND 5, JOINT_UNIVERSAL 6, JOINT_DISTANCE 7, "
                             "JOINT_D6 8)")
        lin, ang = _axis_list(c, "linear_axes", linear_axes), _axis_list(c, "angular_axes", angular_axes)
        kind_name, counts = kind
        if counts is not None and (len(lin), len(ang)) != counts:
            raise BuildError(f"{c}: a {kind_name} joint has {counts[0]} linear and {counts[1]} angular axes, got "
                             f"{len(lin)} and {len(ang)}")
        if kind_name in ("universal", "compound", "d6"):
            return self._axes_joint(c, kind_name, parent, child, lin, ang, parent_xform, child_xform, linear_compliance,
                                    angular_compliance, armature, name, collision_filter_parent, enabled)
        compliance = _joint_keywords(c, linear_compliance, angular_compliance, enabled)
        ppos, prot = _transform_parts(c, parent_xform)
        cpos, crot = _transform_parts(c, child_xform)
        nan = float("nan")
        v = (lin + ang)[0] if lin or ang else (1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, nan, nan, nan, nan)
        return _set_compliance(
            self._cpp,
            self._cpp.add_joint(kind_name, int(parent), int(child), _f32s(c, "parent_xform.p", ppos, 3),
                                _f32s(c, "parent_xform.q", prot, 4), _f32s(c, "child_xform.p", cpos, 3),
                                _f32s(c, "child_xform.q", crot, 4), v[0:3], v[3], v[4], v[5], int(v[6]), v[7], v[8], v[9],
                                v[10], bool(collision_filter_parent), _f32(c, "armature", armature),
                                "" if name is None else str(name)), compliance)

    def add_joint_distance(self, parent, child, parent_xform=None, child_xform=None, min_distance=-1.0, max_distance=1.0,
                           compliance=0.0, collision_filter_parent=True, enabled=True):
        """Warp's add_joint_distance: the distance between the two joint frames' origins kept within
        [min_distance, max_distance] (negative: no bound), rigidly or with `compliance` (m/N); the
        bodies are otherwise free (coordinates as a free joint's). Only the XPBD integrator simulates
        it, as in Warp; the semi-implicit and Featherstone integrators refuse a model that has one.
        Returns the joint's index."""
        c = "add_joint_distance"
        return self.add_joint(JOINT_DISTANCE, parent, child, parent_xform=parent_xform, child_xform=child_xform,
                              linear_axes=[JointAxis((1.0, 0.0, 0.0), limit_lower=_f32(c, "min_distance", min_distance),
                                                     limit_upper=_f32(c, "max_distance", max_distance))],
                              linear_compliance=compliance, collision_filter_parent=collision_filter_parent, enabled=enabled)

    def add_joint_universal(self, parent, child, axis_0, axis_1, parent_xform=None, child_xform=None, linear_compliance=0.0,
                            angular_compliance=0.0, armature=0.01, name=None, collision_filter_parent=True, enabled=True):
        """Rotation about two perpendicular axes (Warp's add_joint_universal): the child's joint
        frame is the parent's rotated by R(axis_0, q0) R(axis_1, q1); the rotation about
        axis_0 x axis_1 is held. joint_q: q0, q1. Returns the joint's index."""
        c = "add_joint_universal"
        angular = [_axis_values(c, "axis_0", axis_0), _axis_values(c, "axis_1", axis_1)]
        return self._axes_joint(c, "universal", parent, child, [], angular, parent_xform, child_xform, linear_compliance,
                                angular_compliance, armature, name, collision_filter_parent, enabled)

    def add_joint_compound(self, parent, child, axis_0, axis_1, axis_2, parent_xform=None, child_xform=None,
                           linear_compliance=0.0, angular_compliance=0.0, armature=0.01, name=None,
                           collision_filter_parent=True, enabled=True):
        """Rotation about three perpendicular axes (Warp's add_joint_compound): R(axis_0, q0)
        R(axis_1, q1) R(axis_2, q2). joint_q: q0, q1, q2. Returns the joint's index."""
        c = "add_joint_compound"
        angular = [_axis_values(c, f"axis_{k}", a) for k, a in enumerate((axis_0, axis_1, axis_2))]
        return self._axes_joint(c, "compound", parent, child, [], angular, parent_xform, child_xform, linear_compliance,
                                angular_compliance, armature, name, collision_filter_parent, enabled)

    def add_joint_d6(self, parent, child, linear_axes=None, angular_axes=None, name=None, parent_xform=None,
                     child_xform=None, linear_compliance=0.0, angular_compliance=0.0, armature=0.01,
                     collision_filter_parent=True, enabled=True):
        """Warp's add_joint_d6: translation along up to 3 perpendicular linear axes, then rotation
        about up to 3 perpendicular angular axes (as revolute, universal or compound for 1, 2, 3);
        what no axis frees is held. joint_q: one coordinate per axis, linear first. Returns the
        joint's index."""
        c = "add_joint_d6"
        return self._axes_joint(c, "d6", parent, child, _axis_list(c, "linear_axes", linear_axes),
                                _axis_list(c, "angular_axes", angular_axes), parent_xform, child_xform, linear_compliance,
                                angular_compliance, armature, name, collision_filter_parent, enabled)
